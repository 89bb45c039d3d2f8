// The CUDA/HIP language of plain sources on the executor, beyond what csrc/simt/lang.h gives
// every executor build (keywords, threadIdx and friends, __syncthreads, atomics, dim3): the
// memory-space keywords of globals, warpSize, HIP's index spellings, the remaining barriers and
// fences, the raw shared declarations the rewriter writes, and the cached loads.
#pragma once

#include <type_traits>

#include "../executor.h"

// Globals in device memory are ordinary globals here.
#define __constant__
#define __managed__
#define __grid_constant__
#define __cudart_builtin__
// nvcc inlines a __forceinline__ function where it can and calls it where it cannot (through a
// pointer: a cg::reduce operator); GCC's always_inline makes such a call an error.
#undef __forceinline__
#define __forceinline__ inline
// nvcc's and hipcc's predefined macros (__CUDACC__, __CUDA_ARCH__, CUDART_VERSION,
// __HIP_PLATFORM_AMD__, __AMDGCN_WAVEFRONT_SIZE, ...) are the wrapper's, of the toolchain
// `wavekit check` is given (csrc/src/plain/cond.rs).
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

// The rewriter replaced every `__shared__` of the file it was given; one that reaches the
// compiler came from a header it did not see.
#undef __shared__
#define __shared__                                                                          \
  static_assert(false, "wavekit check rewrites the __shared__ declarations of the file it " \
                       "checks and of the local headers it includes; this one it did not see");

// The warp size as a value (CUDA's is a variable, HIP's too in recent ROCm): a program that
// asks it gets the executor's width.
static constexpr int warpSize = WK_WARP_SIZE;

// HIP's spellings of the indices.
#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)

#define __threadfence_system() ::wk_simt::fence_block()

namespace wk_plain {

using ::wk_simt::Site;
#define WK_PLAIN_AT const char *wk_file = __builtin_FILE(), int wk_line = __builtin_LINE()
#define WK_PLAIN_SITE (::wk_simt::Site{wk_file, wk_line})

// The unit raw.cpp tracks an array in: its elements when they are scalars, else their
// alignment's bytes (at most 4), so the fields of a struct or vector element are told apart.
template <class E>
constexpr size_t cell_bytes() {
  return std::is_scalar<E>::value ? sizeof(E) : (alignof(E) < 4 ? alignof(E) : 4);
}

// What a rewritten `__shared__ T name...;` binds `name` to: the block's storage of the
// declaration `key` (one static per declaration and template instantiation), of type T.
template <class T>
inline T& shared_var(const void* key, const char* name) {
  using E = typename std::remove_all_extents<T>::type;
  return *static_cast<T*>(::wk_simt::shared_raw(key, name, cell_bytes<E>(), sizeof(T) / cell_bytes<E>()));
}

// What a rewritten `extern __shared__ T name[];` binds `name` to: the launch's dynamic shared
// memory, which every such declaration shares.
template <class T>
inline T& shared_extern(const char* name) {
  using E = typename std::remove_all_extents<T>::type;
  return *static_cast<T*>(::wk_simt::shared_raw_dynamic(name, cell_bytes<E>()));
}

// __syncthreads_count/and/or: a barrier, a count of the predicates in a block-wide counter,
// a barrier, the count read, and a barrier before the counter can be reset for the next call.
// The counter is the executor's and untracked: the barriers order it.
WK_SIMT_INDIVISIBLE inline int block_vote(int p, Site s) {
  static const char key = 0;
  int* count = static_cast<int*>(::wk_simt::shared_raw(&key, "__syncthreads_count", sizeof(int), 1));
  ::wk_simt::sync_block(s);
  if (::wk_simt::thread_idx().x == 0 && ::wk_simt::thread_idx().y == 0 &&
      ::wk_simt::thread_idx().z == 0)
    *count = 0;
  ::wk_simt::sync_block(s);
  if (p) ++*count;
  ::wk_simt::sync_block(s);
  const int n = *count;
  ::wk_simt::sync_block(s);
  return n;
}

}  // namespace wk_plain

inline int __syncthreads_count(int p, WK_PLAIN_AT) { return ::wk_plain::block_vote(p, WK_PLAIN_SITE); }
inline int __syncthreads_and(int p, WK_PLAIN_AT) {
  const ::wk_simt::Dim3 b = ::wk_simt::block_dim();
  return ::wk_plain::block_vote(p, WK_PLAIN_SITE) == (int)(b.x * b.y * b.z);
}
inline int __syncthreads_or(int p, WK_PLAIN_AT) { return ::wk_plain::block_vote(p, WK_PLAIN_SITE) != 0; }

// HIP's dynamic shared memory macro.
#define HIP_DYNAMIC_SHARED(type, var)     \
  typedef type wk_hip_shared_##var[];     \
  wk_hip_shared_##var& var = ::wk_plain::shared_extern<wk_hip_shared_##var>(#var);

// Cached and streaming loads and stores: plain accesses here (no caches to bypass).
template <class T>
inline T __ldcg(const T* p) {
  return *p;
}
template <class T>
inline T __ldca(const T* p) {
  return *p;
}
template <class T>
inline T __ldcs(const T* p) {
  return *p;
}
template <class T>
inline T __ldlu(const T* p) {
  return *p;
}
template <class T>
inline T __ldcv(const T* p) {
  return *p;
}
template <class T>
inline void __stcg(T* p, T v) {
  *p = v;
}
template <class T>
inline void __stcs(T* p, T v) {
  *p = v;
}
template <class T>
inline void __stwb(T* p, T v) {
  *p = v;
}
template <class T>
inline void __stwt(T* p, T v) {
  *p = v;
}

// The variants of the atomics by scope are the same operation on the executor.
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicSub_block atomicSub
#define atomicSub_system atomicSub
#define atomicExch_block atomicExch
#define atomicExch_system atomicExch
#define atomicMin_block atomicMin
#define atomicMin_system atomicMin
#define atomicMax_block atomicMax
#define atomicMax_system atomicMax
#define atomicAnd_block atomicAnd
#define atomicAnd_system atomicAnd
#define atomicOr_block atomicOr
#define atomicOr_system atomicOr
#define atomicXor_block atomicXor
#define atomicXor_system atomicXor
#define atomicCAS_block atomicCAS
#define atomicCAS_system atomicCAS
#define atomicInc_block atomicInc
#define atomicDec_block atomicDec

// Clocks and sleeps: a thread's view of time is its own here.
inline long long clock64() { return 0; }
inline long long wall_clock64() { return 0; }
inline void __nanosleep(unsigned) {}
