// The device layer's arch interface (see the top of csrc/wavekit/arch_cuda.h) implemented on
// the SIMT executor with CUDA's semantics; the CUDA built-ins the kernels use directly (thread
// and block indices, __syncthreads, shared memory, atomics, launches) come from lang.h.
// Included once per width with WK_WARP_SIZE, wk_lanemask_t, WK_FULL_MASK and WK_NS defined;
// everything width-dependent lives in WK_NS, the width-agnostic core in csrc/simt/executor.h.
#pragma once

#include <stdint.h>
#include <string.h>
#include <time.h>

#include "executor.h"
#include "lang.h"

#define WK_NATIVE_UNI 1
#define WK_NATIVE_MATCH 1
#define WK_NATIVE_SYNCWARP 1
#define WK_NATIVE_ACTIVEMASK 1
#define WK_NATIVE_WARP_REDUX 0

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
// One executor process is one device: "another GPU" is another OS thread's launch.
inline void store_release_system(uint64_t* p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
inline uint64_t load_acquire_system(const uint64_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
inline uint4 load_peer16(const void* p) {
  uint4 v;
  memcpy(&v, p, sizeof v);
  return v;
}
inline uint64_t clock_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
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
inline wk_lanemask_t ballot_agree(wk_lanemask_t mask, uint32_t v, unsigned bit, WK_SIMT_AT) {
  const bool p = (v >> bit) & 1;
  const wk_lanemask_t m = ballot_sync(mask, p, wk_file, wk_line);
  return (wk_lanemask_t)(p ? m : ~m & WK_FULL_MASK);
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

inline void prefetch_l2(const void*) {}
inline void sleep_ns(unsigned) {}
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
