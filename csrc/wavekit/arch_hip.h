// HIP (AMD) primitives for the device layer. Included by width.h only, after WK_WARP_SIZE,
// wk_lanemask_t and WK_FULL_MASK are defined. Provides exactly the arch header interface
// documented at the top of arch_cuda.h.
//
// Built for ROCm 5.2 (Debian's hipcc, clang 15): HIP has no *_sync functions, no match
// instruction, no __syncwarp and no __uni. What exists is used directly: ds_bpermute (the
// instruction under HIP's __shfl*), the wave ballot and the lane counter. HIP's own __shfl* are
// not used: __shfl does not reduce the source lane modulo the width, and all of them default
// their width to `warpSize`, a constant this layer must not depend on (it is gone from recent
// ROCm). The wave size is the code object's own (one per --offload-arch), never guessed.
#pragma once

#if !defined(WK_RTC)
#include <hip/hip_runtime.h>
#endif
#include "rtc.h"

// ---- wave size of the code object being compiled ----
// Only the device passes (one per --offload-arch) know the target's wave size; the host pass
// sees the macros of an arbitrary offload target and must not use them (it uses none: launchers
// take wk_hostmask_t and the runtime width from the device attribute).
#if defined(__HIP_DEVICE_COMPILE__)
#if defined(__AMDGCN_WAVEFRONT_SIZE__)
#define WK_HIP_TARGET_WAVE_SIZE __AMDGCN_WAVEFRONT_SIZE__
#elif defined(__AMDGCN_WAVEFRONT_SIZE)
#define WK_HIP_TARGET_WAVE_SIZE __AMDGCN_WAVEFRONT_SIZE
#else
#error "hipcc defines no wavefront-size macro for this target: wavekit cannot size its lane masks"
#endif
static_assert(WK_WARP_SIZE == WK_HIP_TARGET_WAVE_SIZE,
              "WK_WARP_SIZE differs from the wave size of the code object being compiled");
static_assert(sizeof(wk_lanemask_t) * 8 == WK_HIP_TARGET_WAVE_SIZE,
              "a lane mask must hold exactly one bit per lane of the target's wavefront");
static_assert(WK_FULL_MASK == (wk_lanemask_t)~(wk_lanemask_t)0, "full mask names every lane");

// Exported per code object so that tests/hip_code_objects.rs can read, from the built fat
// binary, the lane-mask width each target's device layer was compiled with. Device pass only:
// the host pass must not see it (no host shadow variable, so no duplicate host symbols across
// translation units); every translation unit's code object carries its own copy.
extern "C" __device__ __attribute__((used, visibility("default"))) const unsigned
    wavekit_hip_lanemask_bits = sizeof(wk_lanemask_t) * 8;
#endif

// AMD has none of these natively; prims.h takes them from emulated.h.
#define WK_NATIVE_UNI 0
#define WK_NATIVE_MATCH 0
#define WK_NATIVE_SYNCWARP 0
#define WK_NATIVE_ACTIVEMASK 0
#define WK_NATIVE_WARP_REDUX 0

namespace WK_NS {
namespace arch {

// ---- lane queries ----
__device__ __forceinline__ unsigned lane_id() {
#if WK_WARP_SIZE == 64
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
#else
  return __builtin_amdgcn_mbcnt_lo(~0u, 0u);
#endif
}

// Positional masks, as CUDA's %lanemask_* registers (HIP's __lanemask_lt also ANDs in the
// active lanes, which CUDA's does not). lane < WK_WARP_SIZE, so no shift reaches the type width.
__device__ __forceinline__ wk_lanemask_t lanemask_lt() {
  return ((wk_lanemask_t)1 << lane_id()) - 1;
}
__device__ __forceinline__ wk_lanemask_t lanemask_le() {
  return lanemask_lt() | ((wk_lanemask_t)1 << lane_id());
}
__device__ __forceinline__ wk_lanemask_t lanemask_gt() { return ~lanemask_le(); }
__device__ __forceinline__ wk_lanemask_t lanemask_ge() { return ~lanemask_lt(); }

__device__ __forceinline__ int popc(wk_lanemask_t m) {
#if WK_WARP_SIZE == 64
  return __builtin_popcountll(m);
#else
  return __builtin_popcount(m);
#endif
}
__device__ __forceinline__ int lowest_lane(wk_lanemask_t m) {
#if WK_WARP_SIZE == 64
  return __builtin_ctzll(m);
#else
  return __builtin_ctz(m);
#endif
}

// ---- votes ----
// The ballot of the lanes executing now. clang 15 has no __builtin_amdgcn_ballot_w32/_w64;
// the compare intrinsic under HIP's __ballot returns the wave's mask in 64 bits, zero-extended
// on wave32 targets, so narrowing to wk_lanemask_t loses nothing.
__device__ __forceinline__ wk_lanemask_t ballot_active(bool p) {
  return (wk_lanemask_t)__builtin_amdgcn_uicmp((unsigned)p, 0u, 33 /* ICMP_NE */);
}
// HIP votes run over the lanes that are active, whatever the mask; intersecting with the mask
// makes the result depend on the members' predicates only (docs/SEMANTICS.md "vote"), also
// when non-members happen to execute the call.
__device__ __forceinline__ wk_lanemask_t ballot_sync(wk_lanemask_t mask, bool p) {
  return ballot_active(p) & mask;
}
__device__ __forceinline__ wk_lanemask_t ballot_agree(wk_lanemask_t mask, uint32_t v,
                                                      unsigned bit) {
  const bool p = (v >> bit) & 1;
  const wk_lanemask_t m = ballot_sync(mask, p);
  return p ? m : ~m;
}
__device__ __forceinline__ bool all_sync(wk_lanemask_t mask, bool p) {
  return (ballot_active(!p) & mask) == 0;
}
__device__ __forceinline__ bool any_sync(wk_lanemask_t mask, bool p) {
  return (ballot_active(p) & mask) != 0;
}

// ---- shuffles ----
// ds_bpermute moves 32 bits from lane `src` (the byte address is src * 4). A 64-bit value moves
// as two permutes of its halves from the same source lane. The mask does not take part in data
// movement (as in HIP's own *_sync): reading a lane that is not a member gives an undefined
// value, which the host marks None.
__device__ __forceinline__ uint32_t permute(unsigned src, uint32_t v) {
  return (uint32_t)__builtin_amdgcn_ds_bpermute((int)(src << 2), (int)v);
}
__device__ __forceinline__ uint64_t permute(unsigned src, uint64_t v) {
  uint32_t lo = permute(src, (uint32_t)v);
  uint32_t hi = permute(src, (uint32_t)(v >> 32));
  return (uint64_t)hi << 32 | lo;
}

// Source lanes with CUDA's semantics (docs/SEMANTICS.md "shfl") for any argument: only its low
// log2(warp) bits count, as shfl.sync reads only b[4:0] (ds_bpermute has no such field, so the
// argument is cut here). width is a power of two <= warp, the segment base is
// lane & ~(width - 1), and warp is WK_WARP_SIZE on the device. Also host functions, so that
// tests/hip_lane_math.rs can hold them against wavekit-core's lanes::shfl_source at both widths
// without an AMD GPU.
__host__ __device__ __forceinline__ unsigned src_idx(unsigned lane, unsigned src, unsigned width,
                                                     unsigned warp) {
  return (lane & ~(width - 1u)) + (src & (warp - 1u) & (width - 1u));
}
__host__ __device__ __forceinline__ unsigned src_up(unsigned lane, unsigned delta, unsigned width,
                                                    unsigned warp) {
  delta &= warp - 1u;
  return lane - (lane & ~(width - 1u)) >= delta ? lane - delta : lane;
}
__host__ __device__ __forceinline__ unsigned src_down(unsigned lane, unsigned delta,
                                                      unsigned width, unsigned warp) {
  delta &= warp - 1u;
  return lane - (lane & ~(width - 1u)) + delta < width ? lane + delta : lane;
}
__host__ __device__ __forceinline__ unsigned src_xor(unsigned lane, unsigned lmask,
                                                     unsigned width, unsigned warp) {
  unsigned j = lane ^ (lmask & (warp - 1u));
  return j < (lane & ~(width - 1u)) + width ? j : lane;
}

#define WK_HIP_SHFL(T)                                                                         \
  __device__ __forceinline__ T shfl_idx_sync(wk_lanemask_t, T v, unsigned src,                 \
                                             unsigned width) {                                 \
    return permute(src_idx(lane_id(), src, width, WK_WARP_SIZE), v);                           \
  }                                                                                            \
  __device__ __forceinline__ T shfl_up_sync(wk_lanemask_t, T v, unsigned delta,                \
                                            unsigned width) {                                  \
    return permute(src_up(lane_id(), delta, width, WK_WARP_SIZE), v);                          \
  }                                                                                            \
  __device__ __forceinline__ T shfl_down_sync(wk_lanemask_t, T v, unsigned delta,              \
                                              unsigned width) {                                \
    return permute(src_down(lane_id(), delta, width, WK_WARP_SIZE), v);                        \
  }                                                                                            \
  __device__ __forceinline__ T shfl_xor_sync(wk_lanemask_t, T v, unsigned lmask,               \
                                             unsigned width) {                                 \
    return permute(src_xor(lane_id(), lmask, width, WK_WARP_SIZE), v);                         \
  }
WK_HIP_SHFL(uint32_t)
WK_HIP_SHFL(uint64_t)
#undef WK_HIP_SHFL

// ---- memory fences ----
// emu::syncwarp (emulated.h) is fence_block(), a ballot over the members, fence_block(). On AMD
// that is all __syncwarp needs to be. A wavefront has one program counter: its active lanes
// execute each instruction together, so no member can be "behind" another and no rendezvous
// is needed (there is no independent thread scheduling to wait for). What remains is ordering:
// the compiler must not move a member's LDS store past the call or another member's load
// before it, and the store must have completed before the load reads LDS. The workgroup-scope
// seq_cst fence of __threadfence_block gives both: it is a compiler barrier for memory
// operations and lowers to `s_waitcnt lgkmcnt(0)` (verified in the gfx90a and gfx1030
// disassembly of transpose_kernel: ds_write, s_waitcnt lgkmcnt(0), ds_read). The ballot is a
// convergent operation, so it keeps the members together in control flow; its value is unused
// and the compiler may drop it, which is harmless for the reason above.
// No L2 prefetch instruction is exposed on AMD targets: a hint that does nothing.
__device__ __forceinline__ void prefetch_l2(const void*) {}
// s_sleep would do on AMD what __nanosleep does on CUDA, but the look-back's delay it serves was
// measured on NVIDIA GPUs only: no AMD GPU here to tune it on, so a hint that does nothing.
__device__ __forceinline__ void sleep_ns(unsigned) {}

__device__ __forceinline__ void fence_block() { __threadfence_block(); }
__device__ __forceinline__ void fence_device() { __threadfence(); }

// Another GPU's memory (arch_cuda.h). Clang's __atomic builtins default to the system scope on
// AMDGPU, and its seq_cst fence at that scope writes back what the block wrote before it.
__device__ __forceinline__ void store_release_system(uint64_t* p, uint64_t v) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
}
__device__ __forceinline__ uint64_t load_acquire_system(const uint64_t* p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
// Two system-scope relaxed loads: they skip the per-CU cache, as a peer's data needs.
__device__ __forceinline__ uint4 load_peer16(const void* p) {
  const uint64_t* q = (const uint64_t*)p;
  const uint64_t lo = __atomic_load_n(q, __ATOMIC_RELAXED), hi = __atomic_load_n(q + 1, __ATOMIC_RELAXED);
  return make_uint4((uint32_t)lo, (uint32_t)(lo >> 32), (uint32_t)hi, (uint32_t)(hi >> 32));
}
// s_memrealtime (HIP's wall_clock64, which only the device pass declares) counts at the wall
// clock rate, 100 MHz on every GPU this library targets.
__device__ __forceinline__ uint64_t clock_ns() {
  return (uint64_t)__builtin_amdgcn_s_memrealtime() * 10u;
}

// Streaming loads (arch_cuda.h): the nontemporal hint.
__device__ __forceinline__ uint32_t load_streaming(const uint32_t* p) {
  return __builtin_nontemporal_load(p);
}
__device__ __forceinline__ uint64_t load_streaming(const uint64_t* p) {
  return __builtin_nontemporal_load(p);
}

}  // namespace arch

#if !defined(WK_RTC)  // the host half: launchers and the vendor runtime
namespace host {
typedef hipStream_t stream_t;
inline int launch_error() { return (int)hipGetLastError(); }
inline int memset_async(void* p, int byte, size_t bytes, stream_t s) {
  return (int)hipMemsetAsync(p, byte, bytes, s);
}
inline const char* error_string(int code) { return hipGetErrorString((hipError_t)code); }
inline int device_attribute(hipDeviceAttribute_t a) {
  int dev = 0, v = 0;
  if (hipGetDevice(&dev) != hipSuccess || hipDeviceGetAttribute(&v, a, dev) != hipSuccess) return 0;
  return v;
}
inline unsigned multiprocessors() {
  return (unsigned)device_attribute(hipDeviceAttributeMultiprocessorCount);
}
// AMD has no opt-in beyond the per-block limit (64 KB of LDS on CDNA and RDNA).
inline size_t max_dynamic_shared() {
  return (size_t)device_attribute(hipDeviceAttributeMaxSharedMemoryPerBlock);
}
template <typename K> inline int allow_dynamic_shared(K* kernel, size_t bytes) {
  return (int)hipFuncSetAttribute((const void*)kernel, hipFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)bytes);
}
}  // namespace host
#endif
}  // namespace WK_NS
