// The device layer's arch interface (see the top of csrc/wavekit/arch_cuda.h) implemented on
// the SIMT executor, plus the CUDA built-ins the kernels use directly (thread and block indices,
// __syncthreads, shared memory, atomics, launches), so the csrc kernels compile for the host.
// Included once per width with WK_WARP_SIZE, wk_lanemask_t, WK_FULL_MASK and WK_NS defined;
// everything width-dependent lives in WK_NS, the width-agnostic core in csrc/simt/executor.h.
#pragma once

#include <stdint.h>
#include <string.h>

#include "executor.h"

#define WK_NATIVE_UNI 1
#define WK_NATIVE_MATCH 1
#define WK_NATIVE_SYNCWARP 1
#define WK_NATIVE_ACTIVEMASK 1
#define WK_NATIVE_WARP_REDUX 0

// ---- CUDA keywords and built-ins, for a host compiler ----
#ifndef WK_SIMT_BUILTINS
#define WK_SIMT_BUILTINS 1
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
#define WK_SHARED_VAR(T, name)                                                           \
  static const char wk_shared_key_##name = 0;                                            \
  const ::wk_simt::SharedRef<T> name(                                                    \
      ::wk_simt::shared_alloc(&wk_shared_key_##name, #name, sizeof(T), 1), 0)
#define WK_DYNAMIC_SHARED(T, name) \
  const ::wk_simt::SharedArray<T> name(::wk_simt::shared_dynamic(#name, sizeof(T)))

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
inline T rmw(T* p, F f) {
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

// atomicAdd and friends on host pointers and on tracked shared memory.
#define WK_SIMT_DEFINE_ATOMIC(name, EXPR)                 \
  template <class E, class V>                             \
  inline E name(E* p, V v) {                              \
    return ::wk_simt::atomics::rmw(p, [&](E old) {        \
      (void)old;                                          \
      const E val = (E)v;                                 \
      return (E)(EXPR);                                   \
    });                                                   \
  }                                                       \
  template <class E, class V>                             \
  inline E name(::wk_simt::SharedPtr<E> p, V v) {         \
    return ::wk_simt::atomics::rmw(p, [&](E old) {        \
      (void)old;                                          \
      const E val = (E)v;                                 \
      return (E)(EXPR);                                   \
    });                                                   \
  }
WK_SIMT_DEFINE_ATOMIC(atomicAdd, old + val)
WK_SIMT_DEFINE_ATOMIC(atomicSub, old - val)
WK_SIMT_DEFINE_ATOMIC(atomicMax, old < val ? val : old)
WK_SIMT_DEFINE_ATOMIC(atomicMin, val < old ? val : old)
WK_SIMT_DEFINE_ATOMIC(atomicExch, val)
WK_SIMT_DEFINE_ATOMIC(atomicAnd, old & val)
WK_SIMT_DEFINE_ATOMIC(atomicOr, old | val)
WK_SIMT_DEFINE_ATOMIC(atomicXor, old ^ val)
#undef WK_SIMT_DEFINE_ATOMIC
template <class E, class V, class W>
inline E atomicCAS(E* p, V compare, W val) {
  return ::wk_simt::atomics::rmw(p, [&](E old) { return old == (E)compare ? (E)val : old; });
}
template <class E, class V, class W>
inline E atomicCAS(::wk_simt::SharedPtr<E> p, V compare, W val) {
  return ::wk_simt::atomics::rmw(p, [&](E old) { return old == (E)compare ? (E)val : old; });
}
#endif  // WK_SIMT_BUILTINS

// The launch syntax: WK_LAUNCH(grid, block, shared_bytes, stream, kernel<...>)(args...). The
// stream is the executor session (backends/simt passes it to every launcher).
#define WK_LAUNCH(grid, block, shmem, stream, ...)                                  \
  ::wk_simt::KernelLaunch<&__VA_ARGS__>(WK_WARP_SIZE, (void*)(stream), dim3(grid), \
                                        dim3(block), (size_t)(shmem))

// The caller's file and line, as default arguments (GCC evaluates __builtin_FILE/LINE there at
// the call), name the collective in reports and tell apart collectives at different calls.
#define WK_SIMT_AT const char *wk_file = __builtin_FILE(), int wk_line = __builtin_LINE()
#define WK_SIMT_SITE (::wk_simt::Site{wk_file, wk_line})

namespace WK_NS {
namespace arch {

inline unsigned lane_id() { return ::wk_simt::lane_id(); }
inline wk_lanemask_t lanemask_lt() { return (wk_lanemask_t)((1ull << lane_id()) - 1); }
inline wk_lanemask_t lanemask_le() { return (wk_lanemask_t)(lanemask_lt() | (1ull << lane_id())); }
inline wk_lanemask_t lanemask_gt() { return (wk_lanemask_t)(~lanemask_le() & WK_FULL_MASK); }
inline wk_lanemask_t lanemask_ge() { return (wk_lanemask_t)(~lanemask_lt() & WK_FULL_MASK); }
inline int popc(wk_lanemask_t m) { return __builtin_popcountll((unsigned long long)m); }
inline int lowest_lane(wk_lanemask_t m) { return __builtin_ctzll((unsigned long long)m); }

inline ::wk_simt::WarpResult op(::wk_simt::Op o, wk_lanemask_t mask, uint64_t v, unsigned bytes,
                                unsigned arg, unsigned width, ::wk_simt::Site s) {
  return ::wk_simt::warp_op(o, (uint64_t)mask, v, bytes, arg, width, s);
}

// Streaming loads: no caches to keep anything out of.
inline uint32_t load_streaming(const uint32_t* p) { return *p; }
inline uint64_t load_streaming(const uint64_t* p) { return *p; }

inline bool all_sync(wk_lanemask_t mask, bool p, WK_SIMT_AT) {
  return op(::wk_simt::Op::All, mask, p, 0, 0, 0, WK_SIMT_SITE).value != 0;
}
inline bool any_sync(wk_lanemask_t mask, bool p, WK_SIMT_AT) {
  return op(::wk_simt::Op::Any, mask, p, 0, 0, 0, WK_SIMT_SITE).value != 0;
}
inline bool uni_sync(wk_lanemask_t mask, bool p, WK_SIMT_AT) {
  return op(::wk_simt::Op::Uni, mask, p, 0, 0, 0, WK_SIMT_SITE).value != 0;
}
inline wk_lanemask_t ballot_sync(wk_lanemask_t mask, bool p, WK_SIMT_AT) {
  return (wk_lanemask_t)op(::wk_simt::Op::Ballot, mask, p, 0, 0, 0, WK_SIMT_SITE).value;
}
inline wk_lanemask_t ballot_active(bool p, WK_SIMT_AT) {
  return (wk_lanemask_t)op(::wk_simt::Op::BallotActive, 0, p, 0, 0, 0, WK_SIMT_SITE).value;
}
inline wk_lanemask_t activemask(WK_SIMT_AT) {
  return (wk_lanemask_t)op(::wk_simt::Op::ActiveMask, 0, 0, 0, 0, 0, WK_SIMT_SITE).value;
}
inline void syncwarp(wk_lanemask_t mask, WK_SIMT_AT) {
  op(::wk_simt::Op::SyncWarp, mask, 0, 0, 0, 0, WK_SIMT_SITE);
}

#define WK_SIMT_SHFL(T)                                                                    \
  inline T shfl_idx_sync(wk_lanemask_t mask, T v, unsigned src, unsigned width, WK_SIMT_AT) { \
    return (T)op(::wk_simt::Op::ShflIdx, mask, v, sizeof(T), src, width, WK_SIMT_SITE)       \
        .value;                                                                            \
  }                                                                                        \
  inline T shfl_up_sync(wk_lanemask_t mask, T v, unsigned d, unsigned width, WK_SIMT_AT) {   \
    return (T)op(::wk_simt::Op::ShflUp, mask, v, sizeof(T), d, width, WK_SIMT_SITE).value;   \
  }                                                                                        \
  inline T shfl_down_sync(wk_lanemask_t mask, T v, unsigned d, unsigned width, WK_SIMT_AT) { \
    return (T)op(::wk_simt::Op::ShflDown, mask, v, sizeof(T), d, width, WK_SIMT_SITE).value; \
  }                                                                                        \
  inline T shfl_xor_sync(wk_lanemask_t mask, T v, unsigned m, unsigned width, WK_SIMT_AT) {  \
    return (T)op(::wk_simt::Op::ShflXor, mask, v, sizeof(T), m, width, WK_SIMT_SITE).value;  \
  }                                                                                        \
  inline wk_lanemask_t match_any_sync(wk_lanemask_t mask, T v, WK_SIMT_AT) {                 \
    return (wk_lanemask_t)op(::wk_simt::Op::MatchAny, mask, v, sizeof(T), 0, 0, WK_SIMT_SITE) \
        .value;                                                                            \
  }                                                                                        \
  inline wk_lanemask_t match_all_sync(wk_lanemask_t mask, T v, bool* pred, WK_SIMT_AT) {     \
    const ::wk_simt::WarpResult r =                                                        \
        op(::wk_simt::Op::MatchAll, mask, v, sizeof(T), 0, 0, WK_SIMT_SITE);               \
    *pred = r.pred;                                                                        \
    return (wk_lanemask_t)r.value;                                                         \
  }
WK_SIMT_SHFL(uint32_t)
WK_SIMT_SHFL(uint64_t)
#undef WK_SIMT_SHFL

inline void fence_block() { ::wk_simt::fence_block(); }
inline void fence_device() { ::wk_simt::fence_block(); }

}  // namespace arch

namespace host {
typedef void* stream_t;
inline int launch_error() { return ::wk_simt::take_launch_error(); }
inline int memset_async(void* p, int byte, size_t bytes, stream_t) {
  memset(p, byte, bytes);
  return 0;
}
inline const char* error_string(int code) { return ::wk_simt::error_string(code); }
// A small device: eight multiprocessors and 16 KB of dynamic shared memory a block, so launchers
// that size by these (the sliced histogram) take their many-block, many-slice paths on inputs
// the executor runs in moments.
inline unsigned multiprocessors() { return 8; }
inline size_t max_dynamic_shared() { return 16384; }
template <typename K> inline int allow_dynamic_shared(K*, size_t) { return 0; }
}  // namespace host
}  // namespace WK_NS
