// sort: stable LSD radix sort of keys, pairs and argsort (docs/SEMANTICS.md "sort").
//
// A key's rank is its order bits (unsigned as is, signed with the sign bit flipped, floats
// flipped as SEMANTICS says), cut to bits [begin, end), complemented when descending. The
// rank is sorted in 8-bit digits from the lowest:
//   1. sort_histogram_kernel: one read of the keys counts every pass's digits (per portion of
//      at most kPortion keys); with several portions each pass counts its own digits instead,
//      over the keys as the pass before left them (each pass moves keys between portions);
//   2. sort_offsets_kernel: the digit-major scan of those counts: where each digit of each
//      portion starts in every pass;
//   3. per pass and portion, sort_onesweep_kernel: tiles in start order (a ticket); each warp
//      ranks its keys with ballots on the digit bits at the device's width (the warp-level
//      multi-split; or by a shared atomicOr word a digit, sort_tuning.h), the tile's digit
//      counts are chained to the tiles before it with a decoupled look-back per digit, and the
//      tile is staged in shared memory in digit order and written out in runs, its values
//      with it.
// Stable at every step: a warp ranks its keys in index order, warps and tiles add the counts
// of the ones before them, portions those of the portions before.
#include "sort.h"

namespace WK_NS {
using namespace prims;

namespace {

// Status word of one digit of one tile: flag in the top two bits, count below (< 2^30).
const unsigned kCountBits = 30;
const unsigned kFlagAggregate = 1u << kCountBits;
const unsigned kFlagInclusive = 2u << kCountBits;
const unsigned kCountMask = kFlagAggregate - 1;

// The histogram kernel: keys a thread loads at once (in flight together), and its most blocks,
// about what an H100 holds at once: each block adds its counts to the global ones once, so
// fewer, fuller blocks mean fewer global atomics on the same few addresses (4096 blocks of one
// key a thread each spent more time there than counting at 2^20 keys).
const unsigned kHistItems = 16;
const unsigned kHistMaxGrid = 1024;

template <typename U>
__global__ void __launch_bounds__(kSortThreads)
    sort_histogram_kernel(const U* keys, uint64_t n, RankSpec r, unsigned pass0,
                          unsigned passes, unsigned* counts) {
  WK_SHARED(unsigned, h, kMaxPasses * kRadix);
  const unsigned t = threadIdx.x;
  for (unsigned i = t; i < passes * kRadix; i += kSortThreads) h[i] = 0;
  __syncthreads();
  const uint64_t lo = (uint64_t)blockIdx.y * kPortion;
  const uint64_t hi = n - lo < kPortion ? n : lo + kPortion;
  const uint64_t round = (uint64_t)kSortThreads * kHistItems;
  const RankFlip<U> flip(r);
  for (uint64_t b = lo + (uint64_t)blockIdx.x * round; b < hi; b += (uint64_t)gridDim.x * round) {
    // Key j of the thread: b + j * kSortThreads + t, coalesced across the block.
    const unsigned live = hi - b < round ? (unsigned)(hi - b) : (unsigned)round;
    U ordered[kHistItems];
#pragma unroll
    for (unsigned j = 0; j < kHistItems; ++j)
      ordered[j] = j * kSortThreads + t < live ? flip.apply(keys[b + j * kSortThreads + t]) : (U)0;
    for (unsigned p = 0; p < passes; ++p) {
      const DigitField field(pass0 + p, r);
#pragma unroll
      for (unsigned j = 0; j < kHistItems; ++j)
        if (j * kSortThreads + t < live) atomicAdd(h + p * kRadix + field.of(ordered[j]), 1u);
    }
  }
  __syncthreads();
  unsigned* mine = counts + (uint64_t)blockIdx.y * passes * kRadix;
  for (unsigned i = t; i < passes * kRadix; i += kSortThreads) {
    const unsigned c = h[i];
    if (c) atomicAdd(mine + i, c);
  }
}

// One block of kRadix threads, thread d for digit d: offsets[p][q][d] = the keys of every
// smaller digit in pass p, then those of digit d in the portions before q.
__global__ void __launch_bounds__(kRadix)
    sort_offsets_kernel(const unsigned* counts, unsigned passes, unsigned portions,
                        unsigned long long* offsets) {
  WK_SHARED(uint64_t, warp_sums, kRadix / WK_WARP_SIZE);
  const unsigned d = threadIdx.x, ln = lane(), w = d / WK_WARP_SIZE;
  for (unsigned p = 0; p < passes; ++p) {
    uint64_t total = 0;
    for (unsigned q = 0; q < portions; ++q) total += counts[((uint64_t)q * passes + p) * kRadix + d];
    const uint64_t incl = kogge_stone<OP_SUM, uint64_t>(WK_FULL_MASK, total, WK_WARP_SIZE);
    if (ln == WK_WARP_SIZE - 1) warp_sums[w] = incl;
    __syncthreads();
    uint64_t run = incl - total;
    for (unsigned x = 0; x < w; ++x) run += warp_sums[x];
    for (unsigned q = 0; q < portions; ++q) {
      offsets[((uint64_t)p * portions + q) * kRadix + d] = run;
      run += counts[((uint64_t)q * passes + p) * kRadix + d];
    }
    __syncthreads();
  }
}

// The staged tile's element: the wider of key and value, so that one array stages both, one
// after the other (sort_tuning.h's shared-memory budget).
template <typename U, typename V, bool WIDER_V> struct StagedAs {
  typedef U type;
};
template <typename U, typename V> struct StagedAs<U, V, true> {
  typedef V type;
};
template <typename U, typename V, int VALS>
struct Staged : StagedAs<U, V, (VALS != 0 && sizeof(V) > sizeof(U))> {};

// One pass over one portion [lo, lo + len) of the keys, a tile of THREADS x ITEMS keys a
// block. VALS: 0 keys only, 1 values from vals_in, 2 the keys' indices (an argsort's first
// pass). The shape is sort_tuning.h's. FLOATS: the keys may be floats (RankFlip's float term).
template <typename U, typename V, int VALS, bool FLOATS, unsigned THREADS, unsigned ITEMS,
          unsigned MIN_BLOCKS>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    sort_onesweep_kernel(wk_status* st, uint32_t warp_size, const U* keys_in, U* keys_out,
                         const V* vals_in, V* vals_out, uint64_t lo, uint64_t len, RankSpec r,
                         unsigned pass, const unsigned long long* offsets, unsigned* ticket,
                         unsigned* status) {
  static_assert(THREADS >= kRadix && THREADS % 64 == 0, "whole warps at 32 and 64 lanes");
  typedef typename Staged<U, V, VALS>::type S;
  const unsigned kTile = THREADS * ITEMS;
  const unsigned kWarps = THREADS / WK_WARP_SIZE;
  const unsigned kDigitWarps = kRadix / WK_WARP_SIZE;
  WK_SHARED(unsigned, warp_counts, kWarps * kRadix);
  WK_SHARED(S, staged, kTile);
  // Where each digit's keys (and values) of this tile go, less their place in the staged tile:
  // one shared load and one multiply-add an element's address.
  WK_SHARED(U*, key_at, kRadix);
  WK_SHARED(V*, val_at, VALS ? kRadix : 1);
  WK_SHARED(unsigned, warp_sums, kDigitWarps);
  WK_SHARED_VAR(unsigned, s_tile);
  // A word a digit a warp where the lanes of a digit meet (sort_tuning.h), where it fits.
  constexpr unsigned kBytes = kWarps * kRadix * 4 + kTile * sizeof(S) + kRadix * sizeof(U*) +
                              (VALS ? kRadix * sizeof(V*) : sizeof(V*)) + kDigitWarps * 4 + 4;
  constexpr bool MATCH_OR = kOnesweepMatchOr && kBytes + kWarps * kRadix * sizeof(wk_lanemask_t) <=
                                                    kStaticShared;
  WK_SHARED(wk_lanemask_t, match, MATCH_OR ? kWarps * kRadix : 1);
  if (!width_ok(st, warp_size)) return;
  const unsigned t = threadIdx.x, w = t / WK_WARP_SIZE, ln = lane();
  if (t == 0) s_tile = atomicAdd(ticket, 1u);
  for (unsigned i = t; i < kWarps * kRadix; i += THREADS) {
    warp_counts[i] = 0;
    if (MATCH_OR) match[i] = 0;
  }
  __syncthreads();
  const uint64_t tile = s_tile;
  const uint64_t base = tile * kTile;
  const uint64_t wbase = base + (uint64_t)w * WK_WARP_SIZE * ITEMS;

  // Warp-striped: item j of lane l is key wbase + j * W + l, so ranking j by j, lane by lane,
  // is ranking in index order. Every load is issued before the first ballot; the values are
  // loaded only when the keys are out, so they hold no registers while the keys are ranked.
  // The warp's keys that exist: item j of lane l when j * W + l < rest (32-bit compares).
  const uint64_t left = len > wbase ? len - wbase : 0;
  const unsigned rest = left < WK_WARP_SIZE * ITEMS ? (unsigned)left : WK_WARP_SIZE * ITEMS;
  U k[ITEMS];
#pragma unroll
  for (unsigned j = 0; j < ITEMS; ++j)
    k[j] = j * WK_WARP_SIZE + ln < rest ? keys_in[lo + wbase + j * WK_WARP_SIZE + ln] : (U)0;
  // Each warp counts its own digits first (CUB's early counts): the warps' counts give the
  // tile's, published at once as its aggregates so that the tiles after it find them while
  // this one still ranks, and each warp's start in every digit before it ranks, so that a
  // key's rank is its place in the staged tile at once.
  // ad[j]: item j's place in the staged tile above kDigitBits, a digit below (at first its
  // own, at the end the one of the key it writes out): one register an item, not two.
  const RankFlip<U, FLOATS> flip(r);
  const DigitField field(pass, r);
  const unsigned mine = w * kRadix;  // this warp's counts in warp_counts
  unsigned ad[ITEMS];
#pragma unroll
  for (unsigned j = 0; j < ITEMS; ++j) {
    ad[j] = field.of(flip.apply(k[j]));
    if (j * WK_WARP_SIZE + ln < rest) atomicAdd(warp_counts + mine + ad[j], 1u);
  }
  __syncthreads();
  // Thread d < kRadix owns digit d from here to the look-back: the warps' counts become each
  // warp's exclusive start among the tile's digit-d keys.
  const unsigned d = t;
  unsigned total = 0, incl = 0;
  if (d < kRadix) {
    for (unsigned x = 0; x < kWarps; ++x) {
      const unsigned c = warp_counts[x * kRadix + d];
      warp_counts[x * kRadix + d] = total;
      total += c;
    }
    *(volatile unsigned*)(status + tile * kRadix + d) =
        (tile == 0 ? kFlagInclusive : kFlagAggregate) | total;
    incl = kogge_stone<OP_SUM, unsigned>(WK_FULL_MASK, total, WK_WARP_SIZE);
    if (ln == WK_WARP_SIZE - 1) warp_sums[w] = incl;
  }
  __syncthreads();
  // Where the tile's digit-d keys start: after those of every smaller digit.
  unsigned start = 0;
  if (d < kRadix) {
    start = incl - total;
    for (unsigned x = 0; x < w; ++x) start += warp_sums[x];
    for (unsigned x = 0; x < kWarps; ++x) warp_counts[x * kRadix + d] += start;
  }
  __syncthreads();

  // Each key's place in the tile (stable: warps in order, then lanes in order, items in
  // order), staged there at once. The group's leader takes the group's places from its warp's
  // count with one atomic; the shuffle after it orders the next item's atomic after this one
  // (its leader waits on the shuffle), so no warp barrier is needed between items.
  const wk_lanemask_t below = arch::lanemask_lt();
  const wk_lanemask_t me = (wk_lanemask_t)1 << ln;
  const bool full = rest == WK_WARP_SIZE * ITEMS;
#pragma unroll
  for (unsigned j = 0; j < ITEMS; ++j) {
    const bool live = full || j * WK_WARP_SIZE + ln < rest;
    const unsigned dj = ad[j];
    wk_lanemask_t peers;
    if constexpr (MATCH_OR) {
      // Each lane ORs its bit into its digit's word and reads back its digit's lanes; the
      // leader clears the word once every lane has read it, before the next item's ORs.
      if (live) atomicOr(match + mine + dj, me);
      syncwarp(NATIVE, WK_FULL_MASK);
      peers = live ? (wk_lanemask_t)match[mine + dj] : 0;
    } else {
      // A full warp (every tile but the last) needs no ballot for which lanes hold a key.
      peers = full ? digit_peers_among(dj, WK_FULL_MASK) : digit_peers(dj, live);
    }
    const unsigned leader = live ? (unsigned)arch::lowest_lane(peers) : ln;
    unsigned before = 0;
    if (live && ln == leader)
      before = atomicAdd(warp_counts + mine + dj, (unsigned)arch::popc(peers));
    // The leader's count before its group, to every lane of the group.
    before = shfl_idx<unsigned>(WK_FULL_MASK, before, leader, WK_WARP_SIZE);
    if constexpr (MATCH_OR) {
      syncwarp(NATIVE, WK_FULL_MASK);
      if (live && ln == leader) match[mine + dj] = 0;
      syncwarp(NATIVE, WK_FULL_MASK);
    }
    const unsigned place = before + (unsigned)arch::popc(peers & below);
    ad[j] |= place << kDigitBits;
    if (live) staged[place] = (S)k[j];
  }
  // Chain the digit's count to the tiles before, while the tile is staged: add their
  // aggregates back to the first inclusive prefix, publish this tile's.
  if (d < kRadix) {
    unsigned prefix = 0;
    if (tile != 0) {
      for (uint64_t p = tile - 1;; --p) {
        unsigned s;
        do {
          s = *(const volatile unsigned*)(status + p * kRadix + d);
        } while ((s & ~kCountMask) == 0);
        prefix += s & kCountMask;
        if (s & kFlagInclusive) break;
      }
      *(volatile unsigned*)(status + tile * kRadix + d) = kFlagInclusive | (prefix + total);
    }
    // Not below the output: the pass's keys of smaller digits are at least the tile's.
    const unsigned long long at = offsets[d] + prefix - start;
    key_at[d] = keys_out + at;
    if (VALS) val_at[d] = vals_out + at;
  }
  __syncthreads();

  // Position i of the staged tile is written by thread i % THREADS, for the keys and then the
  // values, which keeps its digit in ad's low bits between the two.
  const unsigned count = len - base < kTile ? (unsigned)(len - base) : kTile;
#pragma unroll
  for (unsigned j = 0; j < ITEMS; ++j) {
    const unsigned i = j * THREADS + t;
    if (i < count) {
      const U key = (U)staged[i];
      const unsigned digit = field.of(flip.apply(key));
      key_at[digit][i] = key;
      ad[j] = (ad[j] & ~(kRadix - 1)) | digit;
    }
  }
  if (VALS) {
    // The values through the same array, loaded as the keys were.
    V v[ITEMS];
#pragma unroll
    for (unsigned j = 0; j < ITEMS; ++j) {
      const uint64_t i = wbase + (uint64_t)j * WK_WARP_SIZE + ln;
      if (VALS == 1) v[j] = j * WK_WARP_SIZE + ln < rest ? vals_in[lo + i] : (V)0;
      if (VALS == 2) v[j] = (V)(lo + i);
    }
    __syncthreads();
#pragma unroll
    for (unsigned j = 0; j < ITEMS; ++j)
      if (j * WK_WARP_SIZE + ln < rest) staged[ad[j] >> kDigitBits] = (S)v[j];
    __syncthreads();
#pragma unroll
    for (unsigned j = 0; j < ITEMS; ++j) {
      const unsigned i = j * THREADS + t;
      if (i < count) val_at[ad[j] & (kRadix - 1)][i] = (V)staged[i];
    }
  }
}

// The tuned shape of a pass (sort_tuning.h), as template arguments.
template <typename U, typename V, int VALS> struct Tuned {
  static constexpr OnesweepShape shape = onesweep_shape(sizeof(U), VALS ? sizeof(V) : 0);
  static const unsigned threads = shape.threads;
  static const unsigned items = shape.items;
  static const unsigned min_blocks = shape.min_blocks;
};

template <typename U, typename V, int VALS, bool FLOATS, typename SH>
int onesweep(host::stream_t s, wk_status* st, uint32_t warp_size, const U* kin, U* kout,
             const V* vin, V* vout, uint64_t lo, uint64_t len, const RankSpec& r, unsigned pass,
             const unsigned long long* offsets, unsigned* ticket, unsigned* status) {
  const uint64_t tile = (uint64_t)SH::threads * SH::items;
  const uint64_t tiles = (len + tile - 1) / tile;
  int rc = host::memset_async(ticket, 0, kTicketBytes + tiles * kRadix * sizeof(unsigned), s);
  if (rc) return rc;
  WK_LAUNCH((unsigned)tiles, SH::threads, 0, s,
            sort_onesweep_kernel<U, V, VALS, FLOATS, SH::threads, SH::items, SH::min_blocks>)(
      st, warp_size, kin, kout, vin, vout, lo, len, r, pass, offsets, ticket, status);
  return host::launch_error();
}

// The pass with the key flip the keys need: integer keys leave RankFlip's float term out (2-byte
// keys are only ever floats). `a` is onesweep's arguments.
template <typename U, typename V, int VALS, typename SH, typename... A>
int onesweep_keys(const RankSpec& r, A... a) {
  if constexpr (sizeof(U) > 2)
    if (r.kind != KEY_FLOAT) return onesweep<U, V, VALS, false, SH>(a...);
  return onesweep<U, V, VALS, true, SH>(a...);
}

// Every pass over every portion, ping-ponging between the outputs and the scratch copies so
// that the last pass writes the outputs.
template <typename U, typename V, int VALS, typename SH = Tuned<U, V, VALS>>
int sort_typed(host::stream_t s, wk_status* st, uint32_t warp_size, const RankSpec& r,
               const U* keys, const V* vals, uint64_t n, U* keys_out, V* vals_out,
               const SortScratch& sc) {
  const unsigned passes = pass_count(r);
  const unsigned portions = (unsigned)((n + kPortion - 1) / kPortion);
  // Passes one histogram counts: all of them with one portion; with several, each pass its
  // own, over the keys as the pass before left them (a pass moves keys between portions).
  const unsigned per = portions > 1 ? 1u : passes;
  const uint64_t hist_round = (uint64_t)kSortThreads * kHistItems;
  const uint64_t hist_blocks = (n / portions + hist_round) / hist_round;
  const unsigned grid_x = hist_blocks < kHistMaxGrid ? (unsigned)hist_blocks : kHistMaxGrid;
  U* alt_k = (U*)sc.keys;
  V* alt_v = (V*)sc.vals;
  const U* src_k = keys;
  const V* src_v = vals;
  int rc = 0;
  for (unsigned p = 0; p < passes; ++p) {
    if (p % per == 0) {
      if ((rc = host::memset_async(sc.counts, 0, (uint64_t)portions * per * kRadix * sizeof(unsigned), s)))
        return rc;
      WK_LAUNCH(dim3(grid_x, portions), kSortThreads, 0, s, sort_histogram_kernel<U>)(
          src_k, n, r, p, per, sc.counts);
      if ((rc = host::launch_error())) return rc;
      WK_LAUNCH(1, kRadix, 0, s, sort_offsets_kernel)(sc.counts, per, portions,
                                                      sc.offsets + (uint64_t)p * portions * kRadix);
      if ((rc = host::launch_error())) return rc;
    }
    const bool last_here = (passes - 1 - p) % 2 == 0;
    U* dst_k = last_here ? keys_out : alt_k;
    V* dst_v = last_here ? vals_out : alt_v;
    for (unsigned q = 0; q < portions; ++q) {
      const uint64_t lo = (uint64_t)q * kPortion;
      const uint64_t len = n - lo < kPortion ? n - lo : kPortion;
      const unsigned long long* off = sc.offsets + ((uint64_t)p * portions + q) * kRadix;
      // Only the modes this sort takes are compiled (a keys-only sort has no value passes).
      if constexpr (VALS == 0)
        rc = onesweep_keys<U, V, 0, SH>(r, s, st, warp_size, src_k, dst_k, nullptr, nullptr, lo,
                                        len, r, p, off, sc.ticket, sc.status);
      else if (p == 0 && VALS == 2)
        rc = onesweep_keys<U, V, 2, SH>(r, s, st, warp_size, src_k, dst_k, nullptr, dst_v, lo,
                                        len, r, p, off, sc.ticket, sc.status);
      else
        rc = onesweep_keys<U, V, 1, SH>(r, s, st, warp_size, src_k, dst_k, src_v, dst_v, lo,
                                        len, r, p, off, sc.ticket, sc.status);
      if (rc) return rc;
    }
    src_k = dst_k;
    src_v = dst_v;
    alt_k = last_here ? (U*)sc.keys : keys_out;
    alt_v = last_here ? (V*)sc.vals : vals_out;
  }
  return 0;
}

template <typename U>
int sort_keys_sized(host::stream_t s, wk_status* st, uint32_t warp_size, const RankSpec& r,
                    uint32_t value_size, uint32_t values, const void* keys, const void* vals,
                    uint64_t n, void* keys_out, void* vals_out, const SortScratch& sc) {
  U* kout = keys_out ? (U*)keys_out : (U*)sc.keys2;
  if (value_size == 0)
    return sort_typed<U, uint32_t, 0>(s, st, warp_size, r, (const U*)keys, nullptr, n, kout,
                                      nullptr, sc);
  const int mode = values == WK_SORT_VALUES_INDICES ? 2 : 1;
  if (value_size == 2 && mode == 1)
    return sort_typed<U, uint16_t, 1>(s, st, warp_size, r, (const U*)keys, (const uint16_t*)vals,
                                      n, kout, (uint16_t*)vals_out, sc);
  if (value_size == 4)
    return mode == 2 ? sort_typed<U, uint32_t, 2>(s, st, warp_size, r, (const U*)keys, nullptr, n,
                                                  kout, (uint32_t*)vals_out, sc)
                     : sort_typed<U, uint32_t, 1>(s, st, warp_size, r, (const U*)keys,
                                                  (const uint32_t*)vals, n, kout,
                                                  (uint32_t*)vals_out, sc);
  if (value_size == 8 && mode == 1)
    return sort_typed<U, uint64_t, 1>(s, st, warp_size, r, (const U*)keys, (const uint64_t*)vals,
                                      n, kout, (uint64_t*)vals_out, sc);
  return WK_ERR_ARG;
}

template <typename T>
__global__ void __launch_bounds__(kSortThreads)
    gather_kernel(const T* src, const uint32_t* idx, uint64_t n, T* dst) {
  const uint64_t i = (uint64_t)blockIdx.x * kSortThreads + threadIdx.x;
  if (i < n) dst[i] = idx ? src[idx[i]] : src[i];
}

template <typename T>
int gather(host::stream_t s, const void* src, const uint32_t* idx, uint64_t n, void* dst) {
  unsigned grid;
  if (!grid_for(n, kSortThreads, &grid)) return WK_ERR_ARG;
  WK_LAUNCH(grid, kSortThreads, 0, s, gather_kernel<T>)((const T*)src, idx, n, (T*)dst);
  return host::launch_error();
}

}  // namespace

int gather_by_index(host::stream_t s, uint32_t size, const void* src, const uint32_t* idx,
                    uint64_t n, void* dst) {
  if (size == 2) return gather<uint16_t>(s, src, idx, n, dst);
  if (size == 4) return gather<uint32_t>(s, src, idx, n, dst);
  if (size == 8) return gather<uint64_t>(s, src, idx, n, dst);
  return WK_ERR_ARG;
}

uint64_t sort_scratch_bytes(uint32_t algo, uint32_t key_size, uint32_t value_size, uint64_t n) {
  if (n == 0 || (key_size != 2 && key_size != 4 && key_size != 8)) return 0;
  const uint64_t index_sort = SortScratch::layout(nullptr, key_size, 4, n, kMaxPasses).total;
  switch (algo) {
    case WK_ALGO_SORT:
      return SortScratch::layout(nullptr, key_size, value_size, n, kMaxPasses, false).total;
    case WK_ALGO_ARGSORT: return index_sort;
    case WK_ALGO_SEGMENTED_SORT: return segmented_sort_scratch(key_size, value_size, n);
    case WK_ALGO_MERGE_RUNS: return merge_runs_scratch(key_size, value_size, n);
    case WK_ALGO_TOP_K: {
      // The sorted keys and positions kept apart (top_k.cu), then the pairs sort's own.
      const uint64_t whole = round_up(n * key_size) + round_up(n * 4) +
                             SortScratch::layout(nullptr, key_size, 4, n, kMaxPasses, false).total;
      const uint64_t select = top_k_select_scratch(key_size, n);
      return whole > select ? whole : select;
    }
    default: return 0;
  }
}

int sort_run(void* stream, wk_status* st, uint32_t warp_size, uint32_t key_dtype,
             uint32_t value_size, uint32_t values, const void* keys, const void* vals, uint64_t n,
             uint32_t begin_bit, uint32_t end_bit, uint32_t descending, void* scratch,
             uint64_t scratch_bytes, void* keys_out, void* vals_out) {
  RankSpec r;
  const uint32_t key_size = key_size_of(key_dtype);
  if (!key_size || !rank_spec(key_dtype, begin_bit, end_bit, descending, &r)) return WK_ERR_ARG;
  if (n == 0 || (value_size != 0 && value_size != 2 && value_size != 4 && value_size != 8))
    return WK_ERR_ARG;
  if (value_size != 0 && (values == WK_SORT_VALUES_INDICES) != (vals == nullptr)) return WK_ERR_ARG;
  if (values == WK_SORT_VALUES_INDICES && (value_size != 4 || n > kIndexLimit)) return WK_ERR_ARG;
  if (value_size != 0 && vals_out == nullptr) return WK_ERR_ARG;
  const SortScratch sc =
      SortScratch::layout(scratch, key_size, value_size, n, kMaxPasses, keys_out == nullptr);
  if (scratch_bytes < sc.total) return WK_ERR_SCRATCH;
  host::stream_t s = as_stream(stream);
  if (key_size == 2)
    return sort_keys_sized<uint16_t>(s, st, warp_size, r, value_size, values, keys, vals, n,
                                     keys_out, vals_out, sc);
  if (key_size == 4)
    return sort_keys_sized<uint32_t>(s, st, warp_size, r, value_size, values, keys, vals, n,
                                     keys_out, vals_out, sc);
  return sort_keys_sized<uint64_t>(s, st, warp_size, r, value_size, values, keys, vals, n,
                                   keys_out, vals_out, sc);
}

int sort_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t key_dtype,
                uint32_t value_size, uint32_t values, const void* keys, const void* vals,
                uint64_t n, uint32_t begin_bit, uint32_t end_bit, uint32_t descending,
                void* scratch, uint64_t scratch_bytes, void* keys_out, void* vals_out) {
  return sort_run(stream, st, warp_size, key_dtype, value_size, values, keys, vals, n, begin_bit,
                  end_bit, descending, scratch, scratch_bytes, keys_out, vals_out);
}

}  // namespace WK_NS
