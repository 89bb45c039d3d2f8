// spmv's items (included by spmv.cu, after bfly_fold.h): the clamps and shifts of its offsets,
// the group fold over V lanes, a product in the accumulator type and the matrix values' loads.
#pragma once

namespace WK_NS {
namespace {
using namespace prims;

__device__ __forceinline__ uint64_t clamp_offset(uint64_t off, uint64_t nnz) {
  return off < nnz ? off : nnz;
}
__device__ __forceinline__ uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }
__device__ __forceinline__ uint32_t max_u32(uint32_t a, uint32_t b) { return a < b ? b : a; }
__device__ __forceinline__ uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
__device__ __forceinline__ uint64_t max_u64(uint64_t a, uint64_t b) { return a < b ? b : a; }

// log2 of a power of two up to 2^31 (vector sizes and chunks), for shifts in place of
// divisions: under relocatable device code (the build's nvcc --device-c) a 64-bit division is a
// call, which costs registers. The bits below it counted at once; a loop was 4% of the chunk
// kernel's instructions at 2^20 nonzeros.
__device__ __forceinline__ unsigned log2_pow2(uint64_t v) {
  return (unsigned)arch::popc((wk_lanemask_t)((uint32_t)v - 1u));
}

// bfly<OP_SUM> over groups of V lanes (a power of two up to WK_MAX_VECTOR) with the levels
// unrolled: the same combines in the same order (d = V/2 .. 1), without bfly_shuffle's loop on
// a run-time width, which took five instructions a level and 16% of the chunk kernel's at 2^20.
// (32-bit integers over a whole warp keep bfly's hardware reduce.)
template <typename A> __device__ __forceinline__ A group_sum(A v, unsigned V) {
  if constexpr (HasRedux<OP_SUM, A>::value) {
    if (V == WK_WARP_SIZE) return bfly<OP_SUM, A>(WK_FULL_MASK, v, V);
  }
#pragma unroll
  for (unsigned d = WK_MAX_VECTOR / 2; d >= 1; d >>= 1)
    if (d < V) v = Op<OP_SUM, A>::combine(v, shfl_xor(WK_FULL_MASK, v, d, V));
  return v;
}

// A product vals[k] * x[c] in the accumulator type: the 16-bit floats widened first (their
// product is exact in float), every other type as it is.
template <typename T>
__device__ __forceinline__ typename Elem<T>::Acc product(T v, T x) {
  return mul(to_acc(v), to_acc(x));
}

// A matrix value, loaded evict-first where the arch layer has such a load (32 and 64 bits).
template <typename T> __device__ __forceinline__ T load_matrix_value(const T* p) {
  typedef typename Elem<T>::U U;
  if constexpr (sizeof(U) >= 4)
    return from_bits<T>(arch::load_streaming((const U*)p));
  else
    return *p;
}

}  // namespace
}  // namespace WK_NS
