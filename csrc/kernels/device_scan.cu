// Canonical device scan, single pass with a deterministic decoupled look-back
// (docs/SEMANTICS.md "device_scan"): tiles of 256 threads x 16 consecutive items, a thread-local
// scan, Kogge-Stone over each logical group of 32 and then over the 8 group totals, and the tile
// prefix folded left to right from the nearest predecessor's inclusive prefix (look_back.h).
//
// Items go through shared memory in both directions so global accesses are coalesced; the
// shared array is padded (one element every 32 words) so that thread t reading its 16
// consecutive items hits distinct banks.
#include "device.h"
#include "look_back.h"

namespace WK_NS {
using namespace prims;

namespace {

const unsigned kThreads = WK_SCAN_TILE_THREADS;
const unsigned kItems = WK_SCAN_ITEMS_PER_THREAD;
const unsigned kGroups = WK_SCAN_TILE_THREADS / WK_LOGICAL_GROUP;

// Items of one warp: thread t owns items 16t .. 16t+15, so the warp's are consecutive and each
// warp moves its own items between global and shared memory (coalesced both ways) behind a
// __syncwarp, with no block barrier.
const unsigned kWarpItems = WK_WARP_SIZE * kItems;

// Blocks per SM the registers must allow: the first warp's look-back holds its block at a
// barrier (ncu: about 60% of warp cycles at 5 blocks/SM), so more resident tiles keep more
// loads in flight. Seven blocks of 4-byte values fit the shared memory (17 KB each); measured
// on an H100 at 2^28 (BENCHMARKS.md, "blocks=" rows), seven made the i32 scan 1.12x faster but
// the f32 scan 2.5x slower (the float look-back's stash fold does not fit the registers left),
// so 4-byte integers get seven, floats five, 8-byte values four.
template <typename T> struct ScanOccupancy {
  static const int blocks = sizeof(T) == 4 ? (Elem<T>::is_float ? 5 : 7) : 4;
};

template <int OP, typename T, typename Status, int BLOCKS = ScanOccupancy<T>::blocks>
__global__ void __launch_bounds__(WK_SCAN_TILE_THREADS, BLOCKS)
    scan_kernel(const T* in, uint64_t n, uint32_t exclusive, unsigned* counter, Status status,
                T* out) {
  typedef Op<OP, T> O;
  typedef Pad<T> P;
  const unsigned kWarpSlots = kWarpItems + kWarpItems / P::every;
  WK_SHARED(T, items, kThreads / WK_WARP_SIZE * kWarpSlots);
  WK_SHARED(T, group_tot, kGroups);
  WK_SHARED(T, group_incl, kGroups);
  WK_SHARED(T, stash, kStashSize);
  WK_SHARED(unsigned, stash_flags, WK_WARP_SIZE);
  WK_SHARED_VAR(T, last_w_prev);
  WK_SHARED_VAR(T, last_local);
  WK_SHARED_VAR(T, s_prefix);
  WK_SHARED_VAR(unsigned, s_tile);
  const unsigned t = threadIdx.x;
  const unsigned ln = lane();
  const auto wsm = items + (t / WK_WARP_SIZE) * kWarpSlots;
  // Tiles are numbered in the order blocks start, so every predecessor of a tile is already
  // running or done and the look-back always makes progress.
  if (t == 0) s_tile = atomicAdd(counter, 1u);
  __syncthreads();
  const uint64_t tile = s_tile;
  const uint64_t base = tile * WK_SCAN_TILE + (uint64_t)(t / WK_WARP_SIZE) * kWarpItems;

  if (base + kWarpItems <= n) {
    T x[kItems];
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) x[k] = in[base + k * WK_WARP_SIZE + ln];
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) wsm[P::at(k * WK_WARP_SIZE + ln)] = x[k];
  } else {
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) {
      const unsigned idx = k * WK_WARP_SIZE + ln;
      wsm[P::at(idx)] = base + idx < n ? in[base + idx] : O::identity();
    }
  }
  const wk_lanemask_t mask = block_warp_lanes();
  syncwarp(NATIVE, mask);

  // 1. Thread t's items 16t .. 16t+15, scanned sequentially.
  T s[kItems];
  s[0] = wsm[P::at(ln * kItems)];
#pragma unroll
  for (unsigned k = 1; k < kItems; ++k) s[k] = O::combine(s[k - 1], wsm[P::at(ln * kItems + k)]);

  // 2. Kogge-Stone of the thread totals in each logical group, then over the group totals.
  T w = kogge_stone<OP, T>(mask, s[kItems - 1], WK_LOGICAL_GROUP);
  T w_prev = shfl_up(mask, w, 1, WK_LOGICAL_GROUP);
  const unsigned g = t / WK_LOGICAL_GROUP;
  const unsigned gl = t % WK_LOGICAL_GROUP;
  if (gl == WK_LOGICAL_GROUP - 1) group_tot[g] = w;
  // What the first warp needs to compute the tile aggregate A = L_last itself.
  if (t == kThreads - 1) {
    last_w_prev = w_prev;
    last_local = s[kItems - 1];
  }
  __syncthreads();
  if (t < WK_LOGICAL_GROUP) {
    T x = t < kGroups ? group_tot[t] : O::identity();
    T u = kogge_stone<OP, T>(mask & low_lanes(WK_LOGICAL_GROUP), x, kGroups);
    if (t < kGroups) group_incl[t] = u;
  }
  __syncthreads();

  // 3-4. Thread prefix and local inclusive values; the tile aggregate is the last of them,
  // op(op(E_last, w_prev of the last thread), its local total), as that thread computes it.
  const T e_g = g == 0 ? O::identity() : group_incl[g - 1];
  const T p = gl == 0 ? e_g : O::combine(e_g, w_prev);
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) s[k] = O::combine(p, s[k]);

  // 5. Tile prefix X_i by look-back, folded left to right from the nearest inclusive prefix.
  if (tile != 0) {
    if (t < WK_WARP_SIZE) {
      const T agg = O::combine(O::combine(group_incl[kGroups - 2], last_w_prev), last_local);
      if (t == 0) status.publish(tile, kStatusAggregate, agg);
      T x = look_back<OP, T>(status, tile, stash, stash_flags);
      if (t == 0) {
        status.publish(tile, kStatusInclusive, O::combine(x, agg));
        s_prefix = x;
      }
    }
    __syncthreads();
    const T x = s_prefix;
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) s[k] = O::combine(x, s[k]);
  } else if (t == 0) {
    status.publish(0, kStatusInclusive, O::combine(O::combine(group_incl[kGroups - 2], last_w_prev), last_local));
  }

  // Store through the warp's shared memory so global writes are coalesced; this warp read its
  // region only above, in program order before the __syncwarp.
  syncwarp(NATIVE, mask);
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) wsm[P::at(ln * kItems + k)] = s[k];
  syncwarp(NATIVE, mask);
  if (!exclusive && base + kWarpItems <= n) {
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k)
      out[base + k * WK_WARP_SIZE + ln] = wsm[P::at(k * WK_WARP_SIZE + ln)];
    return;
  }
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) {
    const unsigned idx = k * WK_WARP_SIZE + ln;
    const uint64_t e = base + idx;
    if (exclusive) {
      if (e + 1 < n) out[e + 1] = wsm[P::at(idx)];
      if (e == 0) out[0] = O::identity();
    } else if (e < n) {
      out[e] = wsm[P::at(idx)];
    }
  }
}

}  // namespace

uint64_t device_scan_scratch(uint32_t elem_size, uint64_t n) {
  if (n == 0) return 0;
  return status_bytes(elem_size, (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE);
}

int device_scan_launch(void* stream, wk_status* st, uint32_t dtype, uint32_t op,
                       uint32_t exclusive, const void* in, uint64_t n, void* scratch,
                       uint64_t scratch_bytes, void* out) {
  return device_scan_launch_b(stream, st, dtype, op, exclusive, in, n, scratch, scratch_bytes,
                              out, 0);
}

int device_scan_launch_b(void* stream, wk_status*, uint32_t dtype, uint32_t op,
                         uint32_t exclusive, const void* in, uint64_t n, void* scratch,
                         uint64_t scratch_bytes, void* out, unsigned blocks) {
  uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  if (n == 0 || tiles > 0x7fffffffull) return WK_ERR_ARG;
  return with_dtype(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    if (scratch_bytes < device_scan_scratch(sizeof(T), n)) return WK_ERR_SCRATCH;
    char* s = (char*)scratch;
    unsigned* counter = (unsigned*)s;
    typename StatusFor<T>::type status;
    const uint64_t zeroed = status_layout<T>(s, tiles, &status);
    int rc = host::memset_async(s, 0, zeroed, as_stream(stream));
    if (rc) return rc;
    return with_op<T>(op, [&](auto ot) {
      const int O = decltype(ot)::value;
      typedef typename StatusFor<T>::type S;
      host::stream_t hs = as_stream(stream);
      if (blocks == 5)
        WK_LAUNCH((unsigned)tiles, kThreads, 0, hs, scan_kernel<O, T, S, 5>)(
            (const T*)in, n, exclusive, counter, status, (T*)out);
      else if (blocks == 6)
        WK_LAUNCH((unsigned)tiles, kThreads, 0, hs, scan_kernel<O, T, S, 6>)(
            (const T*)in, n, exclusive, counter, status, (T*)out);
      else if (blocks == 7)
        WK_LAUNCH((unsigned)tiles, kThreads, 0, hs, scan_kernel<O, T, S, 7>)(
            (const T*)in, n, exclusive, counter, status, (T*)out);
      else
        WK_LAUNCH((unsigned)tiles, kThreads, 0, hs, scan_kernel<O, T, S>)(
            (const T*)in, n, exclusive, counter, status, (T*)out);
      return host::launch_error();
    });
  });
}

}  // namespace WK_NS
