// top_k: the first k of the stable sort (docs/SEMANTICS.md "top_k").
//
// Up to half the input (top_k_select_limit), a radix select: every key is the pair (rank,
// position), all distinct, taken in digits from the top of the rank and then of the position: a
// first digit of kFirstBits, then 8-bit digits. Digit by digit the k-th smallest pair is
// narrowed down:
//   pass 0: a histogram of the first digit over the input (select_count_kernel); the block
//           that finishes last finds the digit the k-th pair has (finish_pass) and how many of
//           it are below;
//   pass p: the keys of the last chosen level (the input for p = 1, then a candidate buffer)
//           whose digit p-1 is below the chosen one are in the answer (appended a warp's
//           ballot at a time), those equal to it go to the other candidate buffer (staged in
//           the warp's part of shared memory, a stage at a time) with a histogram of their
//           digit p, the rest drop out; the pass's last block to finish chooses digit p;
//   the last pass takes those at or below the last digit, which leaves exactly k. That is the
//           pass after the one whose chosen digit holds exactly the pairs still wanted (often
//           a rank digit: distinct keys need no position digits); the passes after it return
//           at once.
// The wide first digit keeps the second read cheap: with 8 bits, floats share their first
// digit (sign and exponent) so much that a quarter of 2^28 uniform floats stayed, were written
// as pairs and read again; with 12 bits about 2% stay (an eighth of a binade), so the two reads
// of the input are nearly all the traffic. Its 4096 counters are one histogram a block (16 KB),
// not one a warp as the 8-bit digits' are.
// Up to kRankSortMax, the k pairs, appended in no fixed order, are placed by counting the pairs
// before each (one launch). Larger k are not appended: once the narrowing has found the k-th
// pair, two more reads of the input gather the answer in position order (a count a block, then
// the writes) and one stable sort by key orders it, straight into the outputs. Past the limit,
// all n pairs (key, position) are sorted and the first k of each copied out.
// Estimated on an H100 at 2^28 floats (the lead measures): k <= 1024 two reads of 1 GiB
// (~0.7 ms) and ~2% of it written and read again as pairs (~0.03 ms) where the 8-bit first
// digit took 1.8 ms; k = n/2 about four reads and a sort of n/2 pairs (~6-7 ms) where a sort
// of n pairs and a gather took ~11.
#include "top_k_select.h"

namespace WK_NS {
using namespace prims;

namespace {

// Thread t's run [lo, hi) of `bins` counters in a block of kRadix threads, their sum, and the
// sum of the runs before it. Every thread of the block calls it (two barriers); `warp_sums`
// is a shared array of a word a warp.
struct CounterRun {
  unsigned lo, hi;
  uint64_t sum, below;
};
template <typename Counts, typename Sums>
__device__ __forceinline__ CounterRun counter_run(Counts counts, unsigned bins, Sums& warp_sums) {
  const unsigned t = threadIdx.x, w = t / WK_WARP_SIZE;
  const unsigned run = (bins + kRadix - 1) / kRadix;
  CounterRun c;
  c.lo = t * run < bins ? t * run : bins;
  c.hi = c.lo + run < bins ? c.lo + run : bins;
  c.sum = 0;
  for (unsigned d = c.lo; d < c.hi; ++d) c.sum += counts[d];
  const uint64_t incl = kogge_stone<OP_SUM, uint64_t>(WK_FULL_MASK, c.sum, WK_WARP_SIZE);
  if (lane() == WK_WARP_SIZE - 1) warp_sums[w] = incl;
  __syncthreads();
  c.below = incl - c.sum;
  for (unsigned x = 0; x < w; ++x) c.below += warp_sums[x];
  __syncthreads();
  return c;
}

// Every block of a pass calls it once, after its histogram adds, and the last to arrive (the
// pass's ticket in SelectState) chooses the digit of the k-th pair among the level `hist` counts
// (`bins` counters): chosen[pass], and the pair's place among those with that digit. When that
// digit holds exactly the pairs still wanted, the next pass is the last. Resets `reset`, the
// count of the candidate buffer the next pass writes (the one this pass read: every block read it
// when it started). A one-block launch did this after each pass, and at 2^20 those launches were
// most of top_k's 57-65 us (H200, 2026-12-07). `warp_sums`: a shared word a warp; `arrived`: one
// shared word. The whole block calls it.
template <typename Sums, typename Flag>
__device__ __forceinline__ void finish_pass(const unsigned* hist, unsigned bins, unsigned pass,
                                            uint64_t k, unsigned* chosen, SelectState* state,
                                            unsigned* reset, Sums& warp_sums, Flag& arrived) {
  // Every thread's histogram adds before the ticket; the other blocks' before the reads.
  arch::fence_device();
  __syncthreads();
  if (threadIdx.x == 0) arrived[0] = atomicAdd(&state->finished[pass], 1u) == gridDim.x - 1;
  __syncthreads();
  if (!arrived[0]) return;
  arch::fence_device();
  // Volatile: the counters were added to at L2 by other blocks.
  const volatile unsigned* counts = hist;
  const uint64_t k_left = pass == 0 ? k : state->k_left;
  const CounterRun c = counter_run(counts, bins, warp_sums);
  if (!(c.below < k_left && k_left <= c.below + c.sum)) return;
  uint64_t below = c.below;
  for (unsigned d = c.lo; d < c.hi; ++d) {
    const uint64_t cd = counts[d];
    if (k_left <= below + cd) {
      chosen[pass] = d;
      state->k_left = k_left - below;
      if (k_left == below + cd) state->last = pass + 1;
      if (reset) *reset = 0;
      return;
    }
    below += cd;
  }
}

// Pass 0: the histogram of the first digit (`first`) over the n keys of the input; the last
// block chooses the first digit.
template <typename U>
__global__ void __launch_bounds__(kSortThreads)
    select_count_kernel(wk_status* st, uint32_t warp_size, const U* in, uint64_t n, unsigned vec,
                        RankSpec r, Digit first, uint64_t k, unsigned* chosen, SelectState* state,
                        unsigned* hist) {
  WK_SHARED(unsigned, h, kFirstRadix);
  WK_SHARED(uint64_t, choose_sums, kSelectWarps);
  WK_SHARED(unsigned, arrived, 1);
  if (!width_ok(st, warp_size)) return;
  const unsigned t = threadIdx.x, bins = first.mask + 1;
  for (unsigned i = t; i < bins; i += kSortThreads) h[i] = 0;
  __syncthreads();
  const uint64_t per = (uint64_t)kSortThreads * kSelectItems;
  const Ranker<U> rank(r);
  for (uint64_t b = (uint64_t)blockIdx.x * per; b < n; b += (uint64_t)gridDim.x * per) {
    U key[kSelectItems];
    load_items<U>(in, b, n, t, vec, key);
    const bool full = b + per <= n;
#pragma unroll
    for (unsigned j = 0; j < kSelectItems; ++j)
      if (full || item_at<U>(b, j, t, vec) < n) atomicAdd(h + first.of(rank(key[j]), 0), 1u);
  }
  __syncthreads();
  for (unsigned d = t; d < bins; d += kSortThreads) {
    const unsigned c = h[d];
    if (c) atomicAdd(hist + d, c);
  }
  finish_pass(hist, bins, 0, k, chosen, state, nullptr, choose_sums, arrived);
}

// Pass `pass` >= 1 (see the file's head) over `from`: the n keys of the input (positions
// implicit, IMPLICIT; `vec`: 16-byte aligned), else the `*from_count` pairs the pass before
// kept. `cut`: the digit compared with the chosen one; `split`: the next level's digit, counted.
// `hist` null: the last pass. answer.keys null: the answer is gathered afterwards
// (select_gather_kernel), so the pass's answer pairs need nothing here.
// Each warp works alone: a ballot a key slot finds the warp's pairs for the next level, which
// the warp stages in its part of shared memory and writes out a stage at a time with one atomic
// on the level's count; pairs for the answer (fewer than k in all) go out with an atomic a
// ballot that has any. The block-wide scan and barrier of every round this replaces, and the
// per-key class bytes, made the first pass at 2^28 floats instruction-bound: 1.63 ms where the
// count pass's read took 0.40 (ncu, H200, 2026-12-07: ~70 instructions a key, 14% of DRAM).
const unsigned kStageItems = kSortThreads * kSelectItems;
const unsigned kWarpStage = kStageItems / kSelectWarps;
static_assert(kWarpStage >= WK_WARP_SIZE, "a warp's stage takes a ballot's pairs");
// Four blocks a multiprocessor (64 registers a thread): the warps that hide the loads.
const unsigned kSelectPassBlocks = 4;

// `count` places at `*counter` for the whole warp (the same count in every lane): the first
// place, in every lane.
__device__ __forceinline__ unsigned warp_claim(unsigned* counter, unsigned count) {
  unsigned base = 0;
  if (lane() == 0) base = atomicAdd(counter, count);
  return shfl_idx<unsigned>(WK_FULL_MASK, base, 0, WK_WARP_SIZE);
}

template <typename U, bool IMPLICIT>
__global__ void __launch_bounds__(kSortThreads, kSelectPassBlocks)
    select_pass_kernel(wk_status* st, uint32_t warp_size, Candidates<U> from, uint64_t n,
                       unsigned vec, unsigned* from_count, RankSpec r, Digit cut, Digit split,
                       unsigned pass, uint64_t k, unsigned* chosen, SelectState* state,
                       unsigned* hist, Candidates<U> answer, Candidates<U> next,
                       unsigned* next_count) {
  // A histogram per warp: keys that share a digit collide within a warp only.
  WK_SHARED(unsigned, h, kSelectWarps * kRadix);
  WK_SHARED(U, stage_keys, kStageItems);
  WK_SHARED(uint32_t, stage_index, kStageItems);
  WK_SHARED(uint64_t, choose_sums, kSelectWarps);
  WK_SHARED(unsigned, arrived, 1);
  if (!width_ok(st, warp_size)) return;
  // Past the pass that took the answer there is nothing left (the whole grid leaves), and a
  // last pass whose answer is gathered afterwards has nothing to do.
  const unsigned known_last = state->last;
  if (known_last && pass > known_last) return;
  const bool last = !hist || pass == known_last;
  if (last && !answer.keys) return;
  const unsigned vectors = IMPLICIT ? vec : 0;
  const uint64_t count = IMPLICIT ? n : *from_count;
  const uint64_t per = (uint64_t)kSortThreads * kSelectItems;
  // The digit of the next level over the pairs kept, chosen by the pass's last block to finish.
  auto finish = [&]() {
    finish_pass(hist, kRadix, pass, k, chosen, state, from_count, choose_sums, arrived);
  };
  // Past the first pass or two few pairs are left: a block with none has nothing to count or
  // append (the whole block leaves, before any barrier but the ticket's).
  if ((uint64_t)blockIdx.x * per >= count) {
    if (!last) finish();
    return;
  }
  const unsigned t = threadIdx.x, w = t / WK_WARP_SIZE, ln = lane();
  if (!last) {
    for (unsigned i = t; i < kSelectWarps * kRadix; i += kSortThreads) h[i] = 0;
  }
  __syncthreads();
  const unsigned mine = w * kRadix, stage = w * kWarpStage;
  const wk_lanemask_t before_me = arch::lanemask_lt();
  const unsigned want = chosen[pass - 1];
  const Ranker<U> rank(r);
  // The warp's staged pairs (the same count in every lane).
  unsigned staged = 0;
  auto flush = [&]() {
    const unsigned base = warp_claim(next_count, staged);
    // Every lane's stage writes before the copy, every copy before the stage is written again.
    syncwarp(NATIVE, WK_FULL_MASK);
    for (unsigned i = ln; i < staged; i += WK_WARP_SIZE) {
      next.keys[base + i] = stage_keys[stage + i];
      next.index[base + i] = stage_index[stage + i];
    }
    syncwarp(NATIVE, WK_FULL_MASK);
    staged = 0;
  };
  // Every lane of a warp goes round the same number of times (the rounds are the block's).
  for (uint64_t b = (uint64_t)blockIdx.x * per; b < count; b += (uint64_t)gridDim.x * per) {
    U key[kSelectItems];
    uint32_t index[kSelectItems];
    load_items<U>(from.keys, b, count, t, vectors, key);
    // Only a block's last round can hold items past the end: bit j for item j in range.
    const bool full = b + per <= count;
    unsigned live = (1u << kSelectItems) - 1;
#pragma unroll
    for (unsigned j = 0; j < kSelectItems; ++j) {
      const uint64_t i = item_at<U>(b, j, t, vectors);
      if (!full && i >= count) live &= ~(1u << j);
      // The input's positions are where its keys lie; a level's pairs carry theirs.
      index[j] = IMPLICIT ? (uint32_t)i : live >> j & 1 ? from.index[i] : 0;
    }
#pragma unroll
    for (unsigned j = 0; j < kSelectItems; ++j) {
      const U rk = rank(key[j]);
      // The input's level is the first digit's, always of the rank.
      const unsigned d = IMPLICIT ? (unsigned)(rk >> cut.shift) & cut.mask : cut.of(rk, index[j]);
      const bool in = live >> j & 1;
      const bool keep = !last && in && d == want;
      const bool take = answer.keys && in && (d < want || (last && d == want));
      // Warp-uniform branches: a ballot's mask is the same in every lane. Most ballots find
      // nothing, so one tests both kinds.
      const wk_lanemask_t any = arch::ballot_sync(WK_FULL_MASK, keep || take);
      if (!any) continue;
      const wk_lanemask_t kept = arch::ballot_sync(WK_FULL_MASK, keep);
      if (kept) {
        if (staged + WK_WARP_SIZE > kWarpStage) flush();
        if (keep) {
          const unsigned at = stage + staged + arch::popc(kept & before_me);
          stage_keys[at] = key[j];
          stage_index[at] = index[j];
          atomicAdd(h + mine + split.of(rk, index[j]), 1u);
        }
        staged += arch::popc(kept);
      }
      // keep and take are never both true.
      const wk_lanemask_t taken = any & ~kept;
      if (taken) {
        const unsigned base = warp_claim(&state->appended[0], (unsigned)arch::popc(taken));
        if (take) {
          const unsigned at = base + arch::popc(taken & before_me);
          answer.keys[at] = key[j];
          answer.index[at] = index[j];
        }
      }
    }
  }
  if (staged) flush();
  if (last) return;
  __syncthreads();
  for (unsigned d = t; d < kRadix; d += kSortThreads) {
    unsigned c = 0;
    for (unsigned x = 0; x < kSelectWarps; ++x) c += h[x * kRadix + d];
    if (c) atomicAdd(hist + d, c);
  }
  finish();
}

// Whether a pair is in the answer: its digits up to the last pass's, `depth`, are at most the
// chosen ones (compared from the first, as the passes narrowed them). `want` is a shared array,
// which the executor does not give as a pointer.
template <typename U, typename Want>
__device__ __forceinline__ bool selected(U rank, uint32_t index, const PairDigits& pd,
                                         const Want& want, unsigned depth) {
  for (unsigned d = 0; d <= depth; ++d) {
    const unsigned x = pd.of(d, rank, index);
    if (x != want[d]) return x < want[d];
  }
  return true;
}

// The answer of a larger k again, from the input in position order, so that one stable sort by
// key puts it in order (the narrowing appends in no fixed order, and then needed a sort by
// position first). Block b takes positions [b * chunk, (b + 1) * chunk): with `offsets` null it
// counts its answer into counts[b]; then (select_offsets_kernel between) it writes it from
// offsets[b] on, a round at a time, a thread's kSelectItems consecutive keys in order.
template <typename U>
__global__ void __launch_bounds__(kSortThreads)
    select_gather_kernel(wk_status* st, uint32_t warp_size, const U* in, uint64_t n,
                         unsigned vec, uint64_t chunk, RankSpec r, PairDigits pd,
                         const unsigned* chosen, const SelectState* state, unsigned* counts,
                         const unsigned* offsets, Candidates<U> answer) {
  WK_SHARED(unsigned, want, kSelectMaxDigits);
  WK_SHARED(unsigned, warp_sums, kSelectWarps);
  if (!width_ok(st, warp_size)) return;
  const unsigned t = threadIdx.x, w = t / WK_WARP_SIZE, ln = lane();
  const unsigned depth = (state->last ? state->last : pd.total()) - 1;
  if (t <= depth) want[t] = chosen[t];
  __syncthreads();
  const uint64_t lo = (uint64_t)blockIdx.x * chunk;
  const uint64_t hi = n - lo < chunk ? n : lo + chunk;
  const uint64_t per = (uint64_t)kSortThreads * kSelectItems;
  const unsigned layout = kBlocked | vec;
  const Ranker<U> rank(r);
  unsigned base = offsets ? offsets[blockIdx.x] : 0;
  for (uint64_t b = lo; b < hi; b += per) {
    U key[kSelectItems];
    load_items<U>(in, b, hi, t, layout, key);
    unsigned sel = 0;
#pragma unroll
    for (unsigned j = 0; j < kSelectItems; ++j) {
      const uint64_t i = item_at<U>(b, j, t, layout);
      if (i < hi && selected(rank(key[j]), (uint32_t)i, pd, want, depth)) sel |= 1u << j;
    }
    const unsigned mine = (unsigned)arch::popc(sel);
    if (!offsets) {
      base += mine;
      continue;
    }
    const unsigned incl = kogge_stone<OP_SUM, unsigned>(WK_FULL_MASK, mine, WK_WARP_SIZE);
    if (ln == WK_WARP_SIZE - 1) warp_sums[w] = incl;
    __syncthreads();
    unsigned at = base + incl - mine, round = 0;
    for (unsigned x = 0; x < kSelectWarps; ++x) {
      if (x < w) at += warp_sums[x];
      round += warp_sums[x];
    }
#pragma unroll
    for (unsigned j = 0; j < kSelectItems; ++j) {
      if (sel >> j & 1) {
        answer.keys[at] = key[j];
        answer.index[at++] = (uint32_t)item_at<U>(b, j, t, layout);
      }
    }
    base += round;
    // warp_sums is rewritten next round.
    __syncthreads();
  }
  if (offsets) return;
  const unsigned sum = bfly<OP_SUM, unsigned>(WK_FULL_MASK, base, WK_WARP_SIZE);
  if (ln == 0 && sum) atomicAdd(counts + blockIdx.x, sum);
}

// One block of kRadix threads: the blocks' counts into where each block's answer starts.
__global__ void __launch_bounds__(kRadix)
    select_offsets_kernel(const unsigned* counts, unsigned blocks, unsigned* offsets) {
  WK_SHARED(uint64_t, warp_sums, kRadix / WK_WARP_SIZE);
  const CounterRun c = counter_run(counts, blocks, warp_sums);
  unsigned below = (unsigned)c.below;
  for (unsigned d = c.lo; d < c.hi; ++d) {
    offsets[d] = below;
    below += counts[d];
  }
}

// The answer in order when it is small, one launch in place of the two digit sorts' (four
// launches a digit): all pairs are distinct, so a pair's place is the number of pairs before it
// in (rank, position) order. Each block holds all k pairs in shared memory; kRankLanes lanes
// count one pair's predecessors, each a strided share of them, and add their counts (with a
// thread a pair walking all k, top_k with k = 1024 took 57 us longer than with k = 32 on an
// H200).
const unsigned kRankSortMax = 1024;
const unsigned kRankLanes = 16;
template <typename U>
__global__ void __launch_bounds__(kSortThreads)
    rank_sort_kernel(Candidates<U> answer, unsigned k, RankSpec r, U* values_out,
                     uint32_t* indices_out) {
  WK_SHARED(U, ranks, kRankSortMax);
  WK_SHARED(uint32_t, pos, kRankSortMax);
  for (unsigned i = threadIdx.x; i < k; i += blockDim.x) {
    ranks[i] = rank_of<U>(answer.keys[i], r);
    pos[i] = answer.index[i];
  }
  __syncthreads();
  const unsigned i = (blockIdx.x * blockDim.x + threadIdx.x) / kRankLanes;
  const bool live = i < k;
  const U mine = live ? ranks[i] : (U)0;
  const uint32_t at = live ? pos[i] : 0;
  unsigned before = 0;
  if (live) {
#pragma unroll 4
    for (unsigned j = threadIdx.x % kRankLanes; j < k; j += kRankLanes)
      before += ranks[j] < mine || (ranks[j] == mine && pos[j] < at);
  }
  // Whole warps: the block is a multiple of the warp and every lane reaches the shuffles.
  before = bfly<OP_SUM, unsigned>(WK_FULL_MASK, before, kRankLanes);
  if (!live || threadIdx.x % kRankLanes) return;
  values_out[before] = answer.keys[i];
  if (indices_out) indices_out[before] = at;
}

// The select passes' grid comes from strided_grid, which counts blocks of kBlock threads.
static_assert(kSortThreads == kBlock, "select passes run blocks of kBlock threads");

// The most blocks of a select pass: an H100 holds 132 x 8 of them at once. The SIMT executor
// runs two, so that the conformance suite's small inputs give a block several rounds (and
// more pairs to stage than fit at once, and several rounds of the gather).
#if defined(WK_VENDOR_HOST)
const unsigned kSelectMaxGrid = 2;
#else
const unsigned kSelectMaxGrid = 1024;
#endif
// The select's histograms: the first digit's, then one of kRadix a later pass.
const uint64_t kSelectHistWords = kFirstRadix + (uint64_t)kSelectMaxDigits * kRadix;

template <typename U>
int select_typed(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                 const RankSpec& r, const U* in, uint64_t n, uint64_t k, char* scratch,
                 uint64_t scratch_bytes, void* values_out, uint32_t* indices_out) {
  host::stream_t s = as_stream(stream);
  const unsigned width = r.end - r.begin;
  const unsigned first = width < kFirstBits ? width : kFirstBits;
  const PairDigits pd{width, first, (width - first + kDigitBits - 1) / kDigitBits,
                      index_digits(n)};
  const uint32_t size = sizeof(U);
  uint64_t at = 0;
  auto take = [&](uint64_t bytes) {
    char* p = scratch + at;
    at += round_up(bytes);
    return p;
  };
  SelectState* state = (SelectState*)take(sizeof(SelectState));
  unsigned* chosen = (unsigned*)take(kSelectMaxDigits * sizeof(unsigned));
  unsigned* hists = (unsigned*)take(kSelectHistWords * sizeof(unsigned));
  unsigned* counts = (unsigned*)take(kSelectMaxGrid * sizeof(unsigned));
  const uint64_t zeroed = at;
  unsigned* offsets = (unsigned*)take(kSelectMaxGrid * sizeof(unsigned));
  Candidates<U> buf[2], answer;
  for (auto& b : buf) {
    b.keys = (U*)take(n * size);
    b.index = (uint32_t*)take(n * 4);
  }
  answer.keys = (U*)take(k * size);
  answer.index = (uint32_t*)take(k * 4);
  // The positions' output when the caller wants none (the sort below writes them).
  uint32_t* order = (uint32_t*)take(k * 4);
  // Past kRankSortMax the narrowing only finds the k-th pair; the answer is gathered after it.
  const bool ranked = k <= kRankSortMax;
  Candidates<U> appended = answer;
  if (!ranked) appended.keys = nullptr;
  if (at > scratch_bytes || pd.total() > kSelectMaxDigits) return WK_ERR_SCRATCH;
  int rc = host::memset_async(scratch, 0, zeroed, s);
  if (rc) return rc;
  // One block a round of the input (kSelectItems keys a thread), at most about what a GPU
  // holds at once: each block adds its histogram to the global one when it ends, so fewer,
  // longer-lived blocks mean fewer global atomics on the same counters. The passes past the
  // first two read fewer pairs, and their blocks past those leave at once. The input in
  // 16-byte vectors when it starts on one (a view into a buffer may not).
  const unsigned blocks = strided_grid((n + kSelectItems - 1) / kSelectItems);
  const unsigned grid = blocks < kSelectMaxGrid ? blocks : kSelectMaxGrid;
  const unsigned vec = (uintptr_t)in % sizeof(uint4) == 0 ? kVectors : 0;
  WK_LAUNCH(grid, kSortThreads, 0, s, select_count_kernel<U>)(
      st, warp_size, in, n, vec, r, pd.at(0), k, chosen, state, hists);
  if ((rc = host::launch_error())) return rc;
  const Candidates<U> input{(U*)in, nullptr};
  for (unsigned pass = 1; pass <= pd.total(); ++pass) {
    const bool last = pass == pd.total();
    const Candidates<U> from = pass == 1 ? input : buf[pass & 1];
    // Pass p reads what pass p - 1 kept (buffer p & 1) and keeps into the other; its last block
    // resets the count of the one it read.
    unsigned* from_count = &state->appended[1 + (pass & 1)];
    Candidates<U> next = buf[(pass - 1) & 1];
    unsigned* next_count = &state->appended[1 + ((pass - 1) & 1)];
    unsigned* hist = last ? nullptr : hists + kFirstRadix + pass * kRadix;
    const Digit cut = pd.at(pass - 1), split = last ? cut : pd.at(pass);
    if (pass == 1)
      WK_LAUNCH(grid, kSortThreads, 0, s, select_pass_kernel<U, true>)(
          st, warp_size, from, n, vec, from_count, r, cut, split, pass, k, chosen, state, hist,
          appended, next, next_count);
    else
      WK_LAUNCH(grid, kSortThreads, 0, s, select_pass_kernel<U, false>)(
          st, warp_size, from, n, vec, from_count, r, cut, split, pass, k, chosen, state, hist,
          appended, next, next_count);
    if ((rc = host::launch_error())) return rc;
  }
  if (ranked) {
    const uint64_t lanes = k * kRankLanes;
    const unsigned threads = (unsigned)((lanes + warp_size - 1) / warp_size * warp_size);
    const unsigned block = threads < kSortThreads ? threads : kSortThreads;
    WK_LAUNCH((unsigned)((lanes + block - 1) / block), block, 0, s, rank_sort_kernel<U>)(
        answer, (unsigned)k, r, (U*)values_out, indices_out);
    return host::launch_error();
  }
  // The answer in position order (two more reads of the input: a count and a write a block),
  // then one stable sort of it by key straight into the outputs. Whole rounds a block, so that
  // every block's rounds start 16-byte aligned.
  const uint64_t per = (uint64_t)kSortThreads * kSelectItems;
  const uint64_t rounds = (n + per - 1) / per;
  const uint64_t rounds_each = (rounds + kSelectMaxGrid - 1) / kSelectMaxGrid;
  const unsigned blocks_n = (unsigned)((rounds + rounds_each - 1) / rounds_each);
  const uint64_t chunk = rounds_each * per;
  WK_LAUNCH(blocks_n, kSortThreads, 0, s, select_gather_kernel<U>)(
      st, warp_size, in, n, vec, chunk, r, pd, chosen, state, counts, nullptr, answer);
  if ((rc = host::launch_error())) return rc;
  WK_LAUNCH(1, kRadix, 0, s, select_offsets_kernel)(counts, blocks_n, offsets);
  if ((rc = host::launch_error())) return rc;
  WK_LAUNCH(blocks_n, kSortThreads, 0, s, select_gather_kernel<U>)(
      st, warp_size, in, n, vec, chunk, r, pd, chosen, state, counts, offsets, answer);
  if ((rc = host::launch_error())) return rc;
  return sort_run(stream, st, warp_size, dtype, 4, WK_SORT_VALUES_GIVEN, answer.keys,
                  answer.index, k, r.begin, r.end, r.descending, scratch + at,
                  scratch_bytes - at, values_out, indices_out ? indices_out : order);
}

}  // namespace

unsigned index_digits(uint64_t n) {
  unsigned bits = 1;
  while (bits < sizeof(uint32_t) * 8 && (n - 1) >> bits) ++bits;
  return (bits + kDigitBits - 1) / kDigitBits;
}

uint64_t top_k_select_scratch(uint32_t key_size, uint64_t n) {
  const uint64_t k = top_k_select_limit(n);
  const uint64_t pairs = round_up(n * key_size) + round_up(n * 4);
  const uint64_t answer = round_up(k * key_size) + round_up(k * 4) + round_up(k * 4);
  const uint64_t by_key = SortScratch::layout(nullptr, key_size, 4, k, kMaxPasses, false).total;
  return round_up(sizeof(SelectState)) + round_up(kSelectMaxDigits * sizeof(unsigned)) +
         round_up(kSelectHistWords * sizeof(unsigned)) +
         2 * round_up(kSelectMaxGrid * sizeof(unsigned)) + 2 * pairs + answer + by_key;
}

int top_k_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype, const void* in,
                 uint64_t n, uint64_t k, uint32_t begin_bit, uint32_t end_bit, uint32_t descending,
                 void* scratch, uint64_t scratch_bytes, void* values_out, uint32_t* indices_out) {
  const uint32_t size = key_size_of(dtype);
  RankSpec r;
  if (!size || k == 0 || k > n || n > kIndexLimit || !values_out) return WK_ERR_ARG;
  if (!rank_spec(dtype, begin_bit, end_bit, descending, &r)) return WK_ERR_ARG;
  if (scratch_bytes < sort_scratch_bytes(WK_ALGO_TOP_K, size, 4, n)) return WK_ERR_SCRATCH;
  if (k <= top_k_select_limit(n)) {
    if (size == 2)
      return select_typed<uint16_t>(stream, st, warp_size, dtype, r, (const uint16_t*)in, n, k,
                                    (char*)scratch, scratch_bytes, values_out, indices_out);
    if (size == 4)
      return select_typed<uint32_t>(stream, st, warp_size, dtype, r, (const uint32_t*)in, n, k,
                                    (char*)scratch, scratch_bytes, values_out, indices_out);
    return select_typed<uint64_t>(stream, st, warp_size, dtype, r, (const uint64_t*)in, n, k,
                                  (char*)scratch, scratch_bytes, values_out, indices_out);
  }
  // All pairs (key, position) sorted, then the first k of each copied out: a copy of 2k
  // elements in place of gathering k keys from the input by position (k random reads, each a
  // whole sector of DRAM: at k = n/2 of 2^28 floats, about as long as a pass of the sort).
  char* keys = (char*)scratch;
  uint32_t* order = (uint32_t*)(keys + round_up(n * size));
  const uint64_t slots = round_up(n * size) + round_up(n * 4);
  int rc = sort_run(stream, st, warp_size, dtype, 4, WK_SORT_VALUES_INDICES, in, nullptr, n,
                    begin_bit, end_bit, descending, (char*)scratch + slots, scratch_bytes - slots,
                    keys, order);
  if (rc) return rc;
  host::stream_t s = as_stream(stream);
  if ((rc = gather_by_index(s, size, keys, nullptr, k, values_out))) return rc;
  return indices_out ? gather_by_index(s, 4, order, nullptr, k, indices_out) : 0;
}

}  // namespace WK_NS
