// Canonical device scan, single pass with a deterministic decoupled look-back
// (docs/SEMANTICS.md "Device scan"): tiles of 256 threads x 16 consecutive items, a thread-local
// scan, Kogge-Stone over each logical group of 32 and then over the 8 group totals, and the tile
// prefix folded left to right from the nearest predecessor's inclusive prefix.
#include "device.h"

namespace WK_NS {
using namespace prims;

namespace {

const unsigned kThreads = WK_SCAN_TILE_THREADS;
const unsigned kItems = WK_SCAN_ITEMS_PER_THREAD;
const unsigned kGroups = WK_SCAN_TILE_THREADS / WK_LOGICAL_GROUP;

// Tile status flags: the aggregate A_i, or the inclusive prefix X_{i+1}, is published.
const unsigned kAggregate = 1;
const unsigned kInclusive = 2;

__device__ __forceinline__ unsigned load_flag(const unsigned* flags, uint64_t i) {
  return *(const volatile unsigned*)(flags + i);
}
__device__ __forceinline__ void store_flag(unsigned* flags, uint64_t i, unsigned f) {
  *(volatile unsigned*)(flags + i) = f;
}
template <typename T> __device__ __forceinline__ T load_published(const T* p) {
  return *(const volatile T*)p;
}

template <int OP, typename T>
__global__ void __launch_bounds__(WK_SCAN_TILE_THREADS)
    scan_kernel(const T* in, uint64_t n, uint32_t exclusive, unsigned* counter, unsigned* flags,
                T* aggs, T* incls, T* out) {
  typedef Op<OP, T> O;
  WK_SHARED(T, items, WK_SCAN_TILE);
  WK_SHARED(T, group_tot, kGroups);
  WK_SHARED(T, group_incl, kGroups);
  WK_SHARED_VAR(T, s_agg);
  WK_SHARED_VAR(T, s_prefix);
  WK_SHARED_VAR(unsigned, s_tile);
  const unsigned t = threadIdx.x;
  // Tiles are numbered in the order blocks start, so every predecessor of a tile is already
  // running or done and the look-back always makes progress.
  if (t == 0) s_tile = atomicAdd(counter, 1u);
  __syncthreads();
  const uint64_t tile = s_tile;
  const uint64_t base = tile * WK_SCAN_TILE;

#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) {
    unsigned idx = k * kThreads + t;
    uint64_t e = base + idx;
    items[idx] = e < n ? in[e] : O::identity();
  }
  __syncthreads();

  // 1. Thread t's items 16t .. 16t+15, scanned sequentially.
  T s[kItems];
  s[0] = items[t * kItems];
#pragma unroll
  for (unsigned k = 1; k < kItems; ++k) s[k] = O::combine(s[k - 1], items[t * kItems + k]);

  // 2. Kogge-Stone of the thread totals in each logical group, then over the group totals.
  wk_lanemask_t mask = block_warp_lanes();
  T w = kogge_stone<OP, T>(mask, s[kItems - 1], WK_LOGICAL_GROUP);
  T w_prev = shfl_up(mask, w, 1, WK_LOGICAL_GROUP);
  unsigned g = t / WK_LOGICAL_GROUP;
  unsigned gl = t % WK_LOGICAL_GROUP;
  if (gl == WK_LOGICAL_GROUP - 1) group_tot[g] = w;
  __syncthreads();
  if (t < WK_LOGICAL_GROUP) {
    T x = t < kGroups ? group_tot[t] : O::identity();
    T u = kogge_stone<OP, T>(mask & low_lanes(WK_LOGICAL_GROUP), x, kGroups);
    if (t < kGroups) group_incl[t] = u;
  }
  __syncthreads();

  // 3-4. Thread prefix and local inclusive values; the tile aggregate is the last of them.
  T e_g = g == 0 ? O::identity() : group_incl[g - 1];
  T p = gl == 0 ? e_g : O::combine(e_g, w_prev);
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) s[k] = O::combine(p, s[k]);
  if (t == kThreads - 1) s_agg = s[kItems - 1];
  __syncthreads();

  // 5. Tile prefix X_i by look-back, folded left to right from the nearest inclusive prefix.
  if (tile == 0) {
    if (t == 0) {
      incls[0] = s_agg;
      arch::fence_device();
      store_flag(flags, 0, kInclusive);
    }
  } else {
    if (t == 0) {
      aggs[tile] = s_agg;
      arch::fence_device();
      store_flag(flags, tile, kAggregate);
    }
    if (t < WK_WARP_SIZE) {
      const unsigned ln = lane();
      int64_t j = (int64_t)tile - 1;
      int64_t found;
      for (;;) {
        int64_t idx = j - (int64_t)ln;
        unsigned f = 0;
        if (idx >= 0) {
          do {
            f = load_flag(flags, (uint64_t)idx);
          } while (f == 0);
        }
        wk_lanemask_t incl = arch::ballot_sync(mask, f == kInclusive);
        if (incl != 0) {
          found = j - arch::lowest_lane(incl);
          break;
        }
        j -= WK_WARP_SIZE;
      }
      arch::fence_device();
      if (ln == 0) {
        T acc = load_published(incls + found);
        for (int64_t k = found + 1; k < (int64_t)tile; ++k)
          acc = O::combine(acc, load_published(aggs + k));
        s_prefix = acc;
        incls[tile] = O::combine(acc, s_agg);
        arch::fence_device();
        store_flag(flags, tile, kInclusive);
      }
    }
    __syncthreads();
    T x = s_prefix;
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) s[k] = O::combine(x, s[k]);
  }

  // Store through shared memory so global writes are coalesced.
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) items[t * kItems + k] = s[k];
  __syncthreads();
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) {
    unsigned idx = k * kThreads + t;
    uint64_t e = base + idx;
    if (exclusive) {
      if (e + 1 < n) out[e + 1] = items[idx];
      if (e == 0) out[0] = O::identity();
    } else if (e < n) {
      out[e] = items[idx];
    }
  }
}

uint64_t round_up(uint64_t b) { return (b + 255) / 256 * 256; }

}  // namespace

uint64_t device_scan_scratch(uint32_t elem_size, uint64_t n) {
  uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  return 256 + round_up(tiles * 4) + 2 * round_up(tiles * elem_size);
}

int device_scan_launch(void* stream, wk_status*, uint32_t dtype, uint32_t op, uint32_t exclusive,
                       const void* in, uint64_t n, void* scratch, uint64_t scratch_bytes,
                       void* out) {
  uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  if (n == 0 || tiles > 0x7fffffffull) return WK_ERR_ARG;
  return with_dtype(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    if (scratch_bytes < device_scan_scratch(sizeof(T), n)) return WK_ERR_SCRATCH;
    char* s = (char*)scratch;
    unsigned* counter = (unsigned*)s;
    unsigned* flags = (unsigned*)(s + 256);
    T* aggs = (T*)(s + 256 + round_up(tiles * 4));
    T* incls = (T*)((char*)aggs + round_up(tiles * sizeof(T)));
    int rc = host::memset_async(s, 0, 256 + round_up(tiles * 4), as_stream(stream));
    if (rc) return rc;
    return with_op<T>(op, [&](auto ot) {
      WK_LAUNCH((unsigned)tiles, kThreads, 0, as_stream(stream), scan_kernel<decltype(ot)::value, T>)(
          (const T*)in, n, exclusive, counter, flags, aggs, incls, (T*)out);
      return host::launch_error();
    });
  });
}

}  // namespace WK_NS
