// segmented_sort: every segment sorted on its own (docs/SEMANTICS.md "segmented_sort").
//
// Segments go by their length, each to the path that sorts it cheapest (CUB's partition of
// segments into small, medium and large ones, with more classes):
//   - up to kThreadSegItems (8) keys: one a thread, its (rank, position) pairs in registers
//     ordered by a sorting network (the pairs are distinct: the stable order);
//   - up to the warp's width: in registers, as many a warp as fit in groups of the length's
//     power of two; every lane holds one (rank, position) pair and a bitonic network of
//     shuffles within the group orders them;
//   - up to kBitonicItems keys: one a block, a bitonic network over the (rank, position) pairs
//     in shared memory, then a gather;
//   - up to kBlockSegItems keys: one a block, a radix sort in registers (segmented_sort_radix.h);
//   - longer: one a block, a radix sort through global memory (segmented_sort_radix.h), whose
//     work is the segment's own keys.
// Fixed segments are all of one class; with offsets, a classification kernel lists each
// class's segments (segment_classes_kernel) and each class's kernel runs over its list, so a
// power-law input's many short segments take the warp and block kernels though a few are long.
// A segment too long for one block to sort in good time (past kDevicePathFloor and a share of
// the keys) sends the whole input to the device-wide path instead: the positions sorted
// by key (an argsort: stable), then stably by their segment (a sort of the segment numbers
// carrying the positions), which leaves every segment's positions in key order; the keys and
// values are then gathered from them.
#include "segmented_sort_radix.h"

namespace WK_NS {
using namespace prims;

namespace {

const unsigned kSegWarps = kSortThreads / WK_WARP_SIZE;

template <typename U>
__device__ __forceinline__ bool pair_less(U ra, unsigned pa, U rb, unsigned pb) {
  return ra < rb || (ra == rb && pa < pb);
}

// Segments of at most `group` keys (a power of two up to WK_WARP_SIZE), WK_WARP_SIZE / group
// of them a warp, one lane a key. Short segments fill the warp instead of leaving most of its
// lanes idle, and their network has fewer stages. The warps stride over the list.
template <typename U, typename V, bool VALS>
__global__ void __launch_bounds__(kSortThreads)
    segmented_sort_warp_kernel(wk_status* st, uint32_t warp_size, const U* keys, const V* vals,
                               uint64_t n, const uint32_t* offsets, uint64_t seg_size,
                               SegList list, unsigned group, RankSpec r, U* keys_out,
                               V* vals_out) {
  if (!width_ok(st, warp_size)) return;
  const unsigned ln = lane(), per_warp = WK_WARP_SIZE / group, q = ln % group;
  const uint64_t total = list.size();
  const uint64_t warps = (uint64_t)gridDim.x * kSegWarps;
  // Warp-uniform: a warp leaves only when it has no segment of its own.
  for (uint64_t wi = (uint64_t)blockIdx.x * kSegWarps + threadIdx.x / WK_WARP_SIZE;
       wi * per_warp < total; wi += warps) {
    const uint64_t idx = wi * per_warp + ln / group;
    // Lanes of a segment past the last one, or past their segment's end, hold the largest
    // pair, so they sort to the end. A 16-bit key's rank travels in a 32-bit word (the
    // shuffles move 32 and 64 bits); the sentinel is then above every rank.
    typedef typename ShflWord<U>::type R;
    R rank = (R)~(R)0;
    unsigned pos = ~0u;
    uint64_t start = 0, len = 0;
    if (idx < total) segment_bounds(list.at(idx), n, offsets, seg_size, &start, &len);
    if (q < len) {
      rank = (R)rank_of<U>(keys[start + q], r);
      pos = q;
    }
    for (unsigned size = 2; size <= group; size <<= 1) {
      for (unsigned stride = size >> 1; stride > 0; stride >>= 1) {
        // The partner lane by index, not by xor: a network's strides restart at every size,
        // which the executor would read as a shuffle-xor tree that starts too low.
        const R other_rank = shfl_idx<R>(WK_FULL_MASK, rank, ln ^ stride, WK_WARP_SIZE);
        const unsigned other_pos =
            shfl_idx<unsigned>(WK_FULL_MASK, pos, ln ^ stride, WK_WARP_SIZE);
        // The last merge of every group is ascending.
        const bool ascending = (q & size) == 0;
        const bool lower = (ln & stride) == 0;
        const bool other_less = pair_less(other_rank, other_pos, rank, pos);
        // The lower lane of an ascending pair keeps the smaller; the other roles follow.
        if (other_less == (lower == ascending)) {
          rank = other_rank;
          pos = other_pos;
        }
      }
    }
    if (q < len) {
      keys_out[start + q] = keys[start + pos];
      if (VALS) vals_out[start + q] = vals[start + pos];
    }
  }
}

// Segments of at most kThreadSegItems keys, one a thread: its (rank, position) pairs in
// registers, padded with pairs above every real one, ordered by Batcher's odd-even merge
// network of 8 (19 compare-exchanges, no shuffles: the warp kernel spent two shuffles a
// compare-exchange a key and was compute-bound, ncu 2026-11-25), then gathered by position.
const unsigned kThreadSegItems = 8;

template <typename U>
__device__ __forceinline__ void pair_order(U (&rk)[kThreadSegItems],
                                           unsigned (&ps)[kThreadSegItems], unsigned a,
                                           unsigned b) {
  if (pair_less(rk[b], ps[b], rk[a], ps[a])) {
    const U r = rk[a];
    const unsigned p = ps[a];
    rk[a] = rk[b];
    ps[a] = ps[b];
    rk[b] = r;
    ps[b] = p;
  }
}

// A thread's segment of `len` keys (key_at(q) the q-th) in registers as (rank, position) pairs,
// padded past len with pairs above every real one (the largest rank, a later position), ordered
// by the network: rk[q] and ps[q] the q-th.
template <typename U, typename KeyAt>
__device__ __forceinline__ void order_thread_pairs(U (&rk)[kThreadSegItems],
                                                   unsigned (&ps)[kThreadSegItems], uint64_t len,
                                                   const RankSpec& r, KeyAt&& key_at) {
#pragma unroll
  for (unsigned q = 0; q < kThreadSegItems; ++q) {
    rk[q] = q < len ? rank_of<U>(key_at(q), r) : (U)~(U)0;
    ps[q] = q;
  }
  const unsigned net[19][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6},
                               {5, 7}, {1, 2}, {5, 6}, {0, 4}, {1, 5}, {2, 6}, {3, 7},
                               {2, 4}, {3, 5}, {1, 2}, {3, 4}, {5, 6}};
#pragma unroll
  for (unsigned e = 0; e < 19; ++e) pair_order(rk, ps, net[e][0], net[e][1]);
}

// A block's keys (and values) when its segments lie side by side (no list): they come in and
// go out coalesced through shared memory, a word of padding every kThreadSegItems so that
// threads reading their own segments of 8 hit distinct banks. Read straight from global memory,
// each thread's keys a segment apart, the loads and stores of segments of 8 touched 32 sectors
// a warp instruction (2^28 keys: 2.8 ms, 0.57x CUB, H100 2026-12-07).
const unsigned kThreadStage = kSortThreads * kThreadSegItems;
const unsigned kThreadStagePadded = kThreadStage + kThreadStage / kThreadSegItems;
__device__ __forceinline__ unsigned staged_at(uint64_t i) {
  return (unsigned)(i + i / kThreadSegItems);
}

template <typename U, typename V, bool VALS>
__global__ void __launch_bounds__(kSortThreads)
    segmented_sort_thread_kernel(const U* keys, const V* vals, uint64_t n,
                                 const uint32_t* offsets, uint64_t seg_size, SegList list,
                                 RankSpec r, U* keys_out, V* vals_out) {
  WK_SHARED(U, sk, kThreadStagePadded);
  WK_SHARED(V, sv, VALS ? kThreadStagePadded : 1);
  const uint64_t total = list.size();
  const unsigned t = threadIdx.x;
  // Block-uniform: every thread of a block takes the same segments and the same path.
  for (uint64_t first = (uint64_t)blockIdx.x * kSortThreads; first < total;
       first += (uint64_t)gridDim.x * kSortThreads) {
    const uint64_t idx = first + t;
    uint64_t start = 0, len = 0;
    if (idx < total) segment_bounds(list.at(idx), n, offsets, seg_size, &start, &len);
    uint64_t lo = 0, span = 0;
    if (!list.ids) {
      const uint64_t end = total - first < kSortThreads ? total : first + kSortThreads;
      uint64_t s0, l0, s1, l1;
      segment_bounds(first, n, offsets, seg_size, &s0, &l0);
      segment_bounds(end - 1, n, offsets, seg_size, &s1, &l1);
      lo = s0;
      span = s1 + l1 - s0;
    }
    U rk[kThreadSegItems];
    unsigned ps[kThreadSegItems];
    if (span && span <= kThreadStage) {
      for (unsigned i = t; i < span; i += kSortThreads) {
        sk[staged_at(i)] = keys[lo + i];
        if (VALS) sv[staged_at(i)] = vals[lo + i];
      }
      __syncthreads();
      const uint64_t rel = start - lo;
      order_thread_pairs(rk, ps, len, r, [&](unsigned q) { return (U)sk[staged_at(rel + q)]; });
      U kk[kThreadSegItems];
      V vv[kThreadSegItems];
#pragma unroll
      for (unsigned q = 0; q < kThreadSegItems; ++q)
        if (q < len) {
          kk[q] = sk[staged_at(rel + ps[q])];
          if (VALS) vv[q] = sv[staged_at(rel + ps[q])];
        }
      __syncthreads();  // every segment's keys read before any is overwritten
#pragma unroll
      for (unsigned q = 0; q < kThreadSegItems; ++q)
        if (q < len) {
          sk[staged_at(rel + q)] = kk[q];
          if (VALS) sv[staged_at(rel + q)] = vv[q];
        }
      __syncthreads();
      for (unsigned i = t; i < span; i += kSortThreads) {
        keys_out[lo + i] = sk[staged_at(i)];
        if (VALS) vals_out[lo + i] = sv[staged_at(i)];
      }
      __syncthreads();  // the stores read the stage before the next segments' loads
      continue;
    }
    if (idx >= total) continue;
    order_thread_pairs(rk, ps, len, r, [&](unsigned q) { return keys[start + q]; });
#pragma unroll
    for (unsigned q = 0; q < kThreadSegItems; ++q)
      if (q < len) {
        keys_out[start + q] = keys[start + ps[q]];
        if (VALS) vals_out[start + q] = vals[start + ps[q]];
      }
  }
}

// The longest segment the block paths sort: one radix tile. Past kBitonicItems the radix sort
// in registers is the faster (the bitonic network's barrier stages grow as log^2 of the
// length, and at 4096 keys it had ~78); below it a segment leaves most of the radix tile's
// warps idle while one warp ranks its keys, and the network's few stages win.
const unsigned kBlockSegItems = kRadixTile;
const unsigned kBitonicItems = 1024;

// One segment a block at a time: its keys' ranks and positions in shared memory, padded to the
// segment's power of two with pairs above every real one (the largest rank, positions from
// the length on), ordered by a bitonic network, then gathered by position.
template <typename U, typename V, bool VALS>
__global__ void __launch_bounds__(kSortThreads)
    segmented_sort_bitonic_kernel(const U* keys, const V* vals, uint64_t n,
                                  const uint32_t* offsets, uint64_t seg_size, SegList list,
                                  RankSpec r, U* keys_out, V* vals_out) {
  WK_SHARED(U, ranks, kBitonicItems);
  WK_SHARED(uint16_t, places, kBitonicItems);
  const uint64_t total = list.size();
  for (uint64_t i = blockIdx.x; i < total; i += gridDim.x) {  // block-uniform
    uint64_t start, len64;
    segment_bounds(list.at(i), n, offsets, seg_size, &start, &len64);
    const unsigned len = (unsigned)len64;
    if (len < 2) {  // the whole block: nothing to order
      if (len == 1 && threadIdx.x == 0) {
        keys_out[start] = keys[start];
        if (VALS) vals_out[start] = vals[start];
      }
      continue;
    }
    unsigned size = 2;
    while (size < len) size <<= 1;
    for (unsigned q = threadIdx.x; q < size; q += kSortThreads) {
      ranks[q] = q < len ? rank_of<U>(keys[start + q], r) : (U)~(U)0;
      places[q] = (uint16_t)q;
    }
    __syncthreads();
    for (unsigned k = 2; k <= size; k <<= 1) {
      for (unsigned stride = k >> 1; stride > 0; stride >>= 1) {
        for (unsigned h = threadIdx.x; h < size / 2; h += kSortThreads) {
          const unsigned lo = 2 * stride * (h / stride) + h % stride, hi = lo + stride;
          const U rl = ranks[lo], rh = ranks[hi];
          const unsigned pl = places[lo], ph = places[hi];
          // Ascending where the lower index's k bit is clear: the last merge (k = size) is.
          const bool ascending = (lo & k) == 0;
          if (pair_less(rh, ph, rl, pl) == ascending) {
            ranks[lo] = rh;
            ranks[hi] = rl;
            places[lo] = (uint16_t)ph;
            places[hi] = (uint16_t)pl;
          }
        }
        __syncthreads();
      }
    }
    for (unsigned q = threadIdx.x; q < len; q += kSortThreads) {
      const unsigned p = places[q];
      keys_out[start + q] = keys[start + p];
      if (VALS) vals_out[start + q] = vals[start + p];
    }
    __syncthreads();  // the next segment's ranks after this one's gather
  }
}

// The size classes: warp classes 0 .. kWarpClasses - 1 (groups 2, 4, ..., the widest warp's;
// at a narrower width the last are empty), then the block paths'.
const unsigned kWarpClasses = 6;
// The first warp classes, segments of up to kThreadSegItems keys, go one a thread instead.
const unsigned kThreadClasses = 3;
static_assert((2u << (kThreadClasses - 1)) == kThreadSegItems, "thread classes: up to 8 keys");
const unsigned kClassBitonic = kWarpClasses;
const unsigned kClassRadix = kWarpClasses + 1;
const unsigned kClassLong = kWarpClasses + 2;
const unsigned kClasses = kWarpClasses + 3;
static_assert((1u << kWarpClasses) >= WK_WARP_SIZE, "a warp class for every group");

__device__ __forceinline__ unsigned class_of(uint64_t len) {
  if (len <= WK_WARP_SIZE) {
    unsigned c = 0;
    while ((2ull << c) < len) ++c;
    return c;  // 1 and 2 keys: 0 (groups of 2); 3 and 4: 1; ...
  }
  return len <= kBitonicItems ? kClassBitonic : len <= kBlockSegItems ? kClassRadix : kClassLong;
}

// The fewest keys a segment of class c holds: the most segments its list takes is n / that,
// as the segments do not overlap. Width-independent, so that the scratch is: the bitonic
// class starts past the narrowest warp, half the widest's groups.
inline uint64_t class_shortest(unsigned c) {
  if (c == 0) return 1;
  if (c < kWarpClasses) return (1ull << c) + 1;
  if (c == kClassBitonic) return (1ull << (kWarpClasses - 1)) + 1;
  return c == kClassRadix ? kBitonicItems + 1 : (uint64_t)kBlockSegItems + 1;
}

struct ClassBases {
  uint64_t at[kClasses];  // where each class's list starts in the lists
};

// The classified path's scratch: each class's count, the lists of segment numbers, and the
// long kernel's second copy of the keys and values (at the input's positions).
struct SegScratch {
  unsigned* listed;
  uint32_t* lists;
  char* keys;
  char* vals;
  ClassBases bases;
  uint64_t total;

  static SegScratch layout(void* base, uint32_t key_size, uint32_t value_size, uint64_t n) {
    SegScratch s;
    char* b = (char*)base;
    uint64_t at = 0;
    auto take = [&](uint64_t bytes) {
      char* p = b ? b + at : nullptr;
      at += round_up(bytes);
      return p;
    };
    s.listed = (unsigned*)take(kClasses * sizeof(unsigned));
    uint64_t ids = 0;
    for (unsigned c = 0; c < kClasses; ++c) {
      s.bases.at[c] = ids;
      ids += n / class_shortest(c);
    }
    s.lists = (uint32_t*)take(ids * sizeof(uint32_t));
    s.keys = take(n * key_size);
    s.vals = take(n * value_size);
    s.total = at;
    return s;
  }
};

// Each non-empty segment's number into its class's list (in no particular order: every
// segment is sorted on its own, so the order of the list changes no result). A block counts
// its segments of each class in shared memory and takes their slots with one atomic a class.
__global__ void __launch_bounds__(kSortThreads)
    segment_classes_kernel(const uint32_t* offsets, uint64_t count, ClassBases bases,
                           uint32_t* lists, unsigned* listed) {
  WK_SHARED(unsigned, taken, kClasses);  // the block's count of a class, then its first slot
  const unsigned t = threadIdx.x;
  if (t < kClasses) taken[t] = 0;
  __syncthreads();
  const uint64_t s = (uint64_t)blockIdx.x * kSortThreads + t;
  unsigned c = kClasses, mine = 0;
  if (s < count) {
    const uint64_t len = offsets[s + 1] - offsets[s];
    if (len) {
      c = class_of(len);
      mine = atomicAdd(taken + c, 1u);
    }
  }
  __syncthreads();
  if (t < kClasses && taken[t]) taken[t] = atomicAdd(listed + t, taken[t]);
  __syncthreads();
  if (c < kClasses) lists[bases.at[c] + taken[c] + mine] = (uint32_t)s;
}

// seg_of[i] = the segment holding position idx[i].
__global__ void __launch_bounds__(kSortThreads)
    segment_of_kernel(const uint32_t* idx, uint64_t n, const uint32_t* offsets, uint64_t seg_size,
                      uint64_t count, uint32_t* seg_of) {
  const uint64_t i = (uint64_t)blockIdx.x * kSortThreads + threadIdx.x;
  if (i >= n) return;
  const uint64_t p = idx[i];
  if (!offsets) {
    seg_of[i] = (uint32_t)(p / seg_size);
    return;
  }
  // The last segment whose start is at or before p: empty segments before it share its start.
  uint64_t lo = 0, hi = count;  // offsets[lo] <= p < offsets[hi]
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (offsets[mid] <= p)
      lo = mid;
    else
      hi = mid;
  }
  seg_of[i] = (uint32_t)lo;
}

// What every launch of a call shares.
struct SegJob {
  host::stream_t s;
  wk_status* st;
  uint32_t warp_size;
  RankSpec r;
  const void* keys;
  const void* vals;
  uint64_t n;
  const uint32_t* offsets;
  uint64_t seg_size;
  void* keys_out;
  void* vals_out;
  void* alt_keys;  // the long kernel's scratch copies
  void* alt_vals;
};

// The kernel of class c (a thread class: one segment a thread; a warp class: the warp kernel
// with groups of 2^(c + 1)) over `list`.
template <typename U, typename V, bool VALS>
int launch_class(const SegJob& j, unsigned c, const SegList& list, unsigned grid) {
  const U* keys = (const U*)j.keys;
  const V* vals = VALS ? (const V*)j.vals : nullptr;
  U* kout = (U*)j.keys_out;
  V* vout = VALS ? (V*)j.vals_out : nullptr;
  if (c < kThreadClasses)
    WK_LAUNCH(grid, kSortThreads, 0, j.s, segmented_sort_thread_kernel<U, V, VALS>)(
        keys, vals, j.n, j.offsets, j.seg_size, list, j.r, kout, vout);
  else if (c < kWarpClasses)
    WK_LAUNCH(grid, kSortThreads, 0, j.s, segmented_sort_warp_kernel<U, V, VALS>)(
        j.st, j.warp_size, keys, vals, j.n, j.offsets, j.seg_size, list, 2u << c, j.r, kout,
        vout);
  else if (c == kClassBitonic)
    WK_LAUNCH(grid, kSortThreads, 0, j.s, segmented_sort_bitonic_kernel<U, V, VALS>)(
        keys, vals, j.n, j.offsets, j.seg_size, list, j.r, kout, vout);
  else if (c == kClassRadix)
    WK_LAUNCH(grid, kSortThreads, 0, j.s, segmented_sort_radix_kernel<U, V, VALS>)(
        j.st, j.warp_size, keys, vals, j.n, j.offsets, j.seg_size, list, j.r, kout, vout);
  else
    WK_LAUNCH(grid, kSortThreads, 0, j.s, segmented_sort_long_kernel<U, V, VALS>)(
        j.st, j.warp_size, keys, vals, j.n, j.offsets, j.seg_size, list, j.r, (U*)j.alt_keys,
        VALS ? (V*)j.alt_vals : nullptr, kout, vout);
  return host::launch_error();
}

template <bool B> struct Flag {
  static const bool value = B;
};

// f(key type, value type, whether there are values) by the sizes (no values: any value type;
// no kernel reads one).
template <typename F> int with_seg_types(uint32_t key_size, uint32_t value_size, F&& f) {
  auto by_value = [&](auto kt) {
    typedef typename decltype(kt)::type U;
    if (value_size == 0) return f(TypeTag<U>(), TypeTag<uint32_t>(), Flag<false>());
    if (value_size == 2) return f(TypeTag<U>(), TypeTag<uint16_t>(), Flag<true>());
    if (value_size == 4) return f(TypeTag<U>(), TypeTag<uint32_t>(), Flag<true>());
    return f(TypeTag<U>(), TypeTag<uint64_t>(), Flag<true>());
  };
  if (key_size == 2) return by_value(TypeTag<uint16_t>());
  if (key_size == 4) return by_value(TypeTag<uint32_t>());
  return by_value(TypeTag<uint64_t>());
}

int run_class(const SegJob& j, uint32_t key_size, uint32_t value_size, unsigned c,
              const SegList& list, unsigned grid) {
  return with_seg_types(key_size, value_size, [&](auto kt, auto vt, auto vals) {
    return launch_class<typename decltype(kt)::type, typename decltype(vt)::type,
                        decltype(vals)::value>(j, c, list, grid);
  });
}

// The segments of class c a block sorts at once.
uint64_t segments_a_block(unsigned c) {
  if (c < kThreadClasses) return kSortThreads;
  return c < kWarpClasses ? (uint64_t)kSegWarps * (WK_WARP_SIZE / (2u << c)) : 1;
}

// Blocks for `items` items of `per_block` a block, at most `most` (the kernels stride).
unsigned blocks_for(uint64_t items, uint64_t per_block, uint64_t most) {
  uint64_t b = (items + per_block - 1) / per_block;
  if (b > most) b = most;
  if (b > 0x7fffffffull) b = 0x7fffffffull;
  return b == 0 ? 1 : (unsigned)b;
}

// A list kernel's grid: the blocks a device holds at once (the warp and bitonic kernels fit
// eight a multiprocessor), the kernels striding over lists whose length the host never reads.
uint64_t resident_blocks() {
  const uint64_t sms = host::multiprocessors();
  return sms ? sms * 8 : 1024;
}

// The device-wide path (the file's comment): its scratch, then the path.
uint64_t device_path_scratch(uint32_t key_size, uint64_t n) {
  const uint64_t index_sort = SortScratch::layout(nullptr, key_size, 4, n, kMaxPasses).total;
  const uint64_t by_segment = SortScratch::layout(nullptr, 4, 4, n, kMaxPasses).total;
  return 3 * round_up(n * 4) + (index_sort > by_segment ? index_sort : by_segment);
}

int device_path(const SegJob& j, uint32_t key_dtype, uint32_t key_size, uint32_t value_size,
                uint64_t count, uint32_t begin_bit, uint32_t end_bit, uint32_t descending,
                void* scratch, uint64_t scratch_bytes) {
  const uint64_t n = j.n;
  const uint64_t slot = round_up(n * 4);
  uint32_t* by_key = (uint32_t*)scratch;
  uint32_t* segs = (uint32_t*)((char*)scratch + slot);
  uint32_t* by_segment = (uint32_t*)((char*)scratch + 2 * slot);
  void* inner = (char*)scratch + 3 * slot;
  const uint64_t inner_bytes = scratch_bytes - 3 * slot;
  int rc = sort_run(j.s, j.st, j.warp_size, key_dtype, 4, WK_SORT_VALUES_INDICES, j.keys, nullptr,
                    n, begin_bit, end_bit, descending, inner, inner_bytes, nullptr, by_key);
  if (rc) return rc;
  unsigned grid;
  if (!grid_for(n, kSortThreads, &grid)) return WK_ERR_ARG;
  WK_LAUNCH(grid, kSortThreads, 0, j.s, segment_of_kernel)(by_key, n, j.offsets, j.seg_size,
                                                           count, segs);
  if ((rc = host::launch_error())) return rc;
  // Segment numbers below `count`: only their significant bits need a pass.
  uint32_t bits = 1;
  while (bits < sizeof(uint32_t) * 8 && ((count - 1) >> bits) != 0) ++bits;
  rc = sort_run(j.s, j.st, j.warp_size, DT_U32, 4, WK_SORT_VALUES_GIVEN, segs, by_key, n, 0, bits,
                0, inner, inner_bytes, nullptr, by_segment);
  if (rc) return rc;
  if ((rc = gather_by_index(j.s, key_size, j.keys, by_segment, n, j.keys_out))) return rc;
  return value_size ? gather_by_index(j.s, value_size, j.vals, by_segment, n, j.vals_out) : 0;
}

// A segment longer than kDevicePathFloor and than n / kDevicePathShare goes device-wide: one
// block sorts it alone while the device-wide path spreads all n keys over every multiprocessor.
// H100, 2026-12-07 (power-law segments of up to 2^16 keys): the 2^20 row took 0.58 ms on the
// block paths (0.52x CUB), most of it one block's longest segment; the device path took about
// 0.2 ns a key of n (~0.21 ms at 2^20, ~2.45 ms at 2^24, 2026-12-06), so a block's segment
// costs what the device path does near n / 48. The
// executor keeps an eighth, so that the conformance suite's small inputs reach the long kernel
// as well as the device path.
const uint64_t kDevicePathFloor = 2 * (uint64_t)kBlockSegItems;
#if defined(WK_VENDOR_HOST)
const uint64_t kDevicePathShare = 8;
#else
const uint64_t kDevicePathShare = 48;
#endif

}  // namespace

uint64_t segmented_sort_scratch(uint32_t key_size, uint32_t value_size, uint64_t n) {
  const uint64_t classified = SegScratch::layout(nullptr, key_size, value_size, n).total;
  const uint64_t device = device_path_scratch(key_size, n);
  return classified > device ? classified : device;
}

int segmented_sort_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t key_dtype,
                          uint32_t value_size, const void* keys, const void* vals, uint64_t n,
                          const uint32_t* offsets, uint64_t seg_size, uint64_t count,
                          uint64_t longest, uint32_t begin_bit, uint32_t end_bit,
                          uint32_t descending, void* scratch, uint64_t scratch_bytes,
                          void* keys_out, void* vals_out) {
  RankSpec r;
  const uint32_t key_size = key_size_of(key_dtype);
  if (!key_size || !rank_spec(key_dtype, begin_bit, end_bit, descending, &r)) return WK_ERR_ARG;
  if (n == 0 || count == 0 || n > kIndexLimit || (!offsets && seg_size == 0)) return WK_ERR_ARG;
  if ((value_size != 0 && value_size != 2 && value_size != 4 && value_size != 8) ||
      (value_size == 0) != !vals ||
      (value_size == 0) != !vals_out)
    return WK_ERR_ARG;
  SegJob j = {as_stream(stream), st, warp_size, r, keys, vals, n, offsets, seg_size,
              keys_out, vals_out, nullptr, nullptr};
  if (longest <= WK_WARP_SIZE) {
    // Every segment in a warp: no scratch, one launch, groups of the longest's power of two.
    unsigned c = 0;
    while ((2ull << c) < longest) ++c;
    const uint64_t per_block = segments_a_block(c);
    if ((count + per_block - 1) / per_block > 0x7fffffffull) return WK_ERR_ARG;
    return run_class(j, key_size, value_size, c, SegList{nullptr, nullptr, count},
                     blocks_for(count, per_block, count));
  }
  // Segment numbers travel as u32 in the lists and the device path.
  if (count > kIndexLimit) return WK_ERR_ARG;
  if (scratch_bytes < segmented_sort_scratch(key_size, value_size, n)) return WK_ERR_SCRATCH;
  if (longest > kDevicePathFloor && longest > n / kDevicePathShare)
    return device_path(j, key_dtype, key_size, value_size, count, begin_bit, end_bit, descending,
                       scratch, scratch_bytes);
  const SegScratch sc = SegScratch::layout(scratch, key_size, value_size, n);
  j.alt_keys = sc.keys;
  j.alt_vals = value_size ? sc.vals : nullptr;
  if (!offsets) {
    // One class for all (the last segment may be shorter: every kernel takes any length up
    // to its class's), one block a segment.
    const uint64_t size = seg_size < n ? seg_size : n;
    const unsigned c = size <= kBitonicItems   ? kClassBitonic
                       : size <= kBlockSegItems ? kClassRadix
                                                : kClassLong;
    return run_class(j, key_size, value_size, c, SegList{nullptr, nullptr, count},
                     blocks_for(count, 1, count));
  }
  int rc = host::memset_async(sc.listed, 0, kClasses * sizeof(unsigned), j.s);
  if (rc) return rc;
  unsigned grid;
  if (!grid_for(count, kSortThreads, &grid)) return WK_ERR_ARG;
  WK_LAUNCH(grid, kSortThreads, 0, j.s, segment_classes_kernel)(offsets, count, sc.bases, sc.lists,
                                                                sc.listed);
  if ((rc = host::launch_error())) return rc;
  const uint64_t resident = resident_blocks();
  for (unsigned c = 0; c < kClasses; ++c) {
    const uint64_t group = 2ull << c;
    if (c < kWarpClasses && group > WK_WARP_SIZE) continue;  // past this width: empty
    // The most the list can hold bounds the grid, so that small inputs launch few blocks.
    const uint64_t most = n / class_shortest(c);
    if (most == 0) continue;
    const uint64_t per_block = segments_a_block(c);
    const SegList list = {sc.lists + sc.bases.at[c], sc.listed + c, 0};
    if ((rc = run_class(j, key_size, value_size, c, list, blocks_for(most, per_block, resident))))
      return rc;
  }
  return 0;
}

}  // namespace WK_NS
