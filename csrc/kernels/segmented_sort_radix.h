// segmented_sort's radix kernels (segmented_sort.cu launches them): one segment a block, its
// keys ranked a tile at a time by 8-bit digits from the lowest, as sort.cu's onesweep ranks a
// tile (ballots on the digit bits within each warp, the warps' counts added in order), but with
// no look-back: the block owns the whole segment, so it knows every digit's start itself.
//   segmented_sort_radix_kernel: a segment of at most one tile (kRadixTile keys) stays in
//     registers across the passes and goes through shared memory once a pass (CUB's
//     BlockRadixSort), instead of the bitonic network's ~78 barrier stages at 4096 keys.
//   segmented_sort_long_kernel: a longer segment ping-pongs through global memory, between
//     the output and a scratch copy at the same positions: one read for every pass's digit
//     counts, then per pass a read and a write of every key. Its work is its segment's keys,
//     so a few long segments cost what they hold, not what the whole input does.
// Stable at every step: a warp ranks its keys in index order, the warps of a tile and the tiles
// of a segment add the counts of the ones before them.
#pragma once

#include "sort.h"

namespace WK_NS {

// Keys a thread holds: a tile is kSortThreads x kRadixItems = 4096 keys, the block path's
// longest segment (segmented_sort.cu's kBlockSegItems).
const unsigned kRadixItems = 16;
const unsigned kRadixTile = kSortThreads * kRadixItems;
const unsigned kRadixWarps = kSortThreads / WK_WARP_SIZE;
static_assert(kSortThreads == kRadix, "rank_tile's thread d owns digit d");

// The wider of the key and the value (none: the key), so that one array stages both in turn.
template <typename U, typename V, bool WIDER_V> struct RadixStagedAs {
  typedef U type;
};
template <typename U, typename V> struct RadixStagedAs<U, V, true> {
  typedef V type;
};
template <typename U, typename V, bool VALS>
struct RadixStaged : RadixStagedAs<U, V, (VALS && sizeof(V) > sizeof(U))> {};

// The shared memory a tile's ranking works in: arrays of unsigned (P: the kernel's shared
// arrays, whatever type they have on the executor).
template <typename P> struct RankTileShared {
  P warp_counts;  // kRadixWarps x kRadix: each warp's count of a digit, then its start
  P digit_start;  // kRadix: where a digit's keys start in the tile
  P digit_count;  // kRadix: the tile's keys of a digit
  P warp_sums;    // kRadix / WK_WARP_SIZE: the digit scan's warp totals
};
template <typename P>
__device__ __forceinline__ RankTileShared<P> rank_tile_shared(P counts, P start, P count, P sums) {
  return RankTileShared<P>{counts, start, count, sums};
}

// Ranks the tile's keys by the digit `field` of their order bits: on return place[j] is key j's
// place in the tile in digit order (stable), and digit_start / digit_count hold the tile's
// digits. Key j of the thread is the warp's key j * WK_WARP_SIZE + lane, the warp's keys the
// tile's [warp * WK_WARP_SIZE * ITEMS, ...), `rest` of them live (0 to WK_WARP_SIZE * ITEMS).
// Every thread of the block calls it; it begins and ends with a barrier.
template <typename U, unsigned ITEMS, typename P>
__device__ __forceinline__ void rank_tile(const U (&k)[ITEMS], unsigned rest,
                                          const RankFlip<U>& flip, const DigitField& field,
                                          const RankTileShared<P>& sh, unsigned (&place)[ITEMS]) {
  const unsigned t = threadIdx.x, w = t / WK_WARP_SIZE, ln = prims::lane();
  for (unsigned i = t; i < kRadixWarps * kRadix; i += kSortThreads) sh.warp_counts[i] = 0;
  __syncthreads();
  const wk_lanemask_t below = arch::lanemask_lt();
  unsigned digit[ITEMS];
#pragma unroll
  for (unsigned j = 0; j < ITEMS; ++j) {
    digit[j] = field.of(flip.apply(k[j]));
    place[j] = 0;
    // Past the warp's last key the warp has nothing more to rank: warp-uniform.
    if (j * WK_WARP_SIZE >= rest) continue;
    const bool live = j * WK_WARP_SIZE + ln < rest;
    const wk_lanemask_t peers = digit_peers(digit[j], live);
    const unsigned leader = live ? (unsigned)arch::lowest_lane(peers) : ln;
    unsigned before = 0;
    if (live && ln == leader) {
      before = sh.warp_counts[w * kRadix + digit[j]];
      sh.warp_counts[w * kRadix + digit[j]] = before + (unsigned)arch::popc(peers);
    }
    before = prims::shfl_idx<unsigned>(WK_FULL_MASK, before, leader, WK_WARP_SIZE);
    place[j] = before + (unsigned)arch::popc(peers & below);
    prims::syncwarp(prims::NATIVE, WK_FULL_MASK);
  }
  __syncthreads();
  // Thread d owns digit d (kSortThreads == kRadix): the tile's count of it, the digits'
  // exclusive scan, and each warp's start within it.
  const unsigned d = t;
  unsigned total = 0;
  for (unsigned x = 0; x < kRadixWarps; ++x) total += sh.warp_counts[x * kRadix + d];
  const unsigned incl = prims::kogge_stone<OP_SUM, unsigned>(WK_FULL_MASK, total, WK_WARP_SIZE);
  if (ln == WK_WARP_SIZE - 1) sh.warp_sums[w] = incl;
  __syncthreads();
  unsigned run = incl - total;
  for (unsigned x = 0; x < w; ++x) run += sh.warp_sums[x];
  sh.digit_start[d] = run;
  sh.digit_count[d] = total;
  for (unsigned x = 0; x < kRadixWarps; ++x) {
    const unsigned c = sh.warp_counts[x * kRadix + d];
    sh.warp_counts[x * kRadix + d] = run;
    run += c;
  }
  __syncthreads();
#pragma unroll
  for (unsigned j = 0; j < ITEMS; ++j) place[j] += sh.warp_counts[w * kRadix + digit[j]];
  __syncthreads();
}

// The shared arrays of rank_tile, declared in the calling kernel.
#define WK_RANK_TILE_SHARED(sh)                                  \
  WK_SHARED(unsigned, sh##_warp_counts, kRadixWarps * kRadix);  \
  WK_SHARED(unsigned, sh##_digit_start, kRadix);                 \
  WK_SHARED(unsigned, sh##_digit_count, kRadix);                 \
  WK_SHARED(unsigned, sh##_warp_sums, kRadix / WK_WARP_SIZE);    \
  const auto sh =                                                \
      rank_tile_shared(sh##_warp_counts, sh##_digit_start, sh##_digit_count, sh##_warp_sums)

// The segments a kernel sorts: a list of segment numbers (a size class, segmented_sort.cu),
// or, with no list, all `count` of them in order.
struct SegList {
  const uint32_t* ids;
  const unsigned* listed;  // how many ids the list holds (device memory), with ids
  uint64_t count;
  __device__ __forceinline__ uint64_t size() const { return ids ? (uint64_t)*listed : count; }
  __device__ __forceinline__ uint64_t at(uint64_t i) const { return ids ? (uint64_t)ids[i] : i; }
};

// Segment s's first key and length.
__device__ __forceinline__ void segment_bounds(uint64_t s, uint64_t n, const uint32_t* offsets,
                                               uint64_t seg_size, uint64_t* start,
                                               uint64_t* len) {
  *start = offsets ? offsets[s] : s * seg_size;
  const uint64_t end =
      offsets ? offsets[s + 1] : (n - *start < seg_size ? n : *start + seg_size);
  *len = end - *start;
}

// Segments of at most kRadixTile keys, one a block at a time: the keys (and values) in
// registers, each pass staging them in shared memory at their ranked places and reading them
// back in the same layout, so that the next pass ranks them in their new order.
template <typename U, typename V, bool VALS>
__global__ void __launch_bounds__(kSortThreads)
    segmented_sort_radix_kernel(wk_status* st, uint32_t warp_size, const U* keys, const V* vals,
                                uint64_t n, const uint32_t* offsets, uint64_t seg_size,
                                SegList list, RankSpec r, U* keys_out, V* vals_out) {
  typedef typename RadixStaged<U, V, VALS>::type S;
  WK_SHARED(S, staged, kRadixTile);
  WK_RANK_TILE_SHARED(sh);
  if (!prims::width_ok(st, warp_size)) return;
  const unsigned ln = prims::lane(), w = threadIdx.x / WK_WARP_SIZE;
  const unsigned wbase = w * WK_WARP_SIZE * kRadixItems;
  const RankFlip<U> flip(r);
  const unsigned passes = pass_count(r);
  const uint64_t total = list.size();
  for (uint64_t i = blockIdx.x; i < total; i += gridDim.x) {  // block-uniform
    uint64_t start, len64;
    segment_bounds(list.at(i), n, offsets, seg_size, &start, &len64);
    const unsigned len = (unsigned)len64;  // at most kRadixTile
    const unsigned rest =
        len > wbase ? (len - wbase < WK_WARP_SIZE * kRadixItems ? len - wbase
                                                                : WK_WARP_SIZE * kRadixItems)
                    : 0;
    U k[kRadixItems];
    V v[kRadixItems];
#pragma unroll
    for (unsigned j = 0; j < kRadixItems; ++j) {
      const unsigned q = j * WK_WARP_SIZE + ln;
      k[j] = q < rest ? keys[start + wbase + q] : (U)0;
      if (VALS) v[j] = q < rest ? vals[start + wbase + q] : (V)0;
    }
    for (unsigned p = 0; p < passes; ++p) {
      unsigned place[kRadixItems];
      rank_tile<U, kRadixItems>(k, rest, flip, DigitField(p, r), sh, place);
#pragma unroll
      for (unsigned j = 0; j < kRadixItems; ++j)
        if (j * WK_WARP_SIZE + ln < rest) staged[place[j]] = (S)k[j];
      __syncthreads();
#pragma unroll
      for (unsigned j = 0; j < kRadixItems; ++j)
        if (j * WK_WARP_SIZE + ln < rest) k[j] = (U)staged[wbase + j * WK_WARP_SIZE + ln];
      if (VALS) {
        __syncthreads();
#pragma unroll
        for (unsigned j = 0; j < kRadixItems; ++j)
          if (j * WK_WARP_SIZE + ln < rest) staged[place[j]] = (S)v[j];
        __syncthreads();
#pragma unroll
        for (unsigned j = 0; j < kRadixItems; ++j)
          if (j * WK_WARP_SIZE + ln < rest) v[j] = (V)staged[wbase + j * WK_WARP_SIZE + ln];
      }
      // rank_tile's first barrier keeps the next pass's staging after these reads.
    }
#pragma unroll
    for (unsigned j = 0; j < kRadixItems; ++j) {
      const unsigned q = j * WK_WARP_SIZE + ln;
      if (q < rest) {
        keys_out[start + wbase + q] = k[j];
        if (VALS) vals_out[start + wbase + q] = v[j];
      }
    }
    __syncthreads();  // the next segment's staging after this one's last reads
  }
}

// Keys a thread holds in the long kernel: a tile of 8-byte keys or values at 16 a thread
// would take the shared memory of the segment's digit counts past the 48 KB a block declares.
template <typename S> struct LongItems {
  static const unsigned value = sizeof(S) > 4 ? kRadixItems / 2 : kRadixItems;
};

// Segments of any length, one a block at a time, each pass a stable scatter of the segment
// from one buffer to the other (pass 0 from the input; the last into the output: alt_keys and
// alt_vals are scratch copies indexed as the input). Every pass's digit counts come from one
// read of the input (a permutation keeps them); each tile adds its digit counts to the digits'
// running starts, so the tiles land in order.
template <typename U, typename V, bool VALS>
__global__ void __launch_bounds__(kSortThreads)
    segmented_sort_long_kernel(wk_status* st, uint32_t warp_size, const U* keys, const V* vals,
                               uint64_t n, const uint32_t* offsets, uint64_t seg_size,
                               SegList list, RankSpec r, U* alt_keys, V* alt_vals, U* keys_out,
                               V* vals_out) {
  typedef typename RadixStaged<U, V, VALS>::type S;
  const unsigned kItems = LongItems<S>::value;
  const unsigned kTile = kSortThreads * kItems;
  WK_SHARED(S, staged, kTile);
  WK_SHARED(unsigned, counts, kMaxPasses * kRadix);  // then each digit's running start
  WK_RANK_TILE_SHARED(sh);
  if (!prims::width_ok(st, warp_size)) return;
  const unsigned t = threadIdx.x, ln = prims::lane(), w = t / WK_WARP_SIZE;
  const unsigned wbase = w * WK_WARP_SIZE * kItems;
  const RankFlip<U> flip(r);
  const unsigned passes = pass_count(r);
  const uint64_t total = list.size();
  for (uint64_t i = blockIdx.x; i < total; i += gridDim.x) {  // block-uniform
    uint64_t start, len;
    segment_bounds(list.at(i), n, offsets, seg_size, &start, &len);
    for (unsigned x = t; x < passes * kRadix; x += kSortThreads) counts[x] = 0;
    __syncthreads();
    for (uint64_t q = t; q < len; q += kSortThreads) {
      const U o = flip.apply(keys[start + q]);
      for (unsigned p = 0; p < passes; ++p) atomicAdd(counts + p * kRadix + DigitField(p, r).of(o), 1u);
    }
    __syncthreads();
    for (unsigned p = 0; p < passes; ++p) {
      // Thread d: digit d's start in the segment, the exclusive scan of the pass's counts.
      const auto base = counts + p * kRadix;
      const unsigned c = base[t];
      const unsigned incl = prims::kogge_stone<OP_SUM, unsigned>(WK_FULL_MASK, c, WK_WARP_SIZE);
      if (ln == WK_WARP_SIZE - 1) sh.warp_sums[w] = incl;
      __syncthreads();
      unsigned run = incl - c;
      for (unsigned x = 0; x < w; ++x) run += sh.warp_sums[x];
      base[t] = run;  // rank_tile's first barrier orders this before the tile reads it
      const bool last_here = (passes - 1 - p) % 2 == 0;
      const U* src_k = p == 0 ? keys + start : (last_here ? alt_keys : keys_out) + start;
      U* dst_k = (last_here ? keys_out : alt_keys) + start;
      // No values: null pointers, never offset.
      const V* src_v = !VALS ? nullptr : p == 0 ? vals + start : (last_here ? alt_vals : vals_out) + start;
      V* dst_v = VALS ? (last_here ? vals_out : alt_vals) + start : nullptr;
      const DigitField field(p, r);
      for (uint64_t tb = 0; tb < len; tb += kTile) {  // block-uniform
        const uint64_t left = len - tb;
        const unsigned count = left < kTile ? (unsigned)left : kTile;
        const unsigned rest =
            count > wbase ? (count - wbase < WK_WARP_SIZE * kItems ? count - wbase
                                                                   : WK_WARP_SIZE * kItems)
                          : 0;
        U k[kItems];
#pragma unroll
        for (unsigned j = 0; j < kItems; ++j) {
          const unsigned q = j * WK_WARP_SIZE + ln;
          k[j] = q < rest ? src_k[tb + wbase + q] : (U)0;
        }
        unsigned place[kItems];
        rank_tile<U, kItems>(k, rest, flip, field, sh, place);
#pragma unroll
        for (unsigned j = 0; j < kItems; ++j)
          if (j * WK_WARP_SIZE + ln < rest) staged[place[j]] = (S)k[j];
        __syncthreads();
        // Place x of the staged tile goes to its digit's start plus its place among the
        // tile's keys of that digit; thread t writes places t, t + kSortThreads, ... (runs of
        // one digit are contiguous, so the writes coalesce), and keeps each digit for the
        // values.
        unsigned dig[kItems];
#pragma unroll
        for (unsigned j = 0; j < kItems; ++j) {
          const unsigned x = j * kSortThreads + t;
          dig[j] = 0;
          if (x < count) {
            const U key = (U)staged[x];
            dig[j] = field.of(flip.apply(key));
            dst_k[base[dig[j]] + x - sh.digit_start[dig[j]]] = key;
          }
        }
        if (VALS) {
          V v[kItems];
#pragma unroll
          for (unsigned j = 0; j < kItems; ++j) {
            const unsigned q = j * WK_WARP_SIZE + ln;
            v[j] = q < rest ? src_v[tb + wbase + q] : (V)0;
          }
          __syncthreads();
#pragma unroll
          for (unsigned j = 0; j < kItems; ++j)
            if (j * WK_WARP_SIZE + ln < rest) staged[place[j]] = (S)v[j];
          __syncthreads();
#pragma unroll
          for (unsigned j = 0; j < kItems; ++j) {
            const unsigned x = j * kSortThreads + t;
            if (x < count) dst_v[base[dig[j]] + x - sh.digit_start[dig[j]]] = (V)staged[x];
          }
        }
        __syncthreads();
        base[t] += sh.digit_count[t];
        // rank_tile's first barrier orders this before the next tile reads it, and the
        // staged reads above before the next tile's staging.
      }
      // Global writes of this pass are seen by the next pass's reads after this barrier.
      __syncthreads();
    }
  }
}

}  // namespace WK_NS
