// Canonical device scan, single pass with a deterministic decoupled look-back
// (docs/SEMANTICS.md "device_scan"): tiles of 256 threads x 16 consecutive items, a thread-local
// scan, Kogge-Stone over each logical group of 32 and then over the 8 group totals, and the tile
// prefix folded left to right from the nearest predecessor's inclusive prefix (look_back.h).
//
// The 16-bit floats load as IO and scan in float (Elem<IO>::Acc): shared memory, the look-back
// and every combine are float, and each output is rounded once as it is stored (half.h).
//
// Items go through shared memory where that keeps global accesses coalesced (the stores, and the
// loads of partial or unaligned slices), in the layouts of device_scan_slots.h.
#include "shapes.h"
#include "tile_groups.h"

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

}  // namespace
}  // namespace WK_NS

#include "device_scan_slots.h"

namespace WK_NS {
namespace {

// 16-bit values move as 32-bit pairs where the pointer is 4-byte aligned: item 2i in the low
// half (little-endian, as every target is).
template <typename IO> __device__ __forceinline__ bool pairs_ok(const IO* p) {
  return sizeof(IO) == 2 && ((uintptr_t)p & 3) == 0;
}

// Large 4-byte Sum scans, from WK_SCAN_WIDE_FROM_TILES tiles, take four tiles a block (1024
// threads, two blocks an SM, the parked tiles in 64 KB of dynamic shared memory): half the
// blocks waiting on a look-back at the same threads an SM. On an H200 (2026-11-29, the bench's
// "tiles=" rows) at 2^28 they ran 1.05x (f32) and 1.06x (i32) faster than two tiles at four
// blocks, at 2^24 0.97-1.00x, at 2^20 0.92x, hence from 2^26 items; the 16-bit floats gained
// nothing (f16 1.02x, bf16 0.97x) and keep two. AMD's 64 KB of LDS a workgroup cannot hold four
// tiles beside the stash, so HIP builds keep two; the SIMT executor's build sets 2, so that the
// conformance suite's small inputs run the shape.
#ifndef WK_SCAN_WIDE_FROM_TILES
#if defined(WK_VENDOR_HIP)
#define WK_SCAN_WIDE_FROM_TILES 0
#else
#define WK_SCAN_WIDE_FROM_TILES 16384
#endif
#endif
const uint64_t kScanWideFromTiles = WK_SCAN_WIDE_FROM_TILES;
#if defined(WK_VENDOR_CUDA)
const bool kVendorCuda = true;
#else
const bool kVendorCuda = false;
#endif

// Tiles per block and blocks per SM. A block scans K consecutive tiles (K x 256 threads) and
// makes one look-back for the first; the others' prefixes follow from it by the same left fold,
// so the bits do not depend on K. The look-back holds its block at a barrier (ncu: about 60% of
// warp cycles), and two tiles a block halve the look-backs and barriers per byte. BLOCKS is what
// the registers must allow. Measured on an H100 at 2^28 (the bench's "tiles= blocks=" rows
// beside the default, 2026-11-23): 4-byte values run best at two tiles and four blocks (2048
// threads, 32 registers): i32 1.11x CUB where one tile and seven blocks gave 0.99x, f32 1.04x
// faster than three blocks of two tiles and 1.13x faster than six of one; 8-byte values at one
// tile and five blocks (35 KB of shared memory each), against which four and six blocks
// measured 2% and 15% slower.
template <typename T> struct ScanOccupancy {
  static const int tiles = sizeof(T) == 4 ? 2 : 1;
  static const int blocks = sizeof(T) == 4 ? 4 : 5;
};

// Stores one warp's slice of a tile from its part of shared memory, combined with the tile
// prefix x (has_x) and rounded to IO. WIDE: a full slice into a 16-byte aligned output goes
// out 16 bytes a lane, lane l taking the 16 / sizeof(IO) items after those of lane l - 1, so
// each warp store covers 32 x 16 consecutive bytes (read from shared memory a chunk at a
// time). An exclusive scan's slice then stores its own positions too: item i - 1's value at
// i, and at the first one `before` (already combined: the value of the item before the
// slice), the last item's value going to the next slice's first position only when that slice
// is partial (it stores from its second position on). false: the bench's "stores 4 bytes a
// lane (before)" rows, 4-byte words (16-bit values in pairs) or single items a lane, an
// exclusive scan's item i at position i + 1.
template <typename O, bool WIDE, typename T, typename W, typename IO>
__device__ __forceinline__ void store_tile(W wsm, bool has_x, T x, T before, uint32_t exclusive,
                                           uint64_t base, uint64_t n, IO* out) {
  typedef SlotsFor<T> P;
  const unsigned ln = lane();
  if (WIDE && base + kWarpItems <= n && ((uintptr_t)out % 16) == 0) {
    const unsigned kVec = 16 / sizeof(IO);
    static_assert(kVec % P::q == 0, "a lane stores whole chunks");
    const unsigned kChunks = kVec / P::q;
    // A warp's store moves a whole number of layout periods, so the slots of round k are
    // round 0's plus a constant (no slot arithmetic in the loop).
    static_assert((WK_WARP_SIZE * kVec) % P::period == 0, "rounds of whole periods");
    unsigned slot0[kChunks];
#pragma unroll
    for (unsigned h = 0; h < kChunks; ++h) slot0[h] = P::at(kVec * ln + h * P::q);
    uint4* p = reinterpret_cast<uint4*>(out + base);
#pragma unroll
    for (unsigned k = 0; k < kItems / kVec; ++k) {
      // Items i0 .. i0 + kVec - 1: whole chunks, consecutive ones across the lanes.
      const unsigned i0 = kVec * (k * WK_WARP_SIZE + ln);
      T c[kVec];
#pragma unroll
      for (unsigned h = 0; h < kChunks; ++h)
        chunk_load<P>(wsm + slot0[h] + P::advance(k * WK_WARP_SIZE * kVec), c + h * P::q);
      T y[kVec];
#pragma unroll
      for (unsigned j = 0; j < kVec; ++j) {
        if (!exclusive) {
          y[j] = has_x ? O::combine(x, c[j]) : c[j];
        } else if (i0 + j == 0) {
          y[j] = before;
        } else {
          const T u = j == 0 ? wsm[P::at(i0 - 1)] : c[j - 1];
          y[j] = has_x ? O::combine(x, u) : u;
        }
      }
      uint4 r;
      if constexpr (sizeof(IO) == 2) {
        uint32_t w[kVec / 2];
#pragma unroll
        for (unsigned m = 0; m < kVec / 2; ++m) w[m] = pack_from_acc<IO>(y[2 * m], y[2 * m + 1]);
        __builtin_memcpy(&r, w, sizeof(r));
      } else {
        IO v[kVec];
#pragma unroll
        for (unsigned j = 0; j < kVec; ++j) v[j] = from_acc<IO>(y[j]);
        __builtin_memcpy(&r, v, sizeof(r));
      }
      p[k * WK_WARP_SIZE + ln] = r;
    }
    const uint64_t next = base + kWarpItems;
    if (exclusive && ln == 0 && next < n && next + kWarpItems > n) {
      const T y = wsm[P::at(kWarpItems - 1)];
      out[next] = from_acc<IO>(has_x ? O::combine(x, y) : y);
    }
    return;
  }
  if constexpr (sizeof(IO) == 2) {
    if (pairs_ok(out) && !exclusive && base + kWarpItems <= n) {
      uint32_t* p = reinterpret_cast<uint32_t*>(out + base);
#pragma unroll
      for (unsigned k = 0; k < kItems / 2; ++k) {
        const unsigned idx = 2 * (k * WK_WARP_SIZE + ln);
        const T v0 = wsm[P::at(idx)], v1 = wsm[P::at(idx + 1)];
        p[k * WK_WARP_SIZE + ln] =
            pack_from_acc<IO>(has_x ? O::combine(x, v0) : v0, has_x ? O::combine(x, v1) : v1);
      }
      return;
    }
  }
  if (!exclusive && base + kWarpItems <= n) {
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) {
      const T v = wsm[row_slot<P>(k, ln)];
      out[base + k * WK_WARP_SIZE + ln] = from_acc<IO>(has_x ? O::combine(x, v) : v);
    }
    return;
  }
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) {
    const unsigned idx = k * WK_WARP_SIZE + ln;
    const uint64_t e = base + idx;
    const T v = has_x ? O::combine(x, wsm[P::at(idx)]) : wsm[P::at(idx)];
    if (exclusive) {
      if (e + 1 < n) out[e + 1] = from_acc<IO>(v);
      // `before` at the array's first position: the identity, or the carried-in prefix.
      if (e == 0) out[0] = from_acc<IO>(before);
    } else if (e < n) {
      out[e] = from_acc<IO>(v);
    }
  }
}

// Static shared memory stops at 48 KB a block: parked tiles of more than kStaticItemBytes (with
// the stash and the rest beside them) go to dynamic shared memory, which the launch opts into.
const size_t kStaticItemBytes = 32768;
template <typename T, int K> struct ScanDynamic {
  static const size_t items =
      (size_t)K * kThreads / WK_WARP_SIZE * SlotsFor<T>::kSlots * sizeof(T);
  static const size_t bytes = items > kStaticItemBytes ? items : 0;
};

template <int OP, typename T, typename Status, int BLOCKS = ScanOccupancy<T>::blocks,
          int K = ScanOccupancy<T>::tiles, typename IO = T, bool DIRECT_LOADS = true,
          bool WIDE_STORES = true>
__global__ void __launch_bounds__(WK_SCAN_TILE_THREADS * K, BLOCKS)
    scan_kernel(const IO* in, uint64_t n, uint32_t exclusive, unsigned* counter, Status status,
                IO* out, const T* carry, T* aggs) {
  typedef Op<OP, T> O;
  typedef SlotsFor<T> P;
  const unsigned kWarpSlots = P::kSlots;
  // Past kStaticItemBytes the parked tiles take the launch's dynamic shared memory instead.
  constexpr size_t kItemSlots = ScanDynamic<T, K>::items / sizeof(T);
  constexpr bool kDynamic = ScanDynamic<T, K>::bytes != 0;
  WK_SHARED_ALIGNED(T, items_static, kDynamic ? 1 : kItemSlots, 16);
  WK_DYNAMIC_SHARED_ALIGNED(T, items_dynamic);
  const auto items = kDynamic ? items_dynamic : items_static;
  WK_SHARED(T, group_tot, K * kGroups);
  WK_SHARED(T, group_incl, K * kGroups);
  WK_SHARED(T, stash, StashFor<T>::size);
  WK_SHARED(unsigned, stash_flags, StashFor<T>::flags);
  WK_SHARED(T, last_w_prev, K);
  WK_SHARED(T, last_local, K);
  WK_SHARED(T, s_prefix, K);
  WK_SHARED_VAR(unsigned, s_first);
  const unsigned bt = threadIdx.x;
  const unsigned h = bt / kThreads;  // which of the block's tiles
  const unsigned t = bt % kThreads;  // the thread within that tile
  const unsigned ln = lane();
  const auto wsm = items + (bt / WK_WARP_SIZE) * kWarpSlots;
  // Blocks are numbered in the order they start, so every predecessor of a tile is already
  // running or done and the look-back always makes progress.
  // aggs (device_scan_aggregates): tiles are independent, any order will do.
  if (bt == 0) {
    s_first = aggs ? blockIdx.x : take_ticket(counter);
    if (!aggs) status.prefetch((uint64_t)s_first * K);
  }
  __syncthreads();
  const uint64_t first = (uint64_t)s_first * K;
  const uint64_t tile = first + h;
  const uint64_t base = tile * WK_SCAN_TILE + (uint64_t)(t / WK_WARP_SIZE) * kWarpItems;

  // A tile past the input (the last block's second, say) loads identities and stores nothing.
  // A warp's full slice of a 16-byte aligned input of 4-byte or smaller values loads straight
  // into registers, each thread its 16 consecutive items 16 bytes at a time (as the compaction
  // does: the trip through shared memory was a large share of the scan's instructions; false:
  // the bench's "loads via shared memory" rows). Otherwise 16-bit values whose pointer is
  // 4-byte aligned load in pairs, the rest one by one, through the warp's part of shared
  // memory. Every path feeds the same values to the same combines. The stores stay coalesced
  // through shared memory: each thread storing its own 16 items the same way measured 1.31x
  // slower for f32 at 2^28 (H200, 2026-11-27: each warp store fills half of every sector).
  const bool full = base + kWarpItems <= n;
  const wk_lanemask_t mask = block_warp_lanes();
  T s[kItems];
  if (DIRECT_LOADS && sizeof(IO) <= 4 && full && ((uintptr_t)in % 16) == 0) {
    const uint4* p = reinterpret_cast<const uint4*>(in + base + (uint64_t)ln * kItems);
    uint4 r[kItems * sizeof(IO) / 16];
#pragma unroll
    for (unsigned v = 0; v < kItems * sizeof(IO) / 16; ++v) r[v] = p[v];
    IO x[kItems];
    __builtin_memcpy(x, r, sizeof(x));
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) s[k] = to_acc(x[k]);
  } else {
    if (full && pairs_ok(in)) {
      if constexpr (sizeof(IO) == 2) {
        uint32_t w[kItems / 2];
        const uint32_t* p = reinterpret_cast<const uint32_t*>(in + base);
#pragma unroll
        for (unsigned k = 0; k < kItems / 2; ++k) w[k] = p[k * WK_WARP_SIZE + ln];
#pragma unroll
        for (unsigned k = 0; k < kItems / 2; ++k) {
          const unsigned idx = 2 * (k * WK_WARP_SIZE + ln);
          wsm[P::at(idx)] = to_acc(from_bits<IO>((uint16_t)w[k]));
          wsm[P::at(idx + 1)] = to_acc(from_bits<IO>((uint16_t)(w[k] >> 16)));
        }
      }
    } else if (full) {
      T x[kItems];
#pragma unroll
      for (unsigned k = 0; k < kItems; ++k) x[k] = to_acc(in[base + k * WK_WARP_SIZE + ln]);
#pragma unroll
      for (unsigned k = 0; k < kItems; ++k) wsm[row_slot<P>(k, ln)] = x[k];
    } else {
#pragma unroll
      for (unsigned k = 0; k < kItems; ++k) {
        const unsigned idx = k * WK_WARP_SIZE + ln;
        wsm[P::at(idx)] = base + idx < n ? to_acc(in[base + idx]) : O::identity();
      }
    }
    syncwarp(NATIVE, mask);
#pragma unroll
    for (unsigned c = 0; c < P::C; ++c) chunk_load<P>(wsm + P::chunk(ln, c), s + c * P::q);
  }
  // 1. Thread t's items 16t .. 16t+15, scanned sequentially.
#pragma unroll
  for (unsigned k = 1; k < kItems; ++k) s[k] = O::combine(s[k - 1], s[k]);

  // 2. Kogge-Stone of the thread totals in each logical group, then over the group totals.
  T w = kogge_stone<OP, T>(mask, s[kItems - 1], WK_LOGICAL_GROUP);
  T w_prev = shfl_up(mask, w, 1, WK_LOGICAL_GROUP);
  const unsigned g = t / WK_LOGICAL_GROUP;
  const unsigned gl = t % WK_LOGICAL_GROUP;
  const auto tot = group_tot + h * kGroups;
  const auto incl = group_incl + h * kGroups;
  if (gl == WK_LOGICAL_GROUP - 1) tot[g] = w;
  // What the first warp needs to compute the tile aggregate A = L_last itself.
  if (t == kThreads - 1) {
    last_w_prev[h] = w_prev;
    last_local[h] = s[kItems - 1];
  }
  __syncthreads();
  if (t < WK_LOGICAL_GROUP) {
    T x = t < kGroups ? tot[t] : O::identity();
    T u = kogge_stone<OP, T>(mask & low_lanes(WK_LOGICAL_GROUP), x, kGroups);
    if (t < kGroups) incl[t] = u;
  }
  __syncthreads();
  if (aggs) {
    // device_scan_aggregates (the same for the whole block): each tile's aggregate A, as step 5
    // computes it below, and nothing else.
    if (t == 0 && tile < (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE)
      aggs[tile] = O::combine(O::combine(incl[kGroups - 2], last_w_prev[h]), last_local[h]);
    return;
  }

  // 3-4. Thread prefix and local inclusive values; the tile aggregate is the last of them,
  // op(op(E_last, w_prev of the last thread), its local total), as that thread computes it.
  const T e_g = g == 0 ? O::identity() : incl[g - 1];
  const T p = gl == 0 ? e_g : O::combine(e_g, w_prev);
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) s[k] = O::combine(p, s[k]);

  // The tile-local values wait in the warp's shared memory, not in sixteen registers a thread,
  // while the first warp looks back: the look-back then has the registers to itself. This warp
  // read only its own threads' slots since the last barrier, so the stores need no barrier
  // before them.
#pragma unroll
  for (unsigned c = 0; c < P::C; ++c) chunk_store<P>(wsm + P::chunk(ln, c), s + c * P::q);
  syncwarp(NATIVE, mask);

  // 5. Tile prefixes: X of the block's first tile by look-back, folded left to right from the
  // nearest inclusive prefix; each next tile's X is the inclusive prefix before it (the 16-bit
  // floats: by groups of tiles, tile_groups.h).
  if (bt < WK_WARP_SIZE) {
    T agg[K];
#pragma unroll
    for (int j = 0; j < K; ++j)
      agg[j] = O::combine(O::combine(group_incl[j * kGroups + kGroups - 2], last_w_prev[j]),
                          last_local[j]);
    const uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
    const unsigned G = TileGroup<IO>::size;
    if constexpr (G > 1) {
      // The 16-bit floats' grouped order (tile_groups.h; they take no carry).
      grouped_prefixes<OP, T, G, K, kStashWindows>(
          status, first, tiles, [&](int j) { return agg[j]; }, s_prefix, stash, stash_flags);
    } else {
      // carry (device_scan_carried): tile 0's prefix X_0, as if the array went on from earlier
      // tiles whose left fold it is.
      T x = carry ? *carry : O::identity();
      if (first != 0) {
        if (bt == 0) {
#pragma unroll
          for (int j = 0; j < K; ++j)
            if (first + j < tiles) status.publish(first + j, kStatusAggregate, agg[j]);
        }
        x = look_back<OP, T>(status, first, stash, stash_flags);
      }
      if (bt == 0) {
#pragma unroll
        for (int j = 0; j < K; ++j) {
          s_prefix[j] = x;
          x = first + j == 0 && !carry ? agg[j] : O::combine(x, agg[j]);
          if (first + j < tiles) status.publish(first + j, kStatusInclusive, x);
        }
      }
    }
  }
  __syncthreads();
  const bool has_x = !Elem<T>::is_float || tile != 0 || carry;
  const T x = tile != 0 || carry ? s_prefix[h] : O::identity();
  // The exclusive value at the slice's first position: the tile prefix for the tile's first
  // warp (the inclusive value of the previous tile's last item, the same bits: the tile
  // aggregate is that item's local value), else the previous warp's last item, combined.
  T before = x;
  if (exclusive && t >= WK_WARP_SIZE) {
    const T y = items[(bt / WK_WARP_SIZE - 1) * kWarpSlots + P::at(kWarpItems - 1)];
    before = has_x ? O::combine(x, y) : y;
  }
  store_tile<O, WIDE_STORES>(wsm, has_x, x, before, exclusive, base, n, out);
}

}  // namespace
}  // namespace WK_NS

#ifndef WK_SCAN_PAIRS_TILES
#define WK_SCAN_PAIRS_TILES 4
#endif
// The 16-bit floats' scan_pairs_kernel from 1024 tiles (2^22 items): it holds four tiles a
// block, so below that it leaves SMs idle, and at 2^20 it ran 1.14x slower than scan_kernel (H200,
// 2026-11-30). The executor's build takes it from two tiles, so that the suite runs both.
#ifndef WK_SCAN_PAIRS_FROM_TILES
#define WK_SCAN_PAIRS_FROM_TILES 1024
#endif
#include "device_scan_pairs.h"

namespace WK_NS {
const uint64_t kScanPairsFromTiles = WK_SCAN_PAIRS_FROM_TILES;

uint64_t device_scan_scratch(uint32_t elem_size, uint64_t n) {
  if (n == 0) return 0;
  return status_bytes(elem_size, (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE);
}

int device_scan_launch(void* stream, wk_status* st, uint32_t dtype, uint32_t op,
                       uint32_t exclusive, const void* in, uint64_t n, void* scratch,
                       uint64_t scratch_bytes, void* out) {
  return device_scan_shaped(stream, st, dtype, op, exclusive, in, n, scratch, scratch_bytes, out,
                            ScanShape{}, 1);
}

int device_scan_tagged_launch(void* stream, wk_status* st, uint32_t dtype, uint32_t op,
                              uint32_t exclusive, const void* in, uint64_t n, void* scratch,
                              uint64_t scratch_bytes, uint32_t tag, void* out) {
  return device_scan_shaped(stream, st, dtype, op, exclusive, in, n, scratch, scratch_bytes, out,
                            ScanShape{}, tag);
}

static int scan_launch(void* stream, wk_status*, uint32_t dtype, uint32_t op,
                       uint32_t exclusive, const void* in, uint64_t n, void* scratch,
                       uint64_t scratch_bytes, void* out, ScanShape shape, const void* carry,
                       void* aggs, uint32_t tag);

int device_scan_shaped(void* stream, wk_status* st, uint32_t dtype, uint32_t op,
                       uint32_t exclusive, const void* in, uint64_t n, void* scratch,
                       uint64_t scratch_bytes, void* out, ScanShape shape, uint32_t tag) {
  return scan_launch(stream, st, dtype, op, exclusive, in, n, scratch, scratch_bytes, out, shape,
                     nullptr, nullptr, tag);
}

// The sharded scan's steps (wavekit-dist, docs/SEMANTICS.md "dist_scan"), for types that scan
// in their own type (not the 16-bit floats, which the distributed collectives refuse): each
// tile's aggregate alone, and the scan from a prefix carried in from earlier tiles.
int device_scan_aggregates_launch(void* stream, wk_status* st, uint32_t dtype, uint32_t op,
                                  const void* in, uint64_t n, void* out) {
  if (dtype == DT_F16 || dtype == DT_BF16) return WK_ERR_DTYPE;
  return scan_launch(stream, st, dtype, op, 0, in, n, nullptr, 0, nullptr, ScanShape{}, nullptr,
                     out, 1);
}

int device_scan_carried_launch(void* stream, wk_status* st, uint32_t dtype, uint32_t op,
                               uint32_t exclusive, const void* in, uint64_t n,
                               const void* carry, void* scratch, uint64_t scratch_bytes,
                               void* out) {
  if (dtype == DT_F16 || dtype == DT_BF16) return WK_ERR_DTYPE;
  if (carry == nullptr) return WK_ERR_ARG;
  return scan_launch(stream, st, dtype, op, exclusive, in, n, scratch, scratch_bytes, out,
                     ScanShape{}, carry, nullptr, 1);
}

// aggs: device_scan_aggregates (no scratch, nothing stored but the aggregates); carry:
// device_scan_carried. tag: the statuses' (device_scan_tagged); 1 zeroes the scratch first.
static int scan_launch(void* stream, wk_status*, uint32_t dtype, uint32_t op,
                       uint32_t exclusive, const void* in, uint64_t n, void* scratch,
                       uint64_t scratch_bytes, void* out, ScanShape shape, const void* carry,
                       void* aggs, uint32_t tag) {
  uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  if (n == 0 || tiles > 0x7fffffffull || !tag_ok(tag)) return WK_ERR_ARG;
  return with_dtype_io(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type IO;
    typedef typename Elem<IO>::Acc T;
    if (!aggs && scratch_bytes < device_scan_scratch(sizeof(T), n)) return WK_ERR_SCRATCH;
    char* s = (char*)scratch;
    unsigned* counter = (unsigned*)s;
    typename StatusFor<T>::type status{};
    status.tag = tag;
    if (!aggs) {
      const uint64_t zeroed = status_layout<T>(s, tiles, &status);
      if (tag == 1) {
        int rc = host::memset_async(s, 0, zeroed, as_stream(stream));
        if (rc) return rc;
      }
    }
    return with_op<T>(op, [&](auto ot) {
      const int O = decltype(ot)::value;
      typedef typename StatusFor<T>::type S;
      host::stream_t hs = as_stream(stream);
      // shape: the bench's neighbours of the default (shapes.h). A macro, not a lambda: the
      // SIMT executor's launch names the kernel as a template argument.
#define WK_SCAN_LAUNCH(K, ...)                                                              \
  do {                                                                                      \
    const size_t dyn = ScanDynamic<T, K>::bytes;                                            \
    if (dyn) {                                                                              \
      const int rc = host::allow_dynamic_shared(__VA_ARGS__, dyn);                          \
      if (rc) return rc;                                                                    \
    }                                                                                       \
    WK_LAUNCH((unsigned)((tiles + (K)-1) / (K)), kThreads*(K), dyn, hs, __VA_ARGS__)(       \
        (const IO*)in, n, exclusive, counter, status, (IO*)out, (const T*)carry, (T*)aggs); \
  } while (0)
      // scan_pairs_kernel with BLOCKS blocks an SM, K tiles a block, tickets or not, L logical
      // threads a thread: each named once, for the kernel and its grid.
#define WK_PAIRS_LAUNCH(BLOCKS, K, TICKET, L)                                          \
  WK_LAUNCH((unsigned)((tiles + (K)-1) / (K)), kThreads / (L) * (K), 0, hs,            \
            scan_pairs_kernel<O, T, S, IO, BLOCKS, K, TICKET, L>)((const IO*)in, n,    \
                                                                  exclusive, counter, \
                                                                  status, (IO*)out)
      // Other ops than Sum get no variants (the bench times Sum), which keeps them out of the
      // build.
      // kSharedLoads, Sum of 4-byte types: the default with its loads through shared memory.
      // kNarrowStores, Sum of 4- and 8-byte types: the default with its stores 4 bytes a lane.
      typedef ScanOccupancy<T> D;
      // Four tiles a block: the default of large 4-byte Sum scans. kSharedLoads and kNarrowStores take the
      // default's shape on CUDA too, so that their ratios to it measure their load or store
      // path alone.
      [[maybe_unused]] const ScanShape::Kind kind = shape.kind;
      [[maybe_unused]] const unsigned at = shape.at.tiles * 16 + shape.at.blocks;
      constexpr bool kWideBuilt =
          kScanWideFromTiles != 0 && O == OP_SUM && sizeof(T) == 4 && sizeof(IO) == 4;
      const bool wide_default = kWideBuilt && tiles >= kScanWideFromTiles;
      if constexpr (O == OP_SUM && sizeof(IO) == 4) {
        if (kind == ScanShape::kSharedLoads) {
          if constexpr (kWideBuilt && kVendorCuda && sizeof(IO) == 4) {
            if (wide_default) {
              WK_SCAN_LAUNCH(4, scan_kernel<O, T, S, 2, 4, IO, false>);
              return host::launch_error();
            }
          }
          WK_SCAN_LAUNCH(D::tiles, scan_kernel<O, T, S, D::blocks, D::tiles, IO, false>);
          return host::launch_error();
        }
      }
      if constexpr (O == OP_SUM && sizeof(IO) != 2) {
        if (kind == ScanShape::kNarrowStores) {
          if constexpr (kWideBuilt && kVendorCuda && sizeof(IO) == 4) {
            if (wide_default) {
              WK_SCAN_LAUNCH(4, scan_kernel<O, T, S, 2, 4, IO, true, false>);
              return host::launch_error();
            }
          }
          WK_SCAN_LAUNCH(D::tiles, scan_kernel<O, T, S, D::blocks, D::tiles, IO, true, false>);
          return host::launch_error();
        }
      }
      if constexpr (kWideBuilt) {
        if ((kind == ScanShape::kDefault && wide_default) ||
            (kind == ScanShape::kOccupancy && at == 4 * 16 + 2)) {
          WK_SCAN_LAUNCH(4, scan_kernel<O, T, S, 2, 4, IO>);
          return host::launch_error();
        }
      }
      // The 16-bit floats: scan_pairs_kernel from kScanPairsFromTiles tiles, scan_kernel below
      // (and as kParkedTile, the bench's "tile parked in shared memory (before)" rows).
      if constexpr (sizeof(IO) == 2 && kVendorCuda && O == OP_SUM) {
        // The compiled kPairs shapes: without tickets, four or two tiles a block (two logical
        // threads a thread); four logical threads a thread (64 threads a tile), four tiles a
        // block five blocks an SM or three tiles six blocks: 20 or 18 tiles an SM in registers.
        if (kind == ScanShape::kPairs) {
          // tiles x 16 + blocks, then tickets and logical threads below it.
          const unsigned pairs = at * 32 + (shape.tickets ? 16 : 0) + shape.logical;
          switch (pairs) {
            case (4 * 16 + 4) * 32 + 2:
              WK_PAIRS_LAUNCH(4, 4, false, 2);
              return host::launch_error();
            case (2 * 16 + 8) * 32 + 2:
              WK_PAIRS_LAUNCH(8, 2, false, 2);
              return host::launch_error();
            case (4 * 16 + 5) * 32 + 16 + 4:
              WK_PAIRS_LAUNCH(5, 4, true, 4);
              return host::launch_error();
            case (3 * 16 + 6) * 32 + 16 + 4:
              WK_PAIRS_LAUNCH(6, 3, true, 4);
              return host::launch_error();
            default: break;
          }
        }
      }
      if constexpr (sizeof(IO) == 2) {
        if (kind != ScanShape::kParkedTile && tiles >= kScanPairsFromTiles) {
          WK_PAIRS_LAUNCH(PairShape::blocks, PairShape::tiles, true, PairShape::logical);
          return host::launch_error();
        }
      }
      if constexpr (O == OP_SUM && sizeof(IO) == sizeof(T)) {
        switch (kind == ScanShape::kOccupancy ? at : 0) {
          case 1 * 16 + 4: WK_SCAN_LAUNCH(1, scan_kernel<O, T, S, 4, 1>); break;
          case 1 * 16 + 5: WK_SCAN_LAUNCH(1, scan_kernel<O, T, S, 5, 1>); break;
          case 1 * 16 + 6: WK_SCAN_LAUNCH(1, scan_kernel<O, T, S, 6, 1>); break;
          case 1 * 16 + 7: WK_SCAN_LAUNCH(1, scan_kernel<O, T, S, 7, 1>); break;
          case 2 * 16 + 3:
          case 2 * 16 + 4:
            // Two tiles of 8-byte values pass the 48 KB of static shared memory.
            if constexpr (sizeof(T) == 4) {
              if (at == 2 * 16 + 3)
                WK_SCAN_LAUNCH(2, scan_kernel<O, T, S, 3, 2>);
              else
                WK_SCAN_LAUNCH(2, scan_kernel<O, T, S, 4, 2>);
              break;
            }
            [[fallthrough]];
          default: WK_SCAN_LAUNCH(ScanOccupancy<T>::tiles, scan_kernel<O, T, S>);
        }
      } else {
        WK_SCAN_LAUNCH(D::tiles, scan_kernel<O, T, S, D::blocks, D::tiles, IO>);
      }
#undef WK_SCAN_LAUNCH
#undef WK_PAIRS_LAUNCH
      return host::launch_error();
    });
  });
}

}  // namespace WK_NS
