// The CUDA/HIP language on the SIMT executor, for a host compiler: the keywords, thread and
// block indices, __syncthreads, tracked shared memory, atomics, vector types and the launch
// syntax the csrc kernels use directly. Every arch layer the executor runs includes it: the
// executor's own (arch_simt.h) and the HIP runtime shim under which the real arch_hip.h is
// compiled (csrc/simt/amdgcn/hip/hip_runtime.h). Width-agnostic except WK_LAUNCH, which takes
// WK_WARP_SIZE where it is expanded.
#pragma once

#include <stdint.h>
#include <string.h>

#include "executor.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
// Shared memory must be declared with WK_SHARED, WK_SHARED_VAR or WK_DYNAMIC_SHARED (width.h),
// which the executor tracks for races; a bare `__shared__` stops the host build here.
#define __shared__ \
  static_assert(false, "declare shared memory with WK_SHARED/WK_SHARED_VAR/WK_DYNAMIC_SHARED");

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
  dim3(::wk_simt::Dim3 d) : x(d.x), y(d.y), z(d.z) {}
  operator ::wk_simt::Dim3() const { return ::wk_simt::Dim3{x, y, z}; }
};

#define threadIdx (::wk_simt::thread_idx())
#define blockIdx (::wk_simt::block_idx())
#define blockDim (::wk_simt::block_dim())
#define gridDim (::wk_simt::grid_dim())
#define __syncthreads() ::wk_simt::sync_block(::wk_simt::Site{__FILE__, __LINE__})
#define __threadfence() ::wk_simt::fence_block()
#define __threadfence_block() ::wk_simt::fence_block()

// The address of a static per declaration (and per template instantiation) is the key that
// gives every thread of a block the same array.
#define WK_SHARED(T, name, N)                 \
  static const char wk_shared_key_##name = 0; \
  const ::wk_simt::SharedArray<T> name(&wk_shared_key_##name, #name, (size_t)(N))
// Alignment is the compilers' business; the executor moves shared memory item by item.
#define WK_SHARED_ALIGNED(T, name, N, A) WK_SHARED(T, name, N)
#define WK_SHARED_VAR(T, name)                                                           \
  static const char wk_shared_key_##name = 0;                                            \
  const ::wk_simt::SharedRef<T> name(                                                    \
      ::wk_simt::shared_alloc(&wk_shared_key_##name, #name, sizeof(T), 1), 0)
#define WK_DYNAMIC_SHARED(T, name) \
  const ::wk_simt::SharedArray<T> name(::wk_simt::shared_dynamic(#name, sizeof(T)))
#define WK_DYNAMIC_SHARED_ALIGNED(T, name) WK_DYNAMIC_SHARED(T, name)

// CUDA's vector types the kernels load through.
struct __align__(16) uint4 {
  unsigned x, y, z, w;
};
struct __align__(8) uint2 {
  unsigned x, y;
};
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }

inline int __popc(unsigned v) { return __builtin_popcount(v); }
inline int __popcll(unsigned long long v) { return __builtin_popcountll(v); }
inline int __ffs(int v) { return __builtin_ffs(v); }
inline int __ffsll(long long v) { return __builtin_ffsll(v); }
inline int __clz(int v) { return v ? __builtin_clz((unsigned)v) : 32; }
inline int __clzll(long long v) { return v ? __builtin_clzll((unsigned long long)v) : 64; }
template <class T>
inline T __ldg(const T* p) {
  return *p;
}

namespace wk_simt {
namespace atomics {
// Fibers of a launch share one OS thread and switch only at synchronising points, so a
// read-modify-write here is atomic with respect to every other GPU thread of the launch.
template <class T, class F>
WK_SIMT_INDIVISIBLE inline T rmw(T* p, F f) {
  T old;
  memcpy(&old, p, sizeof(T));
  const T v = f(old);
  memcpy(p, &v, sizeof(T));
  return old;
}
template <class T, class F>
inline T rmw(SharedPtr<T> p, F f) {
  T* q = (*p).atomic_target();
  if (!q) {
    T poison;
    memset(&poison, 0xA5, sizeof(T));
    return poison;
  }
  return rmw(q, f);
}
}  // namespace atomics
}  // namespace wk_simt

// atomicAdd and friends on host pointers and on tracked shared memory. A raw pointer may point
// into the raw shared memory of plain CUDA (raw.cpp): the call's line tells it which access
// was atomic.
#define WK_SIMT_ATOMIC_AT const char *wk_file = __builtin_FILE(), int wk_line = __builtin_LINE()
#define WK_SIMT_DEFINE_ATOMIC(name, EXPR)                                             \
  template <class E, class V>                                                         \
  inline E name(E* p, V v, WK_SIMT_ATOMIC_AT) {                                       \
    ::wk_simt::raw_access(p, sizeof(E), ::wk_simt::Access::Atomic,                    \
                          ::wk_simt::Site{wk_file, wk_line});                         \
    return ::wk_simt::atomics::rmw(p, [&](E old) WK_SIMT_INDIVISIBLE {                \
      (void)old;                                                                      \
      const E val = (E)v;                                                             \
      return (E)(EXPR);                                                               \
    });                                                                               \
  }                                                                                   \
  template <class E, class V>                                                         \
  inline E name(::wk_simt::SharedPtr<E> p, V v) {                                     \
    return ::wk_simt::atomics::rmw(p, [&](E old) WK_SIMT_INDIVISIBLE {                \
      (void)old;                                                                      \
      const E val = (E)v;                                                             \
      return (E)(EXPR);                                                               \
    });                                                                               \
  }
WK_SIMT_DEFINE_ATOMIC(atomicAdd, old + val)
WK_SIMT_DEFINE_ATOMIC(atomicSub, old - val)
WK_SIMT_DEFINE_ATOMIC(atomicMax, old < val ? val : old)
WK_SIMT_DEFINE_ATOMIC(atomicMin, val < old ? val : old)
WK_SIMT_DEFINE_ATOMIC(atomicExch, val)
WK_SIMT_DEFINE_ATOMIC(atomicAnd, old & val)
WK_SIMT_DEFINE_ATOMIC(atomicOr, old | val)
WK_SIMT_DEFINE_ATOMIC(atomicXor, old ^ val)
// CUDA's wrapping increment and decrement (unsigned only).
WK_SIMT_DEFINE_ATOMIC(atomicInc, old >= val ? 0 : old + 1)
WK_SIMT_DEFINE_ATOMIC(atomicDec, (old == 0 || old > val) ? val : old - 1)
#undef WK_SIMT_DEFINE_ATOMIC
template <class E, class V, class W>
inline E atomicCAS(E* p, V compare, W val, WK_SIMT_ATOMIC_AT) {
  ::wk_simt::raw_access(p, sizeof(E), ::wk_simt::Access::Atomic, ::wk_simt::Site{wk_file, wk_line});
  return ::wk_simt::atomics::rmw(
      p, [&](E old) WK_SIMT_INDIVISIBLE { return old == (E)compare ? (E)val : old; });
}
template <class E, class V, class W>
inline E atomicCAS(::wk_simt::SharedPtr<E> p, V compare, W val) {
  return ::wk_simt::atomics::rmw(
      p, [&](E old) WK_SIMT_INDIVISIBLE { return old == (E)compare ? (E)val : old; });
}
#undef WK_SIMT_ATOMIC_AT
// The launch syntax: WK_LAUNCH(grid, block, shared_bytes, stream, kernel<...>)(args...). The
// stream is the executor session (backends/simt passes it to every launcher).
#define WK_LAUNCH(grid, block, shmem, stream, ...)                                  \
  ::wk_simt::KernelLaunch<&__VA_ARGS__>(WK_WARP_SIZE, (void*)(stream), dim3(grid), \
                                        dim3(block), (size_t)(shmem))

