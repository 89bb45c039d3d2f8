// The radix select's pieces that top_k.cu's kernels share: the digits of a (rank, position)
// pair, the select's state, and how a thread loads its keys of a round.
#pragma once

#include "sort.h"

namespace WK_NS {

const unsigned kFirstBits = 12;
const unsigned kFirstRadix = 1u << kFirstBits;
// Digits of the widest pair: the first, the 64-bit rank's other bits in 8-bit digits, the 32-bit
// position's.
const unsigned kSelectMaxDigits = 1 + (sizeof(uint64_t) * 8 - kFirstBits + kDigitBits - 1) /
                                          kDigitBits + sizeof(uint32_t) * 8 / kDigitBits;

// The narrowing's state, zeroed before pass 0 with the histograms after it.
struct SelectState {
  uint64_t k_left;      // the k-th pair's place among the chosen level's (from 1)
  unsigned appended[3];  // pairs in the answer, in candidate buffer 0, 1
  unsigned last;         // the last pass once known (0: not yet)
  // Blocks of pass p done with its histogram: the last to arrive chooses digit p.
  unsigned finished[kSelectMaxDigits];
};

// One digit of a pair, worked out on the host for a pass: `shift` and `mask` of the rank, or of
// the position when `index`. A kernel argument, so that a pass spends a shift and a mask a key on
// it, not PairDigits::of's choice among the digit kinds (the select passes are instruction-bound).
struct Digit {
  unsigned shift, mask, index;
  template <typename U>
  __host__ __device__ __forceinline__ unsigned of(U rank, uint32_t position) const {
    return index ? (position >> shift) & mask : (unsigned)(rank >> shift) & mask;
  }
};

// Where the digits of a pair lie: the first digit is the rank's top `first_bits` (all of a
// narrower rank), then `rank_digits` 8-bit digits of the rest of the rank (the lowest one
// shifted no further than bit 0, so it may repeat bits of the one before: those are equal in
// every pair still compared, which keeps the order), then `index_digits` of the position's,
// each from the top.
struct PairDigits {
  unsigned rank_bits;
  unsigned first_bits;
  unsigned rank_digits;
  unsigned index_digits;
  __host__ __device__ __forceinline__ Digit at(unsigned d) const {
    const unsigned below = rank_bits - first_bits;
    if (d == 0) return Digit{below, (1u << first_bits) - 1, 0};
    if (d <= rank_digits) {
      const unsigned top = below - kDigitBits * (d - 1);
      return Digit{top > kDigitBits ? top - kDigitBits : 0, kRadix - 1, 0};
    }
    return Digit{kDigitBits * (rank_digits + index_digits - d), kRadix - 1, 1};
  }
  template <typename U>
  __host__ __device__ __forceinline__ unsigned of(unsigned d, U rank, uint32_t index) const {
    return at(d).of(rank, index);
  }
  __host__ __device__ __forceinline__ unsigned total() const {
    return 1 + rank_digits + index_digits;
  }
};

template <typename U> struct Candidates {
  U* keys;
  uint32_t* index;
};

// Keys a thread takes per round of a select pass, loaded before any is classified. From the
// input they come in 16-byte vectors when it is aligned (a quarter of the load instructions of
// 4-byte keys on the passes that read it all); the candidates' order does not matter, so any
// assignment of keys to threads will do.
const unsigned kSelectItems = 8;
const unsigned kSelectWarps = kSortThreads / WK_WARP_SIZE;

// Where item j of thread t lies in the round from b. kVectors: 16-byte loads of consecutive
// keys; kBlocked: a thread's items consecutive (the compaction's order), else vectors or keys
// kSortThreads apart.
const unsigned kVectors = 1;
const unsigned kBlocked = 2;
template <typename U>
__host__ __device__ __forceinline__ uint64_t item_at(uint64_t b, unsigned j, unsigned t,
                                                     unsigned layout) {
  const unsigned per = sizeof(uint4) / sizeof(U);
  if (layout & kBlocked) return b + (uint64_t)t * kSelectItems + j;
  return layout & kVectors ? b + ((uint64_t)(j / per) * kSortThreads + t) * per + j % per
                           : b + (uint64_t)j * kSortThreads + t;
}

template <typename U>
__device__ __forceinline__ void load_items(const U* keys, uint64_t b, uint64_t count, unsigned t,
                                           unsigned layout, U (&key)[kSelectItems]) {
  const unsigned per = sizeof(uint4) / sizeof(U);
  static_assert(kSelectItems % (sizeof(uint4) / sizeof(U)) == 0, "whole vectors a thread");
  if (layout & kVectors) {
#pragma unroll
    for (unsigned c = 0; c < kSelectItems / per; ++c) {
      const uint64_t i = item_at<U>(b, c * per, t, layout);
      if (i + per <= count) {
        const uint4 v = *reinterpret_cast<const uint4*>(keys + i);
        __builtin_memcpy(key + c * per, &v, sizeof(uint4));
      } else {
        for (unsigned e = 0; e < per; ++e) key[c * per + e] = i + e < count ? keys[i + e] : (U)0;
      }
    }
    return;
  }
#pragma unroll
  for (unsigned j = 0; j < kSelectItems; ++j) {
    const uint64_t i = item_at<U>(b, j, t, layout);
    key[j] = i < count ? keys[i] : (U)0;
  }
}

// A key's rank (sort.h's rank_of) with the flip and the field worked out once.
template <typename U> struct Ranker {
  RankFlip<U> flip;
  unsigned begin;
  U field;
  __device__ __forceinline__ explicit Ranker(const RankSpec& r) : flip(r), begin(r.begin) {
    const unsigned width = r.end - r.begin;
    field = width >= sizeof(U) * 8 ? (U)~(U)0 : (U)(((U)1 << width) - 1);
  }
  __device__ __forceinline__ U operator()(U key) const {
    return (U)(flip.apply(key) >> begin) & field;
  }
};

}  // namespace WK_NS
