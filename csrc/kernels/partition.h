// The predicates of a partition, shared by the stable partition (partition.cu) and the one-read
// partition with the rest reversed (partition_reversed.cu).
#pragma once

#include "device.h"
#include "look_back.h"

namespace WK_NS {

// Each thread's parts as two bits an item in one word.
static_assert(2 * WK_SCAN_ITEMS_PER_THREAD <= sizeof(unsigned) * 8, "two bits per item must fit one unsigned");

// The predicates: `first`, and `second` when three-way (ways == 3).
template <typename T>
struct Preds {
  uint32_t p0, p1, ways;
  T a0, b0, a1, b1;
  // 0: `first` (decoded by `f0`) holds; 1: it does not and `second` (three-way) does; 2: the rest.
  template <typename F0> __device__ __forceinline__ unsigned part(F0 f0, bool three, T x) const {
    if (f0(x, a0, b0)) return 0;
    if (three && eval_pred(p1, x, a1, b1)) return 1;
    return 2;
  }
  // A part as a count: parts 0 and 1 in the low and high 16 bits (a block counts at most 8192
  // items of each).
  static __device__ __forceinline__ unsigned weight(unsigned p) {
    return p == 0 ? 1u : p == 1 ? (1u << 16) : 0u;
  }
  // `first` decoded per item: partial tiles and three-way partitions.
  struct Runtime {
    uint32_t code;
    __device__ __forceinline__ bool operator()(T x, T a, T b) const {
      return eval_pred(code, x, a, b);
    }
  };
  // f(decoder of `first`, three): a two-way partition's `first` fixed at compile time, so the
  // unrolled loops hold one comparison an item (seven copies of them); a three-way one decodes
  // both per item, which spares the build 49 more.
  template <typename F> __device__ __forceinline__ void with_first(F&& f) const {
    if (ways == 3)
      f(Runtime{p0}, true);
    else
      with_pred(p0, [&](auto f0) { f(f0, false); });
  }
};

// Each item's part in two bits of `parts` (3 past n) and the thread's counts of parts 0 and 1 in
// `mine` (Preds::weight), for the items from `first`; `full`: all of them exist (no bounds
// checked). A full tile decodes `first` at compile time (Preds::with_first) when `fixed_ok`;
// otherwise `first` is decoded per item, three-way when `three`.
template <typename T>
__device__ __forceinline__ void classify_items(const Preds<T>& preds,
                                               const T (&x)[WK_SCAN_ITEMS_PER_THREAD],
                                               uint64_t first, uint64_t n, bool full, bool three,
                                               bool fixed_ok, unsigned& parts, unsigned& mine) {
  parts = 0;
  mine = 0;
  auto classify = [&](auto f0, bool three_way) {
#pragma unroll
    for (unsigned k = 0; k < WK_SCAN_ITEMS_PER_THREAD; ++k) {
      const unsigned p = full || first + k < n ? preds.part(f0, three_way, x[k]) : 3u;
      mine += Preds<T>::weight(p);
      parts |= p << (2 * k);
    }
  };
  if (full && fixed_ok)
    preds.with_first([&](auto f0, bool three_way) { classify(f0, three_way); });
  else
    classify(typename Preds<T>::Runtime{preds.p0}, three);
}

}  // namespace WK_NS
