// What the sorting launchers share (sort.cu, segmented_sort.cu, top_k.cu): the rank of a key
// (docs/SEMANTICS.md "sort"), the digit passes, the tile shape and the scratch layout.
#pragma once

#include "device.h"
#include "sort_tuning.h"

namespace WK_NS {

const unsigned kDigitBits = 8;
const unsigned kRadix = 1u << kDigitBits;
// Threads of the sorting kernels' blocks: one per digit in the digit phase.
const unsigned kSortThreads = kRadix;
const unsigned kMaxPasses = 64 / kDigitBits;
// Keys per onesweep launch: a tile's status word counts up to 2^30 - 1. The SIMT executor
// takes one tile's worth instead, so that the conformance suite's small inputs run the
// several-portion path a GPU takes past 2^29 keys (it once went untested there and was wrong).
#if defined(WK_VENDOR_HOST)
const uint64_t kPortion = 4096;
#else
const uint64_t kPortion = 1ull << 29;
#endif
const uint64_t kTicketBytes = 256;
// The most keys a sort that carries their positions (u32) takes.
const uint64_t kIndexLimit = (uint64_t)(uint32_t)~0u;
// merge_runs (merge_runs.cu): outputs a thread and a block merge, the runs one launch takes
// (their lengths travel in a host array), and its scratch: a copy of the keys and values to
// ping-pong through and the tiles' start positions of one merge.
const unsigned kMergeItems = 8;
const unsigned kMergeTile = kSortThreads * kMergeItems;
const uint32_t kMaxMergeRuns = 1024;
inline uint64_t merge_runs_scratch(uint32_t key_size, uint32_t value_size, uint64_t n) {
  return round_up(n * key_size) + round_up(n * value_size) +
         round_up((n / kMergeTile + 2) * sizeof(uint64_t));
}

enum KeyKind : uint32_t { KEY_UNSIGNED = 0, KEY_SIGNED = 1, KEY_FLOAT = 2 };

// The part of each key a sort compares, as the launcher was asked.
struct RankSpec {
  uint32_t kind;
  uint32_t begin;
  uint32_t end;
  uint32_t descending;
};

inline uint32_t key_size_of(uint32_t dtype) {
  switch (dtype) {
    case DT_F16: case DT_BF16: return 2;
    case DT_I32: case DT_U32: case DT_F32: return 4;
    case DT_I64: case DT_U64: case DT_F64: return 8;
    default: return 0;
  }
}

inline bool rank_spec(uint32_t dtype, uint32_t begin, uint32_t end, uint32_t descending,
                      RankSpec* r) {
  const uint32_t bits = key_size_of(dtype) * 8;
  if (bits == 0 || begin >= end || end > bits) return false;
  r->kind = dtype == DT_U32 || dtype == DT_U64 ? KEY_UNSIGNED
            : dtype == DT_I32 || dtype == DT_I64 ? KEY_SIGNED
                                                 : KEY_FLOAT;
  r->begin = begin;
  r->end = end;
  r->descending = descending ? 1 : 0;
  return true;
}

__host__ __device__ __forceinline__ unsigned pass_count(const RankSpec& r) {
  return (r.end - r.begin + kDigitBits - 1) / kDigitBits;
}

// What turns a key's bits into its order bits with the compared field complemented when
// descending, with no branch: bits ^ ((bits < 0 ? ~0 : 0) & float_mask) ^ sign_mask ^ desc_mask,
// float_mask all but the sign bit for floats, zero otherwise.
// Negative floats get every bit flipped, other floats and signed integers their sign bit, and
// unsigned keys nothing; complementing the field is the descending order, since the field of
// the complement is the field's complement. FLOATS = false leaves the float term out (the
// caller knows the keys are integers): one xor a key, as a pass over u32 keys wants.
template <typename U, bool FLOATS = true> struct RankFlip {
  U float_mask;
  U xor_mask;  // sign_mask ^ desc_mask

  __host__ __device__ __forceinline__ explicit RankFlip(const RankSpec& r) {
    const U sign = (U)1 << (sizeof(U) * 8 - 1);
    const unsigned width = r.end - r.begin;
    const U field = width >= sizeof(U) * 8 ? (U)~(U)0 : (U)(((U)1 << width) - 1);
    float_mask = r.kind == KEY_FLOAT ? (U)~sign : (U)0;
    const U sign_mask = r.kind == KEY_UNSIGNED ? (U)0 : sign;
    const U desc_mask = r.descending ? (U)(field << r.begin) : (U)0;
    xor_mask = sign_mask ^ desc_mask;
  }
  __host__ __device__ __forceinline__ U apply(U bits) const {
    if (!FLOATS) return bits ^ xor_mask;
    const U negative = (U)0 - (bits >> (sizeof(U) * 8 - 1));
    return bits ^ (negative & float_mask) ^ xor_mask;
  }
};

// A key's rank: ascending ranks are the sort's order.
template <typename U> __host__ __device__ __forceinline__ U rank_of(U bits, const RankSpec& r) {
  const unsigned width = r.end - r.begin;
  const U field = width >= sizeof(U) * 8 ? (U)~(U)0 : (U)(((U)1 << width) - 1);
  return (U)(RankFlip<U>(r).apply(bits) >> r.begin) & field;
}

__host__ __device__ __forceinline__ unsigned digit_bits(unsigned pass, const RankSpec& r) {
  const unsigned left = r.end - r.begin - pass * kDigitBits;
  return left < kDigitBits ? left : kDigitBits;
}

// Where pass `pass`'s digit lies in the order bits: its shift and mask.
struct DigitField {
  unsigned shift;
  unsigned mask;
  __host__ __device__ __forceinline__ DigitField(unsigned pass, const RankSpec& r)
      : shift(r.begin + pass * kDigitBits), mask((1u << digit_bits(pass, r)) - 1) {}
  template <typename U> __host__ __device__ __forceinline__ unsigned of(U ordered) const {
    return (unsigned)(ordered >> shift) & mask;
  }
};

// The lanes of the warp holding the same digit as this one (live lanes only ever match live
// lanes): one ballot per digit bit at the device's width (the bits past a short last digit are
// zero in every lane, so kDigitBits ballots always do), each giving the lanes that agree with
// this one on its bit. Not the native match_any: on an H100 (2026-12-07) ranking with
// __match_any_sync made the whole sort 1.3-1.5x slower.
// digit_peers_among: the same among `peers`, the lanes known to hold a key.
__device__ __forceinline__ wk_lanemask_t digit_peers_among(unsigned digit, wk_lanemask_t peers) {
#pragma unroll
  for (unsigned b = 0; b < kDigitBits; ++b) peers &= arch::ballot_agree(WK_FULL_MASK, digit, b);
  return peers;
}

__device__ __forceinline__ wk_lanemask_t digit_peers(unsigned digit, bool live) {
  return digit_peers_among(digit, arch::ballot_sync(WK_FULL_MASK, live));
}

// The scratch of one sort of n keys: the second copy of the keys and values the passes
// ping-pong through, the keys' own output when the caller wants none (an argsort), the digit
// counts and offsets, the tile ticket and the tiles' status words (zeroed by each pass).
struct SortScratch {
  char* keys;
  char* keys2;
  char* vals;
  unsigned* counts;
  uint64_t counts_bytes;
  unsigned long long* offsets;
  unsigned* ticket;
  unsigned* status;
  uint64_t total;

  static SortScratch layout(void* base, uint32_t key_size, uint32_t value_size, uint64_t n,
                            unsigned passes, bool own_keys = true) {
    SortScratch s;
    char* b = (char*)base;
    uint64_t at = 0;
    const uint64_t portions = (n + kPortion - 1) / kPortion;
    const uint64_t first = n < kPortion ? n : kPortion;
    const uint64_t tile = onesweep_tile(key_size, value_size);
    const uint64_t tiles = (first + tile - 1) / tile;
    auto take = [&](uint64_t bytes) {
      char* p = b ? b + at : nullptr;
      at += round_up(bytes);
      return p;
    };
    s.keys = take(n * key_size);
    s.keys2 = own_keys ? take(n * key_size) : nullptr;
    s.vals = take(n * value_size);
    s.counts_bytes = portions * passes * kRadix * sizeof(unsigned);
    s.counts = (unsigned*)take(s.counts_bytes);
    s.offsets = (unsigned long long*)take(passes * portions * kRadix * sizeof(unsigned long long));
    // The ticket and the statuses are zeroed with one memset: keep them adjacent.
    s.ticket = (unsigned*)take(kTicketBytes);
    s.status = (unsigned*)take(tiles * kRadix * sizeof(unsigned));
    s.total = at;
    return s;
  }
};

// How the values of a sort are given (`values`): by the caller, or as the keys' indices.
const uint32_t WK_SORT_VALUES_GIVEN = 0;
const uint32_t WK_SORT_VALUES_INDICES = 1;

// The sort behind the sort launcher, for the other sorting launchers: keys (key_dtype) and
// their values (value_size 0, 2, 4 or 8 bytes) into keys_out (nullptr: not wanted) and vals_out.
int sort_run(void* stream, wk_status* st, uint32_t warp_size, uint32_t key_dtype,
             uint32_t value_size, uint32_t values, const void* keys, const void* vals, uint64_t n,
             uint32_t begin_bit, uint32_t end_bit, uint32_t descending, void* scratch,
             uint64_t scratch_bytes, void* keys_out, void* vals_out);

// segmented_sort's scratch (segmented_sort.cu): the larger of its size-classed path's and its
// device-wide path's, for n keys of key_size bytes and values of value_size (0: none).
uint64_t segmented_sort_scratch(uint32_t key_size, uint32_t value_size, uint64_t n);

// top_k takes the radix select (top_k.cu) for k up to this, a sort of all n pairs past it. The
// select reads the input about four times and sorts k pairs once; estimated for 2^28 floats on
// an H100 (a read ~0.35 ms, the pairs sort ~39 ps a pair) it stays ahead up to k ~ 0.85 n. Half
// keeps its scratch (two candidate buffers of n pairs, the answer, a sort of k) near the
// whole sort's.
inline uint64_t top_k_select_limit(uint64_t n) { return n / 2; }
// 8-bit digits that hold a position below n.
unsigned index_digits(uint64_t n);
// The radix select's scratch for n keys of key_size bytes (any k up to top_k_select_limit).
uint64_t top_k_select_scratch(uint32_t key_size, uint64_t n);

// dst[i] = src[idx[i]] (idx NULL: src[i]) for i < n, elements of `size` bytes (2, 4 or 8).
int gather_by_index(host::stream_t s, uint32_t size, const void* src, const uint32_t* idx,
                    uint64_t n, void* dst);

}  // namespace WK_NS
