// Element types and reduction ops exactly as crates/core/src/element.rs: integers wrap
// (computed in unsigned arithmetic, so no signed-overflow UB); float Min/Max propagate NaN and
// order -0.0 below +0.0; float Sum's identity is -0.0. Kernels are built with contraction off, so `a + b`
// and `a * b` are single IEEE operations.
#pragma once

#include "width.h"

namespace WK_NS {

enum ElemCode : uint32_t {
  DT_I32 = 0, DT_U32 = 1, DT_I64 = 2, DT_U64 = 3, DT_F32 = 4, DT_F64 = 5, DT_F16 = 6, DT_BF16 = 7
};
enum OpCode : int { OP_SUM = 0, OP_PRODUCT = 1, OP_MIN = 2, OP_MAX = 3, OP_AND = 4, OP_OR = 5, OP_XOR = 6 };

template <typename T> struct Elem;
// U: the bits; Acc: the type arithmetic runs in (itself, but float for the 16-bit floats of
// half.h).
template <> struct Elem<int32_t> { typedef uint32_t U; typedef int32_t Acc; static const bool is_float = false; };
template <> struct Elem<uint32_t> { typedef uint32_t U; typedef uint32_t Acc; static const bool is_float = false; };
template <> struct Elem<int64_t> { typedef uint64_t U; typedef int64_t Acc; static const bool is_float = false; };
template <> struct Elem<uint64_t> { typedef uint64_t U; typedef uint64_t Acc; static const bool is_float = false; };
template <> struct Elem<float> { typedef uint32_t U; typedef float Acc; static const bool is_float = true; };
template <> struct Elem<double> { typedef uint64_t U; typedef double Acc; static const bool is_float = true; };

template <typename T>
__host__ __device__ __forceinline__ typename Elem<T>::U to_bits(T v) {
#if defined(WK_RTC_UNION_BITCAST)
  union { T t; typename Elem<T>::U u; } b;
  b.t = v;
  return b.u;
#else
  typename Elem<T>::U u;
  __builtin_memcpy(&u, &v, sizeof(T));
  return u;
#endif
}
template <typename T>
__host__ __device__ __forceinline__ T from_bits(typename Elem<T>::U u) {
#if defined(WK_RTC_UNION_BITCAST)
  union { typename Elem<T>::U u; T t; } b;
  b.u = u;
  return b.t;
#else
  T v;
  __builtin_memcpy(&v, &u, sizeof(T));
  return v;
#endif
}

template <typename T> __device__ __forceinline__ bool sign_bit(T v) {
  return (to_bits(v) >> (sizeof(T) * 8 - 1)) != 0;
}

template <int OP, typename T> struct Op;

// ---- integers ----
template <typename T> __device__ __forceinline__ T int_max() {
  typedef typename Elem<T>::U U;
  return (T)(T(-1) < T(0) ? (U)(~(U)0 >> 1) : ~(U)0);
}
template <typename T> __device__ __forceinline__ T int_min() {
  typedef typename Elem<T>::U U;
  return (T)(T(-1) < T(0) ? (U)(~(~(U)0 >> 1)) : (U)0);
}

#define WK_INT_OP(OPC, IDENT, EXPR)                                                           \
  template <typename T> struct IntOp##OPC {                                                   \
    static __device__ __forceinline__ T identity() { return IDENT; }                          \
    static __device__ __forceinline__ T combine(T a, T b) {                                   \
      typedef typename Elem<T>::U U;                                                          \
      (void)sizeof(U);                                                                        \
      return EXPR;                                                                            \
    }                                                                                         \
  };
WK_INT_OP(0, T(0), (T)((U)a + (U)b))
WK_INT_OP(1, T(1), (T)((U)a * (U)b))
WK_INT_OP(2, int_max<T>(), (b < a ? b : a))
WK_INT_OP(3, int_min<T>(), (a < b ? b : a))
WK_INT_OP(4, (T)(~(typename Elem<T>::U)0), (T)((U)a & (U)b))
WK_INT_OP(5, T(0), (T)((U)a | (U)b))
WK_INT_OP(6, T(0), (T)((U)a ^ (U)b))
#undef WK_INT_OP

// ---- floats ----
template <typename T> __device__ __forceinline__ T float_inf() {
  return sizeof(T) == 4 ? (T)from_bits<float>(0x7f800000u) : (T)from_bits<double>(0x7ff0000000000000ull);
}
template <typename T> struct FloatOp0 {
  static __device__ __forceinline__ T identity() { return -T(0); }
  static __device__ __forceinline__ T combine(T a, T b) { return a + b; }
};
template <typename T> struct FloatOp1 {
  static __device__ __forceinline__ T identity() { return T(1); }
  static __device__ __forceinline__ T combine(T a, T b) { return a * b; }
};
// Min and Max: a NaN propagates, -0.0 orders below +0.0.
template <typename T> __device__ __forceinline__ T float_min(T a, T b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a < b) return a;
  if (b < a) return b;
  return sign_bit(a) ? a : b;
}
template <typename T> __device__ __forceinline__ T float_max(T a, T b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a > b) return a;
  if (b > a) return b;
  return sign_bit(a) ? b : a;
}
#if defined(WK_NATIVE_NAN_MINMAX)
template <> __device__ __forceinline__ float float_min(float a, float b) { return arch::min_nan(a, b); }
template <> __device__ __forceinline__ float float_max(float a, float b) { return arch::max_nan(a, b); }
#endif
template <typename T> struct FloatOp2 {
  static __device__ __forceinline__ T identity() { return float_inf<T>(); }
  static __device__ __forceinline__ T combine(T a, T b) { return float_min(a, b); }
};
template <typename T> struct FloatOp3 {
  static __device__ __forceinline__ T identity() { return -float_inf<T>(); }
  static __device__ __forceinline__ T combine(T a, T b) { return float_max(a, b); }
};

template <int OP, typename T, bool F = Elem<T>::is_float> struct OpSel;
#define WK_OP_SEL(OPC)                                                                        \
  template <typename T> struct OpSel<OPC, T, false> : IntOp##OPC<T> {};
WK_OP_SEL(0) WK_OP_SEL(1) WK_OP_SEL(2) WK_OP_SEL(3) WK_OP_SEL(4) WK_OP_SEL(5) WK_OP_SEL(6)
#undef WK_OP_SEL
template <typename T> struct OpSel<0, T, true> : FloatOp0<T> {};
template <typename T> struct OpSel<1, T, true> : FloatOp1<T> {};
template <typename T> struct OpSel<2, T, true> : FloatOp2<T> {};
template <typename T> struct OpSel<3, T, true> : FloatOp3<T> {};
// Bitwise ops on floats are refused on the host (UnsupportedOp) and never instantiated.

template <int OP, typename T> struct Op : OpSel<OP, T> {};

// Ops whose result does not depend on the order of combining, bit for bit: every integer op
// (wrapping arithmetic, min, max, bitwise) and float Min/Max (a selection in a total order; only
// a NaN's payload could differ, and payloads are not compared). Float Sum and Product are not.
template <int OP, typename T> struct OrderFree {
  static const bool value = !Elem<T>::is_float || OP == OP_MIN || OP == OP_MAX;
};

// The SpMV product: wrapping for integers, one IEEE multiply for floats.
template <typename T> __device__ __forceinline__ T mul(T a, T b) {
  if (Elem<T>::is_float) return a * b;
  typedef typename Elem<T>::U U;
  return (T)((U)a * (U)b);
}

// count_if / compact predicates as Predicate::encode(): IEEE comparisons (NaN satisfies only Ne).
template <typename T> __device__ __forceinline__ bool eval_pred(uint32_t code, T x, T a, T b) {
  switch (code) {
    case 0: return x < a;
    case 1: return x <= a;
    case 2: return x > a;
    case 3: return x >= a;
    case 4: return x == a;
    case 5: return x != a;
    case 6: return a <= x && x < b;
    default: return false;
  }
}

// A predicate code fixed at compile time. A kernel that tests every item of an unrolled loop
// calls with_pred once and the loop holds one comparison an item; with the code as an argument
// the switch stayed inside the loop (partition and compaction are bound by issue, not memory).
template <uint32_t CODE> struct PredCode {
  template <typename T> __device__ __forceinline__ bool operator()(T x, T a, T b) const {
    return eval_pred(CODE, x, a, b);
  }
};
// f(PredCode<code>()); a code past 6 (refused by every launcher) tests false, as eval_pred's.
template <typename F> __device__ __forceinline__ void with_pred(uint32_t code, F&& f) {
  switch (code) {
    case 0: f(PredCode<0>()); break;
    case 1: f(PredCode<1>()); break;
    case 2: f(PredCode<2>()); break;
    case 3: f(PredCode<3>()); break;
    case 4: f(PredCode<4>()); break;
    case 5: f(PredCode<5>()); break;
    case 6: f(PredCode<6>()); break;
    default: f(PredCode<7>()); break;
  }
}

}  // namespace WK_NS

#include "half.h"
