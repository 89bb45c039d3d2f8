// Host-only shim compiled against the installed HIP headers (csrc/src/hip.rs). The HIP enums'
// values and hipDeviceProp_t's layout belong to the ROCm release; taking them from its headers
// here keeps backends/hip/src/sys.rs free of copied numbers that a different ROCm could change.
#include <hip/hip_runtime_api.h>

#include <string.h>

static_assert(sizeof(hipError_t) == sizeof(int), "hipError_t crosses the FFI as a C int");
static_assert(sizeof(hipStream_t) == sizeof(void*), "hipStream_t crosses the FFI as a pointer");
static_assert(sizeof(hipDeviceAttribute_t) == sizeof(int), "attributes cross as a C int");
static_assert(sizeof(hipMemcpyKind) == sizeof(int), "copy kinds cross as a C int");

// `extern` because a namespace-scope const otherwise has internal linkage in C++.
extern "C" {

extern const int wk_hip_abi_success = hipSuccess;
extern const int wk_hip_abi_error_no_device = hipErrorNoDevice;
extern const int wk_hip_abi_error_invalid_device = hipErrorInvalidDevice;
extern const int wk_hip_abi_error_out_of_memory = hipErrorOutOfMemory;
extern const int wk_hip_abi_attr_warp_size = hipDeviceAttributeWarpSize;
extern const int wk_hip_abi_attr_multiprocessors = hipDeviceAttributeMultiprocessorCount;
extern const int wk_hip_abi_memcpy_htod = hipMemcpyHostToDevice;
extern const int wk_hip_abi_memcpy_dtoh = hipMemcpyDeviceToHost;
extern const int wk_hip_abi_memcpy_dtod = hipMemcpyDeviceToDevice;
extern const unsigned wk_hip_abi_stream_default = hipStreamDefault;

// The device's GCN target name (e.g. "gfx90a:sramecc+:xnack-"), NUL-terminated in `out`.
// hipDeviceAttribute_t has no arch-name entry in ROCm 5.2, and hipDeviceProp_t's layout (and in
// ROCm 6 the function's name) depends on the release, so the copy is made here.
int wk_hip_device_arch_name(int device, char* out, size_t len) {
  if (out == nullptr || len == 0) return (int)hipErrorInvalidValue;
  hipDeviceProp_t prop;
  hipError_t err = hipGetDeviceProperties(&prop, device);
  if (err != hipSuccess) return (int)err;
  size_t n = strnlen(prop.gcnArchName, sizeof(prop.gcnArchName));
  if (n >= len) n = len - 1;
  memcpy(out, prop.gcnArchName, n);
  out[n] = '\0';
  return (int)hipSuccess;
}

// What a kernel of a runtime-compiled module may be launched with on `device`: out[0] its
// threads per block, out[1..4] the block dimensions, out[4..7] the grid dimensions, out[7] its
// dynamic shared memory in bytes (wavekit::hip::rtc). The attribute enums are the release's.
int wk_hip_function_limits(hipFunction_t f, int device, long long* out) {
  if (out == nullptr) return (int)hipErrorInvalidValue;
  int v = 0;
  hipError_t err = hipFuncGetAttribute(&v, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
  if (err != hipSuccess) return (int)err;
  out[0] = v;
  const hipDeviceAttribute_t dims[6] = {
      hipDeviceAttributeMaxBlockDimX, hipDeviceAttributeMaxBlockDimY,
      hipDeviceAttributeMaxBlockDimZ, hipDeviceAttributeMaxGridDimX,
      hipDeviceAttributeMaxGridDimY,  hipDeviceAttributeMaxGridDimZ};
  for (int i = 0; i < 6; ++i) {
    err = hipDeviceGetAttribute(&v, dims[i], device);
    if (err != hipSuccess) return (int)err;
    out[1 + i] = v;
  }
  // The block's shared memory less what the kernel declares statically.
  int statics = 0;
  err = hipFuncGetAttribute(&statics, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
  if (err != hipSuccess) return (int)err;
  err = hipDeviceGetAttribute(&v, hipDeviceAttributeMaxSharedMemoryPerBlock, device);
  if (err != hipSuccess) return (int)err;
  out[7] = v > statics ? v - statics : 0;
  return (int)hipSuccess;
}

}  // extern "C"
