// segmented_sort: every segment sorted on its own (docs/SEMANTICS.md "segmented_sort").
//
// Segments that fit in a warp (the longest no longer than the device's width) are sorted in
// registers, as many a warp as fit in groups of the longest's power of two: every lane holds
// one (rank, position) pair and a bitonic network of shuffles within the group orders them; the pairs are all distinct, so the result is the stable order.
// Segments of up to kBlockSegItems keys are sorted one a block in shared memory: each block
// sorts its segment's (rank, position) pairs by a bitonic network as long as the segment's
// power of two, then gathers; the pairs are distinct again, so the order is the stable one.
// Otherwise the positions are sorted by key (an argsort: stable), then stably by their segment
// (a sort of the segment numbers carrying the positions), which leaves every segment's
// positions in key order; the keys and values are then gathered from them.
#include "sort.h"

namespace WK_NS {
using namespace prims;

namespace {

const unsigned kSegWarps = kSortThreads / WK_WARP_SIZE;

template <typename U>
__device__ __forceinline__ bool pair_less(U ra, unsigned pa, U rb, unsigned pb) {
  return ra < rb || (ra == rb && pa < pb);
}

// Segments of at most `group` keys (a power of two up to WK_WARP_SIZE), WK_WARP_SIZE / group
// of them a warp, one lane a key: segment s is [start(s), end(s)). Short segments fill the
// warp instead of leaving most of its lanes idle, and their network has fewer stages.
template <typename U, typename V, bool VALS>
__global__ void __launch_bounds__(kSortThreads)
    segmented_sort_warp_kernel(wk_status* st, uint32_t warp_size, const U* keys, const V* vals,
                               uint64_t n, const uint32_t* offsets, uint64_t seg_size,
                               uint64_t count, unsigned group, RankSpec r, U* keys_out,
                               V* vals_out) {
  if (!width_ok(st, warp_size)) return;
  const unsigned ln = lane(), per_warp = WK_WARP_SIZE / group, q = ln % group;
  const uint64_t first = ((uint64_t)blockIdx.x * kSegWarps + threadIdx.x / WK_WARP_SIZE) * per_warp;
  if (first >= count) return;  // the whole warp: no segment of its own
  const uint64_t seg = first + ln / group;
  // Lanes of a segment past the last one, or past their segment's end, hold the largest pair,
  // so they sort to the end. A 16-bit key's rank travels in a 32-bit word (the shuffles move 32
  // and 64 bits); the sentinel is then above every rank.
  typedef typename ShflWord<U>::type R;
  R rank = (R)~(R)0;
  unsigned pos = ~0u;
  uint64_t start = 0;
  unsigned len = 0;
  if (seg < count) {
    start = offsets ? offsets[seg] : seg * seg_size;
    const uint64_t end =
        offsets ? offsets[seg + 1] : (n - start < seg_size ? n : start + seg_size);
    len = (unsigned)(end - start);
  }
  if (q < len) {
    rank = (R)rank_of<U>(keys[start + q], r);
    pos = q;
  }
  for (unsigned size = 2; size <= group; size <<= 1) {
    for (unsigned stride = size >> 1; stride > 0; stride >>= 1) {
      // The partner lane by index, not by xor: a network's strides restart at every size,
      // which the executor would read as a shuffle-xor tree that starts too low.
      const R other_rank = shfl_idx<R>(WK_FULL_MASK, rank, ln ^ stride, WK_WARP_SIZE);
      const unsigned other_pos = shfl_idx<unsigned>(WK_FULL_MASK, pos, ln ^ stride, WK_WARP_SIZE);
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

// The longest segment the block path sorts: its pairs take 10 bytes a key (8-byte keys) in
// shared memory, 40 KB, under the 48 KB a block may declare statically.
const unsigned kBlockSegItems = 4096;

// One segment a block: its keys' ranks and positions in shared memory, padded to the
// segment's power of two with pairs above every real one (the largest rank, positions from
// the length on), ordered by a bitonic network, then gathered by position.
template <typename U, typename V, bool VALS>
__global__ void __launch_bounds__(kSortThreads)
    segmented_sort_block_kernel(const U* keys, const V* vals, uint64_t n,
                                const uint32_t* offsets, uint64_t seg_size, RankSpec r,
                                U* keys_out, V* vals_out) {
  WK_SHARED(U, ranks, kBlockSegItems);
  WK_SHARED(uint16_t, places, kBlockSegItems);
  const uint64_t seg = blockIdx.x;
  const uint64_t start = offsets ? offsets[seg] : seg * seg_size;
  const uint64_t end = offsets ? offsets[seg + 1] : (n - start < seg_size ? n : start + seg_size);
  const unsigned len = (unsigned)(end - start);
  if (len < 2) {  // the whole block: nothing to order, and no barrier is reached
    if (len == 1 && threadIdx.x == 0) {
      keys_out[start] = keys[start];
      if (VALS) vals_out[start] = vals[start];
    }
    return;
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
      for (unsigned i = threadIdx.x; i < size / 2; i += kSortThreads) {
        const unsigned lo = 2 * stride * (i / stride) + i % stride, hi = lo + stride;
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

template <typename U, typename V>
int warp_path(host::stream_t s, wk_status* st, uint32_t warp_size, const RankSpec& r,
              const void* keys, const void* vals, uint64_t n, const uint32_t* offsets,
              uint64_t seg_size, uint64_t count, uint64_t longest, void* keys_out,
              void* vals_out) {
  unsigned group = 1;
  while (group < longest) group <<= 1;
  const uint64_t per_block = (uint64_t)kSegWarps * (WK_WARP_SIZE / group);
  const uint64_t blocks = (count + per_block - 1) / per_block;
  if (blocks > 0x7fffffffull) return WK_ERR_ARG;
  if (vals)
    WK_LAUNCH((unsigned)blocks, kSortThreads, 0, s, segmented_sort_warp_kernel<U, V, true>)(
        st, warp_size, (const U*)keys, (const V*)vals, n, offsets, seg_size, count, group,
        r, (U*)keys_out, (V*)vals_out);
  else
    WK_LAUNCH((unsigned)blocks, kSortThreads, 0, s, segmented_sort_warp_kernel<U, V, false>)(
        st, warp_size, (const U*)keys, nullptr, n, offsets, seg_size, count, group, r,
        (U*)keys_out, nullptr);
  return host::launch_error();
}

template <typename U, typename V>
int block_path(host::stream_t s, wk_status*, uint32_t, const RankSpec& r, const void* keys,
               const void* vals, uint64_t n, const uint32_t* offsets, uint64_t seg_size,
               uint64_t count, uint64_t, void* keys_out, void* vals_out) {
  if (vals)
    WK_LAUNCH((unsigned)count, kSortThreads, 0, s, segmented_sort_block_kernel<U, V, true>)(
        (const U*)keys, (const V*)vals, n, offsets, seg_size, r, (U*)keys_out, (V*)vals_out);
  else
    WK_LAUNCH((unsigned)count, kSortThreads, 0, s, segmented_sort_block_kernel<U, V, false>)(
        (const U*)keys, nullptr, n, offsets, seg_size, r, (U*)keys_out, nullptr);
  return host::launch_error();
}

// The warp path (BLOCK false) or the block path with the values' type from their size (none:
// any; the kernels read no value).
template <bool BLOCK, typename U>
int short_path(host::stream_t s, wk_status* st, uint32_t warp_size, const RankSpec& r,
               uint32_t value_size, const void* keys, const void* vals, uint64_t n,
               const uint32_t* offsets, uint64_t seg_size, uint64_t count, uint64_t longest,
               void* keys_out, void* vals_out) {
  auto run = [&](auto vt) {
    typedef typename decltype(vt)::type V;
    if constexpr (BLOCK)
      return block_path<U, V>(s, st, warp_size, r, keys, vals, n, offsets, seg_size, count,
                              longest, keys_out, vals_out);
    else
      return warp_path<U, V>(s, st, warp_size, r, keys, vals, n, offsets, seg_size, count,
                             longest, keys_out, vals_out);
  };
  if (value_size == 2) return run(TypeTag<uint16_t>());
  if (value_size == 8) return run(TypeTag<uint64_t>());
  return run(TypeTag<uint32_t>());
}

// short_path by the keys' size.
template <bool BLOCK>
int short_path_keyed(host::stream_t s, wk_status* st, uint32_t warp_size, const RankSpec& r,
                     uint32_t key_size, uint32_t value_size, const void* keys, const void* vals,
                     uint64_t n, const uint32_t* offsets, uint64_t seg_size, uint64_t count,
                     uint64_t longest, void* keys_out, void* vals_out) {
  if (key_size == 2)
    return short_path<BLOCK, uint16_t>(s, st, warp_size, r, value_size, keys, vals, n, offsets,
                                       seg_size, count, longest, keys_out, vals_out);
  if (key_size == 4)
    return short_path<BLOCK, uint32_t>(s, st, warp_size, r, value_size, keys, vals, n, offsets,
                                       seg_size, count, longest, keys_out, vals_out);
  return short_path<BLOCK, uint64_t>(s, st, warp_size, r, value_size, keys, vals, n, offsets,
                                     seg_size, count, longest, keys_out, vals_out);
}

}  // namespace

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
  host::stream_t s = as_stream(stream);
  if (longest <= WK_WARP_SIZE)
    return short_path_keyed<false>(s, st, warp_size, r, key_size, value_size, keys, vals, n,
                                   offsets, seg_size, count, longest, keys_out, vals_out);
  if (longest <= kBlockSegItems && count <= 0x7fffffffull)
    return short_path_keyed<true>(s, st, warp_size, r, key_size, value_size, keys, vals, n,
                                  offsets, seg_size, count, longest, keys_out, vals_out);
  if (scratch_bytes < sort_scratch_bytes(WK_ALGO_SEGMENTED_SORT, key_size, value_size, n))
    return WK_ERR_SCRATCH;
  const uint64_t slot = round_up(n * 4);
  uint32_t* by_key = (uint32_t*)scratch;
  uint32_t* segs = (uint32_t*)((char*)scratch + slot);
  uint32_t* by_segment = (uint32_t*)((char*)scratch + 2 * slot);
  void* inner = (char*)scratch + 3 * slot;
  const uint64_t inner_bytes = scratch_bytes - 3 * slot;
  int rc = sort_run(stream, st, warp_size, key_dtype, 4, WK_SORT_VALUES_INDICES, keys, nullptr, n,
                    begin_bit, end_bit, descending, inner, inner_bytes, nullptr, by_key);
  if (rc) return rc;
  unsigned grid;
  if (!grid_for(n, kSortThreads, &grid)) return WK_ERR_ARG;
  WK_LAUNCH(grid, kSortThreads, 0, s, segment_of_kernel)(by_key, n, offsets, seg_size, count, segs);
  if ((rc = host::launch_error())) return rc;
  // Segment numbers below `count`: only their significant bits need a pass.
  uint32_t bits = 1;
  while (bits < sizeof(uint32_t) * 8 && ((count - 1) >> bits) != 0) ++bits;
  rc = sort_run(stream, st, warp_size, DT_U32, 4, WK_SORT_VALUES_GIVEN, segs, by_key, n, 0, bits,
                0, inner, inner_bytes, nullptr, by_segment);
  if (rc) return rc;
  if ((rc = gather_by_index(s, key_size, keys, by_segment, n, keys_out))) return rc;
  return value_size ? gather_by_index(s, value_size, vals, by_segment, n, vals_out) : 0;
}

}  // namespace WK_NS
