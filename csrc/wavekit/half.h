// The 16-bit floats (docs/SEMANTICS.md "Half precision"): storage types only. A collective that
// takes them loads each value widened to its accumulator type (Elem<T>::Acc, float), combines in
// float in the canonical order, and rounds each result once (to nearest, ties to even), which
// is what Element::to_acc / from_acc do on the host. The conversions are exact integer code
// here, the same on every compiler; an arch layer with the instructions (arch_cuda.h:
// WK_NATIVE_F16_CVT, WK_NATIVE_BF16_CVT) supplies ones that give the same bits for every value
// but a NaN, whose payload may differ (payloads are not compared: docs/SEMANTICS.md
// "Reduction ops").
#pragma once

namespace WK_NS {

struct wk_f16 {
  uint16_t bits;
};
struct wk_bf16 {
  uint16_t bits;
};

namespace half_detail {

__device__ __forceinline__ float f16_to_f32(uint32_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t em = h & 0x7fffu;
  uint32_t bits;
  if (em >= 0x7c00u) {
    bits = sign | 0x7f800000u | ((em & 0x3ffu) << 13);  // inf, or NaN with its payload
  } else if (em >= 0x0400u) {
    bits = sign | ((em << 13) + 0x38000000u);  // exponent rebiased by 127 - 15
  } else {
    // Zero or subnormal: em * 2^-24, exact in float (a normal number there).
    bits = sign | to_bits((float)em * 5.9604644775390625e-8f);
  }
  return from_bits<float>(bits);
}

__device__ __forceinline__ uint16_t f32_to_f16(float f) {
  const uint32_t x = to_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t a = x & 0x7fffffffu;
  if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));  // NaN stays NaN
  // From 65520 up (halfway from 65504, the largest finite, to 2^16, ties to the even 2^16): inf.
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
  uint32_t r, rem, half;
  if (a >= 0x38800000u) {  // a normal result, >= 2^-14
    r = (a - 0x38000000u) >> 13;
    rem = a & 0x1fffu;
    half = 0x1000u;
  } else if (a >= 0x33000000u) {  // a subnormal result: the value in units of 2^-24, rounded
    const uint32_t m = (a & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - (a >> 23);  // 14 .. 24
    r = m >> shift;
    rem = m & ((1u << shift) - 1u);
    half = 1u << (shift - 1u);
  } else {
    return (uint16_t)sign;  // below 2^-25: rounds to zero
  }
  // A carry out of the mantissa moves to the next binade, or from the subnormals to 2^-14.
  return (uint16_t)(sign | (r + (rem > half || (rem == half && (r & 1u)))));
}

__device__ __forceinline__ uint16_t f32_to_bf16(float f) {
  const uint32_t x = to_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);  // quiet NaN
  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

}  // namespace half_detail

template <> struct Elem<wk_f16> {
  typedef uint16_t U;
  typedef float Acc;
  static const bool is_float = true;
};
template <> struct Elem<wk_bf16> {
  typedef uint16_t U;
  typedef float Acc;
  static const bool is_float = true;
};

// The bits of +infinity: above them (sign bit cleared), a NaN.
template <typename T> struct HalfBits;
template <> struct HalfBits<wk_f16> { static const uint32_t kInf = 0x7c00u; };
template <> struct HalfBits<wk_bf16> { static const uint32_t kInf = 0x7f80u; };

// The min and max of two words' halves as signed or unsigned 16-bit integers, for the Min and
// Max of the 16-bit floats on their loaded words, two values an instruction, without widening
// them (device_reduce.cu, fold_half_minmax).
#if defined(WK_NATIVE_16X2_MINMAX)
using arch::max_s16x2;
using arch::max_u16x2;
using arch::min_s16x2;
using arch::min_u16x2;
#else
// Half by half as H (int16_t or uint16_t); halves that compare equal are the same bits.
template <typename H, bool MAX> __device__ __forceinline__ uint32_t pick_16x2(uint32_t a, uint32_t b) {
  const H al = (H)a, bl = (H)b, ah = (H)(a >> 16), bh = (H)(b >> 16);
  const H l = (bl > al) == MAX ? bl : al, h = (bh > ah) == MAX ? bh : ah;
  return (uint32_t)(uint16_t)l | ((uint32_t)(uint16_t)h << 16);
}
__device__ __forceinline__ uint32_t min_s16x2(uint32_t a, uint32_t b) { return pick_16x2<int16_t, false>(a, b); }
__device__ __forceinline__ uint32_t max_s16x2(uint32_t a, uint32_t b) { return pick_16x2<int16_t, true>(a, b); }
__device__ __forceinline__ uint32_t min_u16x2(uint32_t a, uint32_t b) { return pick_16x2<uint16_t, false>(a, b); }
__device__ __forceinline__ uint32_t max_u16x2(uint32_t a, uint32_t b) { return pick_16x2<uint16_t, true>(a, b); }
#endif

// A value widened to its accumulator type, exactly; every other type is its own.
template <typename T> __device__ __forceinline__ T to_acc(T v) { return v; }
__device__ __forceinline__ float to_acc(wk_f16 v) {
#if defined(WK_NATIVE_F16_CVT) && WK_NATIVE_F16_CVT
  return arch::f16_to_f32(v.bits);
#else
  return half_detail::f16_to_f32(v.bits);
#endif
}
__device__ __forceinline__ float to_acc(wk_bf16 v) { return from_bits<float>((uint32_t)v.bits << 16); }

// count_if's, compaction's and partition's predicates on the widened values: the order and
// equality of float (IEEE: -0.0 == +0.0, a NaN satisfies only !=), as the host's half types
// compare. Found by argument-dependent lookup where eval_pred<T> is called.
__device__ __forceinline__ bool eval_pred(uint32_t code, wk_f16 x, wk_f16 a, wk_f16 b) {
  return eval_pred<float>(code, to_acc(x), to_acc(a), to_acc(b));
}
__device__ __forceinline__ bool eval_pred(uint32_t code, wk_bf16 x, wk_bf16 a, wk_bf16 b) {
  return eval_pred<float>(code, to_acc(x), to_acc(a), to_acc(b));
}

// Keys of the runs compare with IEEE == on the widened values, as the host's half types do
// (-0.0 == +0.0; a NaN equals nothing).
__device__ __forceinline__ bool operator==(wk_f16 a, wk_f16 b) { return to_acc(a) == to_acc(b); }
__device__ __forceinline__ bool operator==(wk_bf16 a, wk_bf16 b) { return to_acc(a) == to_acc(b); }

// An accumulator value rounded to the storage type T (to nearest, ties to even).
template <typename T> struct FromAcc {
  static __device__ __forceinline__ T of(T a) { return a; }
};
template <> struct FromAcc<wk_f16> {
  static __device__ __forceinline__ wk_f16 of(float a) {
#if defined(WK_NATIVE_F16_CVT) && WK_NATIVE_F16_CVT
    return wk_f16{arch::f32_to_f16(a)};
#else
    return wk_f16{half_detail::f32_to_f16(a)};
#endif
  }
#if defined(WK_NATIVE_HALF_X2_CVT) && WK_NATIVE_HALF_X2_CVT
  static __device__ __forceinline__ uint32_t pair(float lo, float hi) {
    return arch::f32x2_to_f16x2(lo, hi);
  }
#endif
};
template <> struct FromAcc<wk_bf16> {
  static __device__ __forceinline__ wk_bf16 of(float a) {
#if defined(WK_NATIVE_BF16_CVT) && WK_NATIVE_BF16_CVT
    return wk_bf16{arch::f32_to_bf16(a)};
#else
    return wk_bf16{half_detail::f32_to_bf16(a)};
#endif
  }
#if defined(WK_NATIVE_HALF_X2_CVT) && WK_NATIVE_HALF_X2_CVT
  static __device__ __forceinline__ uint32_t pair(float lo, float hi) {
    return arch::f32x2_to_bf16x2(lo, hi);
  }
#endif
};
template <typename T> __device__ __forceinline__ T from_acc(typename Elem<T>::Acc a) {
  return FromAcc<T>::of(a);
}

// Two accumulator values rounded to a 16-bit IO and packed, lo in the low half (the order of
// a pair in memory): one instruction where the arch has it, else from_acc twice. The compiler
// fused two scalar conversions into one on its own in some loops but not in others.
template <typename IO> __device__ __forceinline__ uint32_t pack_from_acc(float lo, float hi) {
  static_assert(sizeof(IO) == 2, "16-bit floats");
#if defined(WK_NATIVE_HALF_X2_CVT) && WK_NATIVE_HALF_X2_CVT
  return FromAcc<IO>::pair(lo, hi);
#else
  return (uint32_t)from_acc<IO>(lo).bits | ((uint32_t)from_acc<IO>(hi).bits << 16);
#endif
}

}  // namespace WK_NS
