// top_k: the first k of the stable sort (docs/SEMANTICS.md "top_k").
//
// Up to a quarter of the input, a radix select that reads the input twice: every key is the
// pair (rank, position), all distinct, taken in 8-bit digits from the top of the rank and then
// of the position. Digit by digit the k-th smallest pair is narrowed down:
//   pass 0: a histogram of the first digit over the input; a one-block choice finds the digit
//           the k-th pair has (select_choose_kernel) and how many of it are below;
//   pass p: the keys of the last chosen level (the input for p = 1, then a candidate buffer)
//           whose digit p-1 is below the chosen one are in the answer (appended, a block
//           round at a time), those equal to it go to the other candidate buffer with a histogram of
//           their digit p, the rest drop out;
//   the last pass takes those at or below the last digit, which leaves exactly k.
// The k pairs, appended in no fixed order, are put in (rank, position) order: the stable sort's
// first k. Up to kRankSortMax of them are placed by counting the pairs before each (one launch);
// more are sorted by position and then stably by key. Larger k take the whole argsort and gather
// its first k.
#include "sort.h"

namespace WK_NS {
using namespace prims;

namespace {

// Digits of the widest pair: a 64-bit rank and a 32-bit position.
const unsigned kSelectMaxDigits = (sizeof(uint64_t) + sizeof(uint32_t)) * 8 / kDigitBits;

// The narrowing's state, zeroed before pass 0 with the histograms after it.
struct SelectState {
  uint64_t k_left;  // the k-th pair's place among the chosen level's (from 1)
  unsigned appended[3];       // pairs in the answer, in candidate buffer 0, 1
  unsigned pad;
};

// Where the digits of a pair lie: `rank_digits` of the rank's, then `index_digits` of the
// position's, each from the top.
struct PairDigits {
  unsigned rank_digits;
  unsigned index_digits;
  template <typename U>
  __host__ __device__ __forceinline__ unsigned of(unsigned d, U rank, uint32_t index) const {
    return d < rank_digits
               ? (unsigned)(rank >> (kDigitBits * (rank_digits - 1 - d))) & (kRadix - 1)
               : (index >> (kDigitBits * (rank_digits + index_digits - 1 - d))) & (kRadix - 1);
  }
  __host__ __device__ __forceinline__ unsigned total() const {
    return rank_digits + index_digits;
  }
};

template <typename U> struct Candidates {
  U* keys;
  uint32_t* index;
};

// Keys a thread takes per round of a select pass, loaded before any is classified.
const unsigned kSelectItems = 8;
const unsigned kSelectWarps = kSortThreads / WK_WARP_SIZE;
// A thread's pairs for the answer (low half) and for the next level (high half) in one word:
// a block's round holds at most kSortThreads * kSelectItems of either.
const unsigned kHalfBits = 16;
const unsigned kHalfMask = (1u << kHalfBits) - 1;

// Pass `pass` (see the file's head) over `from`: the n keys of the input (positions implicit)
// when from.index is null, else the `*from_count` pairs the pass before kept. `hist` null: the
// last pass. A block appends a round's pairs with one atomic per list: when a quarter of the
// input stays (float keys share their first digits), per-warp appends on one counter took 5x
// the two reads on an H100.
template <typename U>
__global__ void __launch_bounds__(kSortThreads)
    select_pass_kernel(wk_status* st, uint32_t warp_size, Candidates<U> from, uint64_t n,
                       const unsigned* from_count, RankSpec r, PairDigits pd, unsigned pass,
                       const unsigned* chosen, SelectState* state, unsigned* hist,
                       Candidates<U> answer, Candidates<U> next, unsigned* next_count) {
  // A histogram per warp: keys that share a digit collide within a warp only.
  WK_SHARED(unsigned, h, kSelectWarps * kRadix);
  WK_SHARED(unsigned, warp_sums, kSelectWarps);
  WK_SHARED(unsigned, bases, 2);
  if (!width_ok(st, warp_size)) return;
  const uint64_t count = from.index ? *from_count : n;
  const uint64_t per = (uint64_t)kSortThreads * kSelectItems;
  // Past the first pass or two few pairs are left: a block with none has nothing to count or
  // append (the whole block leaves, before any barrier).
  if ((uint64_t)blockIdx.x * per >= count) return;
  const unsigned t = threadIdx.x, w = t / WK_WARP_SIZE, ln = lane();
  for (unsigned i = t; i < kSelectWarps * kRadix; i += kSortThreads) h[i] = 0;
  __syncthreads();
  const unsigned mine = w * kRadix;
  const unsigned want = pass ? chosen[pass - 1] : 0;
  const RankFlip<U> flip(r);
  const unsigned width = r.end - r.begin;
  const U field = width >= sizeof(U) * 8 ? (U)~(U)0 : (U)(((U)1 << width) - 1);
  // Whole blocks go round together: every thread reaches the barriers.
  for (uint64_t b = (uint64_t)blockIdx.x * per; b < count; b += (uint64_t)gridDim.x * per) {
    U key[kSelectItems];
    uint32_t index[kSelectItems];
#pragma unroll
    for (unsigned j = 0; j < kSelectItems; ++j) {
      const uint64_t i = b + j * kSortThreads + t;
      const bool live = i < count;
      key[j] = live ? from.keys[i] : (U)0;
      index[j] = live ? (from.index ? from.index[i] : (uint32_t)i) : 0;
    }
    // Per item: 0 drops out, 1 joins the answer, 2 stays for the next level.
    unsigned char cls[kSelectItems];
    unsigned packed = 0;
#pragma unroll
    for (unsigned j = 0; j < kSelectItems; ++j) {
      const bool live = b + j * kSortThreads + t < count;
      const U rank = (U)(flip.apply(key[j]) >> r.begin) & field;
      if (pass == 0) {
        if (live) atomicAdd(h + mine + pd.of(0, rank, index[j]), 1u);
        cls[j] = 0;
        continue;
      }
      const unsigned d = pd.of(pass - 1, rank, index[j]);
      cls[j] = !live || d > want ? 0 : d < want || !hist ? 1 : 2;
      if (cls[j] == 2) atomicAdd(h + mine + pd.of(pass, rank, index[j]), 1u);
      packed += cls[j] == 1 ? 1u : cls[j] == 2 ? 1u << kHalfBits : 0u;
    }
    if (pass == 0) continue;
    const unsigned incl = kogge_stone<OP_SUM, unsigned>(WK_FULL_MASK, packed, WK_WARP_SIZE);
    if (ln == WK_WARP_SIZE - 1) warp_sums[w] = incl;
    __syncthreads();
    if (t == 0) {
      unsigned total = 0;
      for (unsigned x = 0; x < kSelectWarps; ++x) total += warp_sums[x];
      bases[0] = total & kHalfMask ? atomicAdd(&state->appended[0], total & kHalfMask) : 0;
      bases[1] = total >> kHalfBits ? atomicAdd(next_count, total >> kHalfBits) : 0;
    }
    __syncthreads();
    unsigned before = incl - packed;
    for (unsigned x = 0; x < w; ++x) before += warp_sums[x];
    unsigned to_answer = bases[0] + (before & kHalfMask);
    unsigned to_next = bases[1] + (before >> kHalfBits);
#pragma unroll
    for (unsigned j = 0; j < kSelectItems; ++j) {
      if (cls[j] == 1) {
        answer.keys[to_answer] = key[j];
        answer.index[to_answer++] = index[j];
      } else if (cls[j] == 2) {
        next.keys[to_next] = key[j];
        next.index[to_next++] = index[j];
      }
    }
    __syncthreads();
  }
  if (!hist) return;
  __syncthreads();
  for (unsigned d = t; d < kRadix; d += kSortThreads) {
    unsigned c = 0;
    for (unsigned x = 0; x < kSelectWarps; ++x) c += h[x * kRadix + d];
    if (c) atomicAdd(hist + d, c);
  }
}

// One block of kRadix threads: the digit of the k-th pair among the level counted in `hist`
// (the pairs kept so far), and its place among those with that digit. Resets the count of the candidate buffer the
// next pass writes (the one this pass read).
__global__ void __launch_bounds__(kRadix)
    select_choose_kernel(const unsigned* hist, unsigned pass, uint64_t k, unsigned* chosen,
                         SelectState* state, unsigned* reset) {
  WK_SHARED(uint64_t, warp_sums, kRadix / WK_WARP_SIZE);
  const unsigned d = threadIdx.x, w = d / WK_WARP_SIZE;
  const uint64_t c = hist[d];
  const uint64_t incl = kogge_stone<OP_SUM, uint64_t>(WK_FULL_MASK, c, WK_WARP_SIZE);
  if (lane() == WK_WARP_SIZE - 1) warp_sums[w] = incl;
  const uint64_t k_left = pass == 0 ? k : state->k_left;
  __syncthreads();
  uint64_t below = incl - c;
  for (unsigned x = 0; x < w; ++x) below += warp_sums[x];
  __syncthreads();
  if (below < k_left && k_left <= below + c) {
    chosen[pass] = d;
    state->k_left = k_left - below;
    if (reset) *reset = 0;
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

template <typename U>
int select_typed(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                 const RankSpec& r, const U* in, uint64_t n, uint64_t k, char* scratch,
                 uint64_t scratch_bytes, void* values_out, uint32_t* indices_out) {
  host::stream_t s = as_stream(stream);
  const PairDigits pd{(r.end - r.begin + kDigitBits - 1) / kDigitBits, index_digits(n)};
  const uint32_t size = sizeof(U);
  uint64_t at = 0;
  auto take = [&](uint64_t bytes) {
    char* p = scratch + at;
    at += round_up(bytes);
    return p;
  };
  SelectState* state = (SelectState*)take(sizeof(SelectState));
  unsigned* chosen = (unsigned*)take(kSelectMaxDigits * sizeof(unsigned));
  unsigned* hists = (unsigned*)take(kSelectMaxDigits * kRadix * sizeof(unsigned));
  const uint64_t zeroed = at;
  Candidates<U> buf[2], answer, by_index;
  for (auto& b : buf) {
    b.keys = (U*)take(n * size);
    b.index = (uint32_t*)take(n * 4);
  }
  answer.keys = (U*)take(k * size);
  answer.index = (uint32_t*)take(k * 4);
  by_index.keys = (U*)take(k * size);
  by_index.index = (uint32_t*)take(k * 4);
  if (at > scratch_bytes) return WK_ERR_SCRATCH;
  int rc = host::memset_async(scratch, 0, zeroed, s);
  if (rc) return rc;
  // One block a round of the first passes' input (kSelectItems keys a thread): the later passes
  // read fewer pairs.
  const unsigned grid = strided_grid((n + kSelectItems - 1) / kSelectItems);
  const Candidates<U> input{(U*)in, nullptr};
  for (unsigned pass = 0; pass <= pd.total(); ++pass) {
    const bool last = pass == pd.total();
    const Candidates<U> from = pass <= 1 ? input : buf[pass & 1];
    // Pass p reads what pass p - 1 kept (buffer p & 1) and keeps into the other.
    const unsigned* from_count = &state->appended[1 + (pass & 1)];
    Candidates<U> next = buf[(pass - 1) & 1];
    unsigned* next_count = &state->appended[1 + ((pass - 1) & 1)];
    unsigned* hist = last ? nullptr : hists + pass * kRadix;
    WK_LAUNCH(grid, kSortThreads, 0, s, select_pass_kernel<U>)(
        st, warp_size, from, n, from_count, r, pd, pass, chosen, state, hist, answer, next,
        next_count);
    if ((rc = host::launch_error())) return rc;
    if (last) break;
    // The buffer this pass read is the one the next pass writes.
    unsigned* reset = pass >= 1 ? &state->appended[1 + (pass & 1)] : nullptr;
    WK_LAUNCH(1, kRadix, 0, s, select_choose_kernel)(hist, pass, k, chosen, state, reset);
    if ((rc = host::launch_error())) return rc;
  }
  if (k <= kRankSortMax) {
    const uint64_t lanes = k * kRankLanes;
    const unsigned threads = (unsigned)((lanes + warp_size - 1) / warp_size * warp_size);
    const unsigned block = threads < kSortThreads ? threads : kSortThreads;
    WK_LAUNCH((unsigned)((lanes + block - 1) / block), block, 0, s, rank_sort_kernel<U>)(
        answer, (unsigned)k, r, (U*)values_out, indices_out);
    return host::launch_error();
  }
  // The answer in position order (the digits a position below n has), then stably in key order.
  char* rest = scratch + at;
  const uint64_t rest_bytes = scratch_bytes - at;
  const uint32_t pos_type = DT_U32;
  const uint32_t pos_bits = pd.index_digits * kDigitBits;
  if ((rc = sort_run(stream, st, warp_size, pos_type, size, WK_SORT_VALUES_GIVEN, answer.index,
                     answer.keys, k, 0, pos_bits, 0, rest, rest_bytes, by_index.index,
                     by_index.keys)))
    return rc;
  uint32_t* idx_out = indices_out ? indices_out : answer.index;
  return sort_run(stream, st, warp_size, dtype, 4, WK_SORT_VALUES_GIVEN, by_index.keys,
                  by_index.index, k, r.begin, r.end, r.descending, rest, rest_bytes, values_out,
                  idx_out);
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
  const uint64_t answer = round_up(k * key_size) + round_up(k * 4);
  const uint64_t by_index = SortScratch::layout(nullptr, 4, key_size, k, kMaxPasses, false).total;
  const uint64_t by_key = SortScratch::layout(nullptr, key_size, 4, k, kMaxPasses, false).total;
  return round_up(sizeof(SelectState)) + round_up(kSelectMaxDigits * sizeof(unsigned)) +
         round_up(kSelectMaxDigits * kRadix * sizeof(unsigned)) + 2 * pairs + 2 * answer +
         (by_index > by_key ? by_index : by_key);
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
  uint32_t* order = (uint32_t*)scratch;
  const uint64_t slot = round_up(n * 4);
  int rc = sort_run(stream, st, warp_size, dtype, 4, WK_SORT_VALUES_INDICES, in, nullptr, n,
                    begin_bit, end_bit, descending, (char*)scratch + slot, scratch_bytes - slot,
                    nullptr, order);
  if (rc) return rc;
  host::stream_t s = as_stream(stream);
  if ((rc = gather_by_index(s, size, in, order, k, values_out))) return rc;
  return indices_out ? gather_by_index(s, 4, order, nullptr, k, indices_out) : 0;
}

}  // namespace WK_NS
