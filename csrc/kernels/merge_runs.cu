// merge_runs: the stable merge of sorted runs (docs/SEMANTICS.md "dist_sort"). The input is
// `runs` runs one after another, each sorted stably by the rank of sort.h; the output is their
// stable merge, which equals the stable sort of the whole input: equal ranks keep the run
// order, and within a run the run's own order. wavekit-dist's sample sort receives one sorted
// run from every rank and merges them here instead of sorting everything again.
//
// Pairs of neighbouring runs are merged level by level (ceil(log2(runs)) passes, ping-ponging
// between the output and the scratch so that the last pass lands in the output). One merge is
// a merge path in two launches: merge_starts_kernel finds, one thread a tile, where each tile
// of kMergeTile consecutive outputs starts in both runs (a binary search along the tile's
// diagonal); merge_runs_kernel then stages a tile's two windows in shared memory, and each
// thread searches its own diagonal there and merges kMergeItems outputs; the keys (and values)
// are written in coalesced rows. (A first version searched at the head of each tile's block:
// 28 dependent global reads before any block could start merging.)
#include "sort.h"

namespace WK_NS {
using namespace prims;

namespace {

// How many of the first d outputs of the stable merge of a[0..na) and b[0..nb) come from a. On
// equal ranks a's key comes first (a is the earlier run).
template <typename U>
__device__ __forceinline__ uint64_t merge_split(const U* a, uint64_t na, const U* b, uint64_t nb,
                                                uint64_t d, const RankSpec& r) {
  uint64_t lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (rank_of(a[mid], r) <= rank_of(b[d - 1 - mid], r)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// starts[t] = where tile t of the merge starts in a, for t = 0 ..= tiles (the last: na). One
// thread a tile, so the searches run side by side instead of heading every tile's block.
template <typename U>
__global__ void __launch_bounds__(kSortThreads)
    merge_starts_kernel(const U* a, uint64_t na, const U* b, uint64_t nb, RankSpec r,
                        uint64_t tiles, uint64_t* starts) {
  const uint64_t t = (uint64_t)blockIdx.x * kSortThreads + threadIdx.x;
  if (t > tiles) return;
  const uint64_t n = na + nb;
  starts[t] = merge_split(a, na, b, nb, t * kMergeTile < n ? t * kMergeTile : n, r);
}

template <typename U, typename V, bool VALS>
__global__ void __launch_bounds__(kSortThreads)
    merge_runs_kernel(const U* a, uint64_t na, const U* b, uint64_t nb, const V* va,
                      const V* vb, RankSpec r, const uint64_t* starts, U* out, V* vout) {
  // The tile's window of a (la keys), then of b.
  WK_SHARED(U, win, kMergeTile);
  // Per output of the tile, its key's place in the window.
  WK_SHARED(uint32_t, from, kMergeTile);
  const uint64_t n = na + nb;
  const uint64_t d0 = (uint64_t)blockIdx.x * kMergeTile;
  const uint32_t len = (uint32_t)(d0 + kMergeTile < n ? kMergeTile : n - d0);
  const uint64_t i0 = starts[blockIdx.x], j0 = d0 - i0;
  const uint32_t la = (uint32_t)(starts[blockIdx.x + 1] - i0), lb = len - la;
  for (uint32_t k = threadIdx.x; k < len; k += kSortThreads)
    win[k] = k < la ? a[i0 + k] : b[j0 + k - la];
  __syncthreads();
  const uint32_t d = threadIdx.x * kMergeItems;
  if (d < len) {
    uint32_t lo = d > lb ? d - lb : 0, hi = d < la ? d : la;
    while (lo < hi) {
      const uint32_t mid = (lo + hi) / 2;
      if (rank_of<U>(win[mid], r) <= rank_of<U>(win[la + d - 1 - mid], r)) lo = mid + 1;
      else hi = mid;
    }
    uint32_t i = lo, j = d - lo;
    for (unsigned k = 0; k < kMergeItems && d + k < len; ++k) {
      const bool take_a =
          i < la && (j >= lb || rank_of<U>(win[i], r) <= rank_of<U>(win[la + j], r));
      from[d + k] = take_a ? i++ : la + j++;
    }
  }
  __syncthreads();
  for (uint32_t k = threadIdx.x; k < len; k += kSortThreads) {
    const uint32_t f = from[k];
    out[d0 + k] = win[f];
    if (VALS) vout[d0 + k] = f < la ? va[i0 + f] : vb[j0 + f - la];
  }
}

template <typename U, typename V, bool VALS>
int merge_pair(host::stream_t s, const U* a, uint64_t na, const U* b, uint64_t nb, const V* va,
               const V* vb, const RankSpec& r, uint64_t* starts, U* out, V* vout) {
  if (na + nb == 0) return 0;
  const uint64_t tiles = (na + nb + kMergeTile - 1) / kMergeTile;
  unsigned grid, search;
  if (!grid_for(na + nb, kMergeTile, &grid) || !grid_for(tiles + 1, kSortThreads, &search))
    return WK_ERR_ARG;
  WK_LAUNCH(search, kSortThreads, 0, s, merge_starts_kernel<U>)(a, na, b, nb, r, tiles, starts);
  int rc = host::launch_error();
  if (rc != 0) return rc;
  WK_LAUNCH(grid, kSortThreads, 0, s, merge_runs_kernel<U, V, VALS>)(a, na, b, nb, va, vb, r,
                                                                      starts, out, vout);
  return host::launch_error();
}

// Every pass of the merge tree, keys of U and values of V (VALS false: none).
template <typename U, typename V, bool VALS>
int merge_all(host::stream_t s, const RankSpec& r, const U* keys, const V* vals,
              const uint64_t* run_lens, uint32_t runs, U* scratch_keys, V* scratch_vals,
              uint64_t* starts, U* keys_out, V* vals_out) {
  uint64_t lens[kMaxMergeRuns];
  uint64_t n = 0;
  for (uint32_t k = 0; k < runs; ++k) n += lens[k] = run_lens[k];
  unsigned passes = 0;
  while ((1u << passes) < runs) ++passes;
  const uint32_t size = sizeof(U), vsize = sizeof(V);
  if (passes == 0) {
    int rc = gather_by_index(s, size, keys, nullptr, n, keys_out);
    if (rc == 0 && VALS) rc = gather_by_index(s, vsize, vals, nullptr, n, vals_out);
    return rc;
  }
  const U* src = keys;
  const V* vsrc = vals;
  for (unsigned p = 0; p < passes; ++p) {
    // The last pass writes the output, the one before it the scratch, and so on back.
    const bool to_out = (passes - 1 - p) % 2 == 0;
    U* dst = to_out ? keys_out : scratch_keys;
    V* vdst = to_out ? vals_out : scratch_vals;
    uint64_t at = 0;
    uint32_t merged = 0;
    for (uint32_t k = 0; k < runs; k += 2) {
      int rc;
      if (k + 1 < runs) {
        rc = merge_pair<U, V, VALS>(s, src + at, lens[k], src + at + lens[k], lens[k + 1],
                                    VALS ? vsrc + at : nullptr,
                                    VALS ? vsrc + at + lens[k] : nullptr, r, starts, dst + at,
                                    VALS ? vdst + at : nullptr);
      } else {
        // The odd run out moves as it is.
        const bool some = lens[k] != 0;
        rc = some ? gather_by_index(s, size, src + at, nullptr, lens[k], dst + at) : 0;
        if (rc == 0 && VALS && some)
          rc = gather_by_index(s, vsize, vsrc + at, nullptr, lens[k], vdst + at);
      }
      if (rc != 0) return rc;
      const uint64_t len = lens[k] + (k + 1 < runs ? lens[k + 1] : 0);
      at += len;
      lens[merged++] = len;
    }
    runs = merged;
    src = dst;
    vsrc = vdst;
  }
  return 0;
}

template <typename U>
int merge_sized(host::stream_t s, const RankSpec& r, uint32_t value_size, const void* keys,
                const void* vals, const uint64_t* run_lens, uint32_t runs, char* scratch,
                uint64_t n, void* keys_out, void* vals_out) {
  U* sk = (U*)scratch;
  char* sv = scratch + round_up(n * sizeof(U));
  uint64_t* st = (uint64_t*)(sv + round_up(n * value_size));
  switch (value_size) {
    case 0:
      return merge_all<U, uint32_t, false>(s, r, (const U*)keys, nullptr, run_lens, runs, sk,
                                           nullptr, st, (U*)keys_out, nullptr);
    case 2:
      return merge_all<U, uint16_t, true>(s, r, (const U*)keys, (const uint16_t*)vals, run_lens,
                                          runs, sk, (uint16_t*)sv, st, (U*)keys_out,
                                          (uint16_t*)vals_out);
    case 4:
      return merge_all<U, uint32_t, true>(s, r, (const U*)keys, (const uint32_t*)vals, run_lens,
                                          runs, sk, (uint32_t*)sv, st, (U*)keys_out,
                                          (uint32_t*)vals_out);
    case 8:
      return merge_all<U, uint64_t, true>(s, r, (const U*)keys, (const uint64_t*)vals, run_lens,
                                          runs, sk, (uint64_t*)sv, st, (U*)keys_out,
                                          (uint64_t*)vals_out);
    default: return WK_ERR_ARG;
  }
}

}  // namespace

int merge_runs_launch(void* stream, wk_status*, uint32_t key_dtype, uint32_t value_size,
                      const void* keys, const void* vals, const uint64_t* run_lens,
                      uint32_t runs, uint32_t begin_bit, uint32_t end_bit, uint32_t descending,
                      void* scratch, uint64_t scratch_bytes, void* keys_out, void* vals_out) {
  RankSpec r;
  const uint32_t key_size = key_size_of(key_dtype);
  if (!key_size || !rank_spec(key_dtype, begin_bit, end_bit, descending, &r)) return WK_ERR_ARG;
  if (runs == 0 || runs > kMaxMergeRuns || run_lens == nullptr || keys_out == nullptr)
    return WK_ERR_ARG;
  if ((value_size == 0) != (vals == nullptr) || (value_size == 0) != (vals_out == nullptr))
    return WK_ERR_ARG;
  uint64_t n = 0;
  for (uint32_t k = 0; k < runs; ++k) n += run_lens[k];
  if (n == 0) return WK_OK;
  if (scratch_bytes < sort_scratch_bytes(WK_ALGO_MERGE_RUNS, key_size, value_size, n)) return WK_ERR_SCRATCH;
  host::stream_t s = as_stream(stream);
  char* sc = (char*)scratch;
  if (key_size == 2)
    return merge_sized<uint16_t>(s, r, value_size, keys, vals, run_lens, runs, sc, n, keys_out,
                                 vals_out);
  if (key_size == 4)
    return merge_sized<uint32_t>(s, r, value_size, keys, vals, run_lens, runs, sc, n, keys_out,
                                 vals_out);
  return merge_sized<uint64_t>(s, r, value_size, keys, vals, run_lens, runs, sc, n, keys_out,
                               vals_out);
}

}  // namespace WK_NS
