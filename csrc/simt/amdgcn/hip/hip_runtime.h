// <hip/hip_runtime.h> for the SIMT executor's hip flavour: what the unmodified arch_hip.h and
// the kernels need from HIP, implemented on the executor, so the AMD code path itself runs on
// the CPU. The CUDA/HIP language (keywords, indices, __syncthreads, shared memory, atomics,
// launches) is the executor's lang.h; the AMDGCN builtins are amdgcn.h. Only this flavour's
// build puts csrc/simt/amdgcn on the include path (csrc/src/simt.rs).
#pragma once

#include <stddef.h>
#include <string.h>

#include "../amdgcn.h"
#include "../../lang.h"

#if !(defined(__has_attribute) && __has_attribute(no_sanitize_coverage))
#error "the hip flavour needs no_sanitize_coverage (GCC 12 or later) to keep atomics indivisible"
#endif

// The stream is the executor session, as for arch_simt.h.
typedef struct wk_simt_hip_stream* hipStream_t;

// Error codes are the executor's launch codes (capi.h); 0 is success, as in HIP.
enum hipError_t : int { hipSuccess = 0 };

inline hipError_t hipGetLastError() { return (hipError_t)::wk_simt::take_launch_error(); }
inline const char* hipGetErrorString(hipError_t e) { return ::wk_simt::error_string((int)e); }
// Launches run to completion when made, so "async" work on the stream is done at once.
inline hipError_t hipMemsetAsync(void* p, int value, size_t bytes, hipStream_t) {
  memset(p, value, bytes);
  return hipSuccess;
}

// Device attributes of the executor's small device (as arch_simt.h's host::multiprocessors and
// max_dynamic_shared), so the launchers that size by them take the same paths in both flavours.
enum hipDeviceAttribute_t : int {
  hipDeviceAttributeMultiprocessorCount,
  hipDeviceAttributeMaxSharedMemoryPerBlock,
};
inline hipError_t hipGetDevice(int* dev) {
  *dev = 0;
  return hipSuccess;
}
inline hipError_t hipDeviceGetAttribute(int* v, hipDeviceAttribute_t a, int) {
  *v = a == hipDeviceAttributeMultiprocessorCount ? 8 : 16384;
  return hipSuccess;
}
enum hipFuncAttribute : int { hipFuncAttributeMaxDynamicSharedMemorySize };
// Nothing to opt in to: the executor's shared memory is sized per launch.
inline hipError_t hipFuncSetAttribute(const void*, hipFuncAttribute, int) { return hipSuccess; }
