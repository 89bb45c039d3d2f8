// The one width layer: vendor selection, the warp width of the target being compiled, the
// lane-mask type of that width and its full mask. Kernels and the rest of the layer never spell
// a lane count or an all-lanes mask; they use WK_WARP_SIZE, wk_lanemask_t and WK_FULL_MASK.
#pragma once

// A runtime compile (NVRTC, hipRTC) of a user's kernels: device code only (rtc.h).
#if defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__)
#define WK_RTC 1
#endif

#include "rtc.h"

#if defined(WK_ARCH_HEADER)
// A host build that brings its own arch layer (the SIMT executor): its build script defines
// WK_ARCH_HEADER (the header to include), WK_NS, WK_LAUNCHERS_SYMBOL and WK_WARP_SIZE, so this
// layer names no executor and no directory outside itself.
#define WK_VENDOR_HOST 1
#if !defined(WK_NS) || !defined(WK_LAUNCHERS_SYMBOL) || !defined(WK_WARP_SIZE)
#error "a WK_ARCH_HEADER build also defines WK_NS, WK_LAUNCHERS_SYMBOL and WK_WARP_SIZE"
#endif
#elif defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__) || defined(__HIPCC_RTC__)
#define WK_VENDOR_HIP 1
#define WK_NS wk_hip
#define WK_LAUNCHERS_SYMBOL wk_hip_launchers
#elif defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define WK_VENDOR_CUDA 1
#define WK_NS wk_cuda
#define WK_LAUNCHERS_SYMBOL wk_cuda_launchers
#else
#error "csrc/ is compiled by nvcc (CUDA), hipcc (HIP), or a host build naming WK_ARCH_HEADER"
#endif

// Warp width of the code object being compiled. NVIDIA: always 32. AMD: per code object (64 on
// gfx9/CDNA, 32 or 64 on RDNA); csrc/src/hip.rs passes -DWK_WARP_SIZE per target, else the
// compiler's wavefront macro of the device pass is used. The host pass needs no width: every
// width-dependent decision is taken in device code (kernels check it against the runtime one).
#if defined(WK_VENDOR_CUDA)
#define WK_WARP_SIZE 32
#elif !defined(WK_WARP_SIZE)
#if defined(__AMDGCN_WAVEFRONT_SIZE__)
#define WK_WARP_SIZE __AMDGCN_WAVEFRONT_SIZE__
#elif defined(__AMDGCN_WAVEFRONT_SIZE)
#define WK_WARP_SIZE __AMDGCN_WAVEFRONT_SIZE
#else
#define WK_WARP_SIZE 64
#endif
#endif

#if WK_WARP_SIZE == 64
typedef unsigned long long wk_lanemask_t;
#define WK_FULL_MASK (~0ull)
#elif WK_WARP_SIZE == 32
typedef unsigned int wk_lanemask_t;
#define WK_FULL_MASK (~0u)
#else
#error "WK_WARP_SIZE must be 32 or 64"
#endif

// Lanes of the logical group every float collective's combining tree is defined on, whatever the
// hardware width (crates/core/src/width.rs LOGICAL_GROUP; docs/SEMANTICS.md "Canonical
// combining order").
#define WK_LOGICAL_GROUP 32

// Widest mask any launcher takes from the host (a wave64 mask).
typedef unsigned long long wk_hostmask_t;

#if defined(WK_VENDOR_HOST)
#include WK_ARCH_HEADER
#elif defined(WK_VENDOR_CUDA)
#include "arch_cuda.h"
#else
#include "arch_hip.h"
#endif

// How kernels spell a launch and shared memory, so the same source also builds for the SIMT
// executor, whose arch header defines these itself (tracked shared memory, fiber launches):
//   WK_LAUNCH(grid, block, shared_bytes, stream, kernel<...>)(args...)
#ifndef WK_LAUNCH
#define WK_LAUNCH(grid, block, shmem, stream, ...) __VA_ARGS__<<<grid, block, shmem, stream>>>
#define WK_SHARED(T, name, N) __shared__ T name[N]
// An array whose 16-byte chunks are read and written whole (the executor's WK_SHARED ignores A).
#define WK_SHARED_ALIGNED(T, name, N, A) __shared__ T name[N] __attribute__((aligned(A)))
#define WK_SHARED_VAR(T, name) __shared__ T name
#define WK_DYNAMIC_SHARED(T, name) extern __shared__ T name[]
// The launch's dynamic shared memory as T, 16-byte aligned; declared as uint4 so that kernels
// of different T can share the name (one extern array cannot take two types).
#define WK_DYNAMIC_SHARED_ALIGNED(T, name)     \
  extern __shared__ uint4 wk_dynamic_##name[]; \
  T* const name = reinterpret_cast<T*>(wk_dynamic_##name)
#endif
