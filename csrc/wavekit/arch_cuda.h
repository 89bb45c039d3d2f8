// Native CUDA primitives for the device layer. Included by width.h only, after WK_WARP_SIZE,
// wk_lanemask_t and WK_FULL_MASK are defined.
//
// ============================ ARCH HEADER INTERFACE (stable) ============================
// Every arch header (arch_cuda.h, arch_hip.h) provides exactly this; nothing else in csrc/ is
// vendor-specific. All device functions are `__device__ __forceinline__` in
// `namespace WK_NS { namespace arch { ... } }`. "mask" is a wk_lanemask_t member mask: the
// caller is in it and every lane named in it makes the same call (like CUDA's *_sync).
//
// Lane queries
//   unsigned      lane_id();                  // lane in the hardware warp, 0..WK_WARP_SIZE-1
//   wk_lanemask_t lanemask_lt(); lanemask_le(); lanemask_gt(); lanemask_ge();
//                                             // lanes below / at-or-below / above / at-or-above
//                                             // the caller, within WK_WARP_SIZE lanes
//   int           popc(wk_lanemask_t m);      // set bits
//   int           lowest_lane(wk_lanemask_t m); // index of the lowest set bit; m != 0
// Votes
//   bool          all_sync(mask, bool p);
//   bool          any_sync(mask, bool p);
//   wk_lanemask_t ballot_sync(mask, bool p);  // bit l for member l with p true
//   wk_lanemask_t ballot_active(bool p);      // ballot over the lanes executing the call now,
//                                             // no mask (HIP __ballot); emulated activemask
//   wk_lanemask_t ballot_agree(mask, uint32_t v, unsigned bit); // the members whose bit `bit`
//                                             // of v is the caller's (lanes outside mask: set
//                                             // where the caller's bit is clear)
// Shuffles, for uint32_t and uint64_t (64-bit values move whole), CUDA semantics exactly as
// docs/SEMANTICS.md "shfl" for any argument, of which only the low log2(WK_WARP_SIZE) bits
// count (width a power of two <= WK_WARP_SIZE; segment base = lane & ~(width-1)):
//   T shfl_idx_sync (mask, T v, unsigned src,   unsigned width); // base + src % width
//   T shfl_up_sync  (mask, T v, unsigned delta, unsigned width); // own value below the segment
//   T shfl_down_sync(mask, T v, unsigned delta, unsigned width); // own value past the segment
//   T shfl_xor_sync (mask, T v, unsigned lmask, unsigned width); // own value if lane^lmask
//                                                                // lies past the segment
// Streaming loads: a global load of data read once, marked to leave the caches first
// (evict-first), so it does not push out data that is read again (an SpMV's x)
//   uint32_t load_streaming(const uint32_t* p); uint64_t load_streaming(const uint64_t* p);
// A hint: bring the line at p into L2 ahead of its use (nothing where the arch has no such hint)
//   void prefetch_l2(const void* p);
// A hint: leave the issue slots to the SM's other warps for about ns nanoseconds (nothing
// where the arch has no such sleep)
//   void sleep_ns(unsigned ns);
// Memory fences
//   void fence_block();                       // __threadfence_block
//   void fence_device();                      // __threadfence
// Another GPU's memory (peer access within one node), for flags and data handed between GPUs:
//   void     store_release_system(uint64_t* p, uint64_t v); // every earlier write of the
//                                             // caller visible to the whole system first
//   uint64_t load_acquire_system(const uint64_t* p);
//   uint4    load_peer16(const void* p);      // 16 aligned bytes, not from a cache level that
//                                             // another GPU's writes do not reach
//   uint64_t clock_ns();                      // a clock in (roughly) nanoseconds, for timeouts
// Native-only primitives: a capability macro (0 or 1) says whether the native one exists; when
// it is 1 the function must be provided. prims.h uses the emulation in emulated.h otherwise.
//   WK_NATIVE_UNI:        bool          uni_sync(mask, bool p);
//   WK_NATIVE_MATCH:      wk_lanemask_t match_any_sync(mask, T v);        // T = uint32/uint64
//                         wk_lanemask_t match_all_sync(mask, T v, bool* pred);
//   WK_NATIVE_SYNCWARP:   void          syncwarp(mask);
//   WK_NATIVE_ACTIVEMASK: wk_lanemask_t activemask();
//   WK_NATIVE_WARP_REDUX: one-instruction reduction of 32-bit integers over the members, every
//                         member gets the result (sm_80+ redux.sync; 0 in the host pass):
//                         T redux_add_sync(mask, T v); redux_min_sync; redux_max_sync  (int32, uint32)
//                         uint32_t redux_and_sync(mask, uint32_t v); redux_or_sync; redux_xor_sync
// Host side, `namespace WK_NS { namespace host { ... } }`, plain (non-device) functions:
//   typedef ... stream_t;                                 // cudaStream_t / hipStream_t
//   int         launch_error();                           // cuda/hipGetLastError as int, 0 = ok
//   int         memset_async(void* p, int byte, size_t bytes, stream_t s);
//   const char* error_string(int code);                   // vendor message for a positive code
//   unsigned    multiprocessors();                        // SMs / CUs of the current device, 0 if
//                                                         // unknown
//   size_t      max_dynamic_shared();                     // most dynamic shared memory one block
//                                                         // may be given (after opting in), bytes
//   int         allow_dynamic_shared(K* kernel, size_t b); // opt `kernel` in to b bytes of it
// ========================================================================================
#pragma once

#if !defined(WK_RTC)
#include <cuda_runtime.h>
#endif

#define WK_NATIVE_UNI 1
#define WK_NATIVE_MATCH 1
#define WK_NATIVE_SYNCWARP 1
#define WK_NATIVE_ACTIVEMASK 1
// The f16 conversions of half.h in one instruction each: the same bits as its integer code,
// but for NaNs, which the rounding makes the canonical NaN 0x7fff (all 2^32 inputs compared on
// an H200, 2026-11-28; NaN payloads are not compared, docs/SEMANTICS.md "Reduction ops").
#define WK_NATIVE_F16_CVT 1
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define WK_NATIVE_WARP_REDUX 1
// half.h's float -> bf16 rounding in one instruction (sm_80's cvt.rn.bf16.f32; the compiler
// fuses pairs into one F2FP): the bits of its integer code for every input but the NaNs, which
// come out as the canonical NaN 0x7fff (all 2^32 inputs compared on an H200, 2026-11-28; NaN
// payloads are not part of the results' contract, docs/SEMANTICS.md "Reduction ops"). The
// bf16 scan at 2^28 ran 1.13x faster with it.
#define WK_NATIVE_BF16_CVT 1
// Two floats rounded to a pair of f16 or bf16 in one instruction (cvt.rn.{f16,bf16}x2.f32): the
// scalar forms' bits in each half (compared over all 2^32 inputs with the same exception).
#define WK_NATIVE_HALF_X2_CVT 1
// ops.h's float Min and Max in one instruction each (min.NaN.f32 / max.NaN.f32: a NaN in gives
// the canonical NaN, -0.0 orders below +0.0): the same value as its compare-and-select code for
// every pair (special values and 2^32 hashed pairs compared on an H200, 2026-11-28, at commit
// 1b135ea: benches/results/minmax-2026-11-28). That code's predicates spilled registers in the
// scan.
#define WK_NATIVE_NAN_MINMAX 1
#else
#define WK_NATIVE_WARP_REDUX 0
#endif
// half.h's min / max of 16-bit halves in one instruction: sm_90's {min,max}.{s,u}16x2 (before
// sm_90 PTX emulates them, so half.h's own code there).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define WK_NATIVE_16X2_MINMAX 1
#endif

namespace WK_NS {
namespace arch {

__device__ __forceinline__ unsigned lane_id() {
  unsigned l;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
  return l;
}

__device__ __forceinline__ wk_lanemask_t lanemask_lt() {
  unsigned m;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}
__device__ __forceinline__ wk_lanemask_t lanemask_le() {
  unsigned m;
  asm("mov.u32 %0, %%lanemask_le;" : "=r"(m));
  return m;
}
__device__ __forceinline__ wk_lanemask_t lanemask_gt() {
  unsigned m;
  asm("mov.u32 %0, %%lanemask_gt;" : "=r"(m));
  return m;
}
__device__ __forceinline__ wk_lanemask_t lanemask_ge() {
  unsigned m;
  asm("mov.u32 %0, %%lanemask_ge;" : "=r"(m));
  return m;
}

__device__ __forceinline__ int popc(wk_lanemask_t m) { return __popc(m); }
__device__ __forceinline__ int lowest_lane(wk_lanemask_t m) { return __ffs(m) - 1; }

__device__ __forceinline__ bool all_sync(wk_lanemask_t mask, bool p) {
  return __all_sync(mask, p) != 0;
}
__device__ __forceinline__ bool any_sync(wk_lanemask_t mask, bool p) {
  return __any_sync(mask, p) != 0;
}
__device__ __forceinline__ wk_lanemask_t ballot_sync(wk_lanemask_t mask, bool p) {
  return __ballot_sync(mask, p);
}
// CUDA has no unsynchronised ballot on sm_70+; the ballot over the lanes executing now is the
// synchronised ballot over __activemask().
__device__ __forceinline__ wk_lanemask_t ballot_active(bool p) {
  return __ballot_sync(__activemask(), p);
}
// One vote and a complement under the bit's own predicate (CUB's MatchAny step): ptxas then
// moves several bits of v into predicates with one instruction, where the C++ form (a ballot,
// then a select on the bit) had each bit extracted twice. The onesweep pass's eight-bit match
// fell from ~48 to ~25 instructions an item (sm_90 SASS, nvcc 13.0).
__device__ __forceinline__ wk_lanemask_t ballot_agree(wk_lanemask_t mask, uint32_t v,
                                                      unsigned bit) {
  wk_lanemask_t m;
  asm("{\n\t.reg .pred p;\n\t.reg .b32 t;\n\tand.b32 t, %1, %2;\n\tsetp.ne.u32 p, t, 0;\n\t"
      "vote.sync.ballot.b32 %0, p, %3;\n\t@!p not.b32 %0, %0;\n\t}"
      : "=r"(m)
      : "r"(v), "r"(1u << bit), "r"(mask));
  return m;
}

#define WK_CUDA_SHFL(T)                                                                        \
  __device__ __forceinline__ T shfl_idx_sync(wk_lanemask_t mask, T v, unsigned src,            \
                                             unsigned width) {                                 \
    return __shfl_sync(mask, v, (int)src, (int)width);                                        \
  }                                                                                            \
  __device__ __forceinline__ T shfl_up_sync(wk_lanemask_t mask, T v, unsigned delta,           \
                                            unsigned width) {                                  \
    return __shfl_up_sync(mask, v, delta, (int)width);                                        \
  }                                                                                            \
  __device__ __forceinline__ T shfl_down_sync(wk_lanemask_t mask, T v, unsigned delta,         \
                                              unsigned width) {                                \
    return __shfl_down_sync(mask, v, delta, (int)width);                                      \
  }                                                                                            \
  __device__ __forceinline__ T shfl_xor_sync(wk_lanemask_t mask, T v, unsigned lmask,          \
                                             unsigned width) {                                 \
    return __shfl_xor_sync(mask, v, (int)lmask, (int)width);                                  \
  }
WK_CUDA_SHFL(uint32_t)
WK_CUDA_SHFL(uint64_t)
#undef WK_CUDA_SHFL

// half.h's f16 <-> float, as cuda_fp16.hpp does them: exact widening, rounding to nearest even
// (a NaN to the canonical NaN).
__device__ __forceinline__ float f16_to_f32(uint16_t h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
__device__ __forceinline__ uint16_t f32_to_f16(float f) {
  uint16_t h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}

#if defined(WK_NATIVE_BF16_CVT)
__device__ __forceinline__ uint16_t f32_to_bf16(float f) {
  uint16_t h;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
#endif
#if defined(WK_NATIVE_HALF_X2_CVT)
// lo in the low half: PTX puts its first source in the high one.
__device__ __forceinline__ uint32_t f32x2_to_f16x2(float lo, float hi) {
  uint32_t d;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
  return d;
}
__device__ __forceinline__ uint32_t f32x2_to_bf16x2(float lo, float hi) {
  uint32_t d;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
  return d;
}
#endif

#if defined(WK_NATIVE_16X2_MINMAX)
#define WK_CUDA_16X2(NAME, INS)                                                                    \
  __device__ __forceinline__ uint32_t NAME(uint32_t a, uint32_t b) {                               \
    uint32_t d;                                                                                    \
    asm(INS " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));                                            \
    return d;                                                                                      \
  }
WK_CUDA_16X2(min_s16x2, "min.s16x2")
WK_CUDA_16X2(max_s16x2, "max.s16x2")
WK_CUDA_16X2(min_u16x2, "min.u16x2")
WK_CUDA_16X2(max_u16x2, "max.u16x2")
#undef WK_CUDA_16X2
#endif

#if defined(WK_NATIVE_NAN_MINMAX)
__device__ __forceinline__ float min_nan(float a, float b) {
  float d;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
}
__device__ __forceinline__ float max_nan(float a, float b) {
  float d;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
}
#endif

__device__ __forceinline__ void prefetch_l2(const void* p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

__device__ __forceinline__ void sleep_ns(unsigned ns) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  __nanosleep(ns);
#else
  (void)ns;
#endif
}

__device__ __forceinline__ void fence_block() { __threadfence_block(); }
__device__ __forceinline__ void fence_device() { __threadfence(); }

// The system-scope fence makes the block's earlier writes (ordered before the caller by a
// __syncthreads) visible to the other GPUs before the flag is.
__device__ __forceinline__ void store_release_system(uint64_t* p, uint64_t v) {
  __threadfence_system();
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ uint64_t load_acquire_system(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ uint4 load_peer16(const void* p) { return __ldcg((const uint4*)p); }
__device__ __forceinline__ uint64_t clock_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ uint32_t load_streaming(const uint32_t* p) {
  uint32_t v;
  asm("ld.global.cs.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ uint64_t load_streaming(const uint64_t* p) {
  uint64_t v;
  asm("ld.global.cs.u64 %0, [%1];" : "=l"(v) : "l"(p));
  return v;
}

__device__ __forceinline__ bool uni_sync(wk_lanemask_t mask, bool p) {
  return __uni_sync(mask, p) != 0;
}
__device__ __forceinline__ wk_lanemask_t match_any_sync(wk_lanemask_t mask, uint32_t v) {
  return __match_any_sync(mask, v);
}
__device__ __forceinline__ wk_lanemask_t match_any_sync(wk_lanemask_t mask, uint64_t v) {
  return __match_any_sync(mask, (unsigned long long)v);
}
__device__ __forceinline__ wk_lanemask_t match_all_sync(wk_lanemask_t mask, uint32_t v,
                                                        bool* pred) {
  int p = 0;
  wk_lanemask_t r = __match_all_sync(mask, v, &p);
  *pred = p != 0;
  return r;
}
__device__ __forceinline__ wk_lanemask_t match_all_sync(wk_lanemask_t mask, uint64_t v,
                                                        bool* pred) {
  int p = 0;
  wk_lanemask_t r = __match_all_sync(mask, (unsigned long long)v, &p);
  *pred = p != 0;
  return r;
}
__device__ __forceinline__ void syncwarp(wk_lanemask_t mask) { __syncwarp(mask); }

#if WK_NATIVE_WARP_REDUX
#define WK_CUDA_REDUX(T)                                                                       \
  __device__ __forceinline__ T redux_add_sync(wk_lanemask_t m, T v) { return __reduce_add_sync(m, v); } \
  __device__ __forceinline__ T redux_min_sync(wk_lanemask_t m, T v) { return __reduce_min_sync(m, v); } \
  __device__ __forceinline__ T redux_max_sync(wk_lanemask_t m, T v) { return __reduce_max_sync(m, v); }
WK_CUDA_REDUX(int32_t)
WK_CUDA_REDUX(uint32_t)
#undef WK_CUDA_REDUX
__device__ __forceinline__ uint32_t redux_and_sync(wk_lanemask_t m, uint32_t v) {
  return __reduce_and_sync(m, v);
}
__device__ __forceinline__ uint32_t redux_or_sync(wk_lanemask_t m, uint32_t v) {
  return __reduce_or_sync(m, v);
}
__device__ __forceinline__ uint32_t redux_xor_sync(wk_lanemask_t m, uint32_t v) {
  return __reduce_xor_sync(m, v);
}
#endif
__device__ __forceinline__ wk_lanemask_t activemask() { return __activemask(); }

}  // namespace arch

#if !defined(WK_RTC)  // the host half: launchers and the vendor runtime
namespace host {
typedef cudaStream_t stream_t;
inline int launch_error() { return (int)cudaGetLastError(); }
inline int memset_async(void* p, int byte, size_t bytes, stream_t s) {
  return (int)cudaMemsetAsync(p, byte, bytes, s);
}
inline const char* error_string(int code) { return cudaGetErrorString((cudaError_t)code); }
inline int device_attribute(cudaDeviceAttr a) {
  int dev = 0, v = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&v, a, dev) != cudaSuccess) return 0;
  return v;
}
inline unsigned multiprocessors() {
  return (unsigned)device_attribute(cudaDevAttrMultiProcessorCount);
}
inline size_t max_dynamic_shared() {
  return (size_t)device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
}
template <typename K> inline int allow_dynamic_shared(K* kernel, size_t bytes) {
  return (int)cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
}
}  // namespace host
#endif
}  // namespace WK_NS
