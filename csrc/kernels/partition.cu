// partition: stable two- and three-way partition by predicates (docs/SEMANTICS.md "partition").
#include "device.h"

namespace WK_NS {
using namespace prims;

namespace {

const unsigned kThreads = 256;
const unsigned kItems = 8;
const unsigned kTile = kThreads * kItems;
const unsigned kWarps = kThreads / WK_WARP_SIZE;

// The predicates: `first`, and `second` when three-way (ways == 3).
template <typename T>
struct Preds {
  uint32_t p0, p1, ways;
  T a0, b0, a1, b1;
  // 0: `first` holds; 1: it does not and `second` (three-way) does; 2: the rest.
  __device__ __forceinline__ unsigned part(T x) const {
    if (eval_pred(p0, x, a0, b0)) return 0;
    if (ways == 3 && eval_pred(p1, x, a1, b1)) return 1;
    return 2;
  }
};

// Three launches, deterministic and without look-back. Tiles of 256 threads x 8 consecutive
// items. COUNT (SCATTER false): each tile's number of items in parts 0 and 1 into
// tile_counts[2 tile], [2 tile + 1]. Then partition_scan_kernel turns them into each tile's
// exclusive offsets in the two parts and writes the totals. SCATTER: each thread ranks its
// items in the tile (a block scan of per-thread counts) and writes each to its place: part 0
// at its rank, part 1 after all of part 0, part 2 (whose rank is its index less the items
// before it in parts 0 and 1) after parts 0 and 1.
template <typename T, bool SCATTER>
__global__ void __launch_bounds__(kThreads)
    partition_kernel(wk_status* st, uint32_t warp_size, Preds<T> preds, const T* in, uint64_t n,
                     uint64_t* tile_counts, const uint64_t* totals, T* out) {
  WK_SHARED(unsigned, warp_tot, 2 * kWarps);
  if (!width_ok(st, warp_size)) return;
  const unsigned t = threadIdx.x;
  const uint64_t tile = blockIdx.x;
  const uint64_t base = tile * kTile + (uint64_t)t * kItems;
  T x[kItems];
  unsigned parts = 0;  // two bits per item: its part, 3 past n
  unsigned c0 = 0, c1 = 0;
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) {
    unsigned p = 3;
    x[k] = T();
    if (base + k < n) {
      x[k] = in[base + k];
      p = preds.part(x[k]);
    }
    c0 += p == 0;
    c1 += p == 1;
    parts |= p << (2 * k);
  }
  const wk_lanemask_t mask = block_warp_lanes();
  const unsigned i0 = kogge_stone<OP_SUM, unsigned>(mask, c0, WK_WARP_SIZE);
  const unsigned i1 = kogge_stone<OP_SUM, unsigned>(mask, c1, WK_WARP_SIZE);
  const unsigned w = t / WK_WARP_SIZE;
  if (lane() == WK_WARP_SIZE - 1) {
    warp_tot[w] = i0;
    warp_tot[kWarps + w] = i1;
  }
  __syncthreads();
  unsigned r0 = i0 - c0, r1 = i1 - c1, tot0 = 0, tot1 = 0;
  for (unsigned i = 0; i < kWarps; ++i) {
    if (i < w) {
      r0 += warp_tot[i];
      r1 += warp_tot[kWarps + i];
    }
    tot0 += warp_tot[i];
    tot1 += warp_tot[kWarps + i];
  }
  if (!SCATTER) {
    if (t == 0) {
      tile_counts[2 * tile] = tot0;
      tile_counts[2 * tile + 1] = tot1;
    }
    return;
  }
  const uint64_t before0 = tile_counts[2 * tile], before1 = tile_counts[2 * tile + 1];
  uint64_t o0 = before0 + r0;
  uint64_t o1 = totals[0] + before1 + r1;
  uint64_t o2 = totals[0] + totals[1] + (tile * kTile - before0 - before1) +
                ((uint64_t)t * kItems - r0 - r1);
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) {
    const unsigned p = (parts >> (2 * k)) & 3u;
    if (p == 0) out[o0++] = x[k];
    else if (p == 1) out[o1++] = x[k];
    else if (p == 2) out[o2++] = x[k];
  }
}

// One block: each thread sums a contiguous range of tiles' counts, thread 0 scans the threads'
// sums in order (writing the totals and the caller's counts), then each thread replaces its
// tiles' counts by their exclusive offsets.
__global__ void __launch_bounds__(kThreads)
    partition_scan_kernel(wk_status* st, uint32_t warp_size, uint64_t tiles,
                          uint64_t* tile_counts, uint64_t* totals, uint64_t* counts,
                          uint32_t ways) {
  WK_SHARED(uint64_t, sums, 2 * kThreads);
  if (!width_ok(st, warp_size)) return;
  const unsigned t = threadIdx.x;
  const uint64_t per = (tiles + kThreads - 1) / kThreads;
  const uint64_t lo = t * per < tiles ? t * per : tiles;
  const uint64_t hi = lo + per < tiles ? lo + per : tiles;
  uint64_t s0 = 0, s1 = 0;
  for (uint64_t j = lo; j < hi; ++j) {
    s0 += tile_counts[2 * j];
    s1 += tile_counts[2 * j + 1];
  }
  sums[t] = s0;
  sums[kThreads + t] = s1;
  __syncthreads();
  if (t == 0) {
    uint64_t e0 = 0, e1 = 0;
    for (unsigned i = 0; i < kThreads; ++i) {
      const uint64_t a = sums[i], b = sums[kThreads + i];
      sums[i] = e0;
      sums[kThreads + i] = e1;
      e0 += a;
      e1 += b;
    }
    totals[0] = e0;
    totals[1] = e1;
    counts[0] = e0;
    if (ways == 3) counts[1] = e1;
  }
  __syncthreads();
  uint64_t e0 = sums[t], e1 = sums[kThreads + t];
  for (uint64_t j = lo; j < hi; ++j) {
    const uint64_t a = tile_counts[2 * j], b = tile_counts[2 * j + 1];
    tile_counts[2 * j] = e0;
    tile_counts[2 * j + 1] = e1;
    e0 += a;
    e1 += b;
  }
}

uint64_t tiles_of(uint64_t n) { return (n + kTile - 1) / kTile; }

}  // namespace

uint64_t partition_scratch(uint64_t n) {
  // The two totals, then two counts per tile.
  return 256 + round_up(2 * sizeof(uint64_t) * tiles_of(n));
}

int partition_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                     uint32_t ways, uint32_t pred, uint64_t a, uint64_t b, uint32_t pred2,
                     uint64_t a2, uint64_t b2, const void* in, uint64_t n, void* scratch,
                     uint64_t scratch_bytes, void* out, uint64_t* counts) {
  if (pred > 6 || (ways != 2 && ways != 3) || (ways == 3 && pred2 > 6) || !counts)
    return WK_ERR_ARG;
  host::stream_t hs = as_stream(stream);
  if (n == 0) return host::memset_async(counts, 0, (ways - 1) * sizeof(uint64_t), hs);
  const uint64_t tiles = tiles_of(n);
  if (tiles > 0x7fffffffull) return WK_ERR_ARG;
  if (!in || !out || !scratch) return WK_ERR_ARG;
  if (scratch_bytes < partition_scratch(n)) return WK_ERR_SCRATCH;
  uint64_t* totals = (uint64_t*)scratch;
  uint64_t* tile_counts = (uint64_t*)((char*)scratch + 256);
  return with_dtype(dtype, [&](auto tag) {
    typedef typename decltype(tag)::type T;
    Preds<T> p;
    p.p0 = pred;
    p.p1 = ways == 3 ? pred2 : 0;
    p.ways = ways;
    p.a0 = from_bits<T>((typename Elem<T>::U)a);
    p.b0 = from_bits<T>((typename Elem<T>::U)b);
    p.a1 = from_bits<T>((typename Elem<T>::U)a2);
    p.b1 = from_bits<T>((typename Elem<T>::U)b2);
    WK_LAUNCH((unsigned)tiles, kThreads, 0, hs, partition_kernel<T, false>)(
        st, warp_size, p, (const T*)in, n, tile_counts, (const uint64_t*)totals, (T*)out);
    int rc = host::launch_error();
    if (rc) return rc;
    WK_LAUNCH(1u, kThreads, 0, hs, partition_scan_kernel)(st, warp_size, tiles, tile_counts,
                                                           totals, counts, ways);
    rc = host::launch_error();
    if (rc) return rc;
    WK_LAUNCH((unsigned)tiles, kThreads, 0, hs, partition_kernel<T, true>)(
        st, warp_size, p, (const T*)in, n, tile_counts, (const uint64_t*)totals, (T*)out);
    return host::launch_error();
  });
}

}  // namespace WK_NS
