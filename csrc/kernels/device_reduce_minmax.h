// The device reduce's float Min / Max folds (included by device_reduce.cu, after its Vec): the
// order-free keys of 32- and 64-bit floats, the 16-bit floats' fold on their loaded words, and
// f64 by comparisons where they decide.
#pragma once

namespace WK_NS {
namespace {

// Float Min/Max of 16 values in integer keys: key(x) = bits ^ (sign ? magnitude mask : 0)
// orders every non-NaN float as a signed integer, -0.0 below +0.0 (SEMANTICS.md), and maps
// back by the same formula, so the tree of integer min/max (one or two instructions a combine,
// against the compare chain of the float op) picks the same element bit for bit. A NaN
// anywhere makes the result NaN, as the float op would (payloads are not compared).
template <typename T> struct FloatKey;
template <> struct FloatKey<float> {
  typedef uint32_t U;
  typedef int32_t S;
  static const U kAbs = 0x7fffffffu;
  static const U kInf = 0x7f800000u;
  static const U kQuietNan = 0x7fc00000u;
};
template <> struct FloatKey<double> {
  typedef uint64_t U;
  typedef int64_t S;
  static const U kAbs = 0x7fffffffffffffffull;
  static const U kInf = 0x7ff0000000000000ull;
  static const U kQuietNan = 0x7ff8000000000000ull;
};

template <typename T>
__device__ __forceinline__ typename FloatKey<T>::S float_key(typename FloatKey<T>::U b) {
  typedef FloatKey<T> K;
  const unsigned sign_shift = sizeof(b) * 8 - 1;
  return (typename K::S)(b ^ ((typename K::U)((typename K::S)b >> sign_shift) >> 1));
}

template <int OP, typename T> __device__ __forceinline__ T fold_float_minmax(const T* vals) {
  typedef FloatKey<T> K;
  const unsigned kItems = WK_REDUCE_ITEMS_PER_LANE;
  typename K::S k[kItems];
  typename K::U mag = 0;
#pragma unroll
  for (unsigned i = 0; i < kItems; ++i) {
    const typename K::U b = to_bits(vals[i]);
    k[i] = float_key<T>(b);
    const typename K::U a = b & K::kAbs;
    mag = a > mag ? a : mag;
  }
#pragma unroll
  for (unsigned w = 1; w < kItems; w *= 2) {
#pragma unroll
    for (unsigned i = 0; i + w < kItems; i += 2 * w)
      k[i] = (OP == OP_MIN) == (k[i + w] < k[i]) ? k[i + w] : k[i];
  }
  if (mag > K::kInf) return from_bits<T>(K::kQuietNan);
  return from_bits<T>((typename K::U)float_key<T>((typename K::U)k[0]));
}

// Float Min / Max of a lane's 16 values of a 16-bit float (fold_float_minmax's result, without
// widening them), on the loaded words' bits, two values a word, half by half (an instruction a
// pair, three pairs on sm_90). With its sign clear a float orders as its bits, with its sign
// set in reverse, and every such value is below every one with its sign clear, so three
// reductions of the bits decide: the signed max (the greatest value whose sign is clear, a
// positive NaN's bits above +inf's), the unsigned max (a negative NaN's bits above -inf's; the
// least value when one has its sign set) and, for Max, the unsigned min (the greatest value
// when all have their sign set), for Min the signed min (whether one has). -0.0 orders below
// +0.0. The winner's widening is exact, so the float is the one the widened values give, bit
// for bit. At 2^28 on an H200 (2026-11-30) the widened fold read at 77-78% of a read's speed,
// a fold of order-preserving 16-bit keys (two instructions a word to make them) at 94%, this
// one at 96%, as fast as the Sum (benches/history/2026-11.md "The 16-bit Min and Max on the loaded
// words").
template <int OP, typename T, typename IO>
__device__ __forceinline__ T fold_half_minmax(const void* words) {
  const unsigned kWords = WK_REDUCE_ITEMS_PER_LANE / 2;
  uint32_t smax[kWords], umax[kWords], third[kWords];
  __builtin_memcpy(smax, words, sizeof(smax));
#pragma unroll
  for (unsigned i = 0; i < kWords; ++i) umax[i] = third[i] = smax[i];
#pragma unroll
  for (unsigned w = 1; w < kWords; w *= 2) {
#pragma unroll
    for (unsigned i = 0; i + w < kWords; i += 2 * w) {
      smax[i] = max_s16x2(smax[i], smax[i + w]);
      umax[i] = max_u16x2(umax[i], umax[i + w]);
      third[i] = OP == OP_MAX ? min_u16x2(third[i], third[i + w]) : min_s16x2(third[i], third[i + w]);
    }
  }
  const int32_t s0 = (int16_t)smax[0], s1 = (int16_t)(smax[0] >> 16);
  const uint32_t u0 = umax[0] & 0xffffu, u1 = umax[0] >> 16;
  const int32_t sm = s1 > s0 ? s1 : s0;
  const uint32_t ux = u1 > u0 ? u1 : u0;
  const uint32_t inf = HalfBits<IO>::kInf;
  if (sm > (int32_t)inf || ux > (0x8000u | inf)) return from_bits<T>(FloatKey<T>::kQuietNan);
  IO v;
  if (OP == OP_MAX) {
    const uint32_t t0 = third[0] & 0xffffu, t1 = third[0] >> 16;
    v.bits = (uint16_t)(sm >= 0 ? (uint32_t)sm : t1 < t0 ? t1 : t0);
  } else {
    const int32_t t0 = (int16_t)third[0], t1 = (int16_t)(third[0] >> 16);
    const int32_t least = t1 < t0 ? t1 : t0;
    v.bits = (uint16_t)(least < 0 ? ux : (uint32_t)least);
  }
  return to_acc(v);
}

// f64 Min / Max of a whole tile's lane values by comparisons, when they decide it: without a
// NaN a tree of `<` picks the least (greatest) value, the same bits as fold_float_minmax's
// unless it is a zero (which sign a tie of zeros keeps is the tree's). False (r unset) when a
// value is a NaN or the result a zero; the caller then folds the keys (fold_float_minmax, about
// ten integer instructions a double), which made the f64 Min / Max reduce 1.2x slower than the
// Sum at 2^20 on an H200 (Nsight Compute: 7.9 against 6.5 us a launch). The values are
// consumed, not kept for the keys: the 16 doubles and the trees spilled at 40 registers.
template <int OP>
__device__ __forceinline__ bool fold_f64_compared(const typename Vec<double>::W* buf, double& r) {
  const unsigned kItems = WK_REDUCE_ITEMS_PER_LANE;
  double m[kItems];
#pragma unroll
  for (unsigned c = 0; c < Vec<double>::chunks; ++c)
    __builtin_memcpy(m + c * Vec<double>::V, &buf[c], sizeof(buf[c]));
  bool nan = false;
#pragma unroll
  for (unsigned i = 0; i < kItems; i += 2) nan |= m[i] != m[i] || m[i + 1] != m[i + 1];
#pragma unroll
  for (unsigned w = 1; w < kItems; w *= 2) {
#pragma unroll
    for (unsigned i = 0; i + w < kItems; i += 2 * w)
      m[i] = (OP == OP_MIN) == (m[i + w] < m[i]) ? m[i + w] : m[i];
  }
  r = m[0];
  return !nan && m[0] != 0.0;
}

}  // namespace
}  // namespace WK_NS
