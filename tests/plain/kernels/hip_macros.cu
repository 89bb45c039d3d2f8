// A HIP kernel behind hipcc's predefined macros: the platform, the device pass and the
// wavefront's size, which is the width being run.
#include <hip/hip_runtime.h>

#if defined(__HIP_PLATFORM_AMD__) && defined(__HIP__) && !defined(__CUDACC__)
__global__ void wave(int* out) {
  out[hipThreadIdx_x] = __AMDGCN_WAVEFRONT_SIZE * 10 + (__HIP_DEVICE_COMPILE__ ? 1 : 0) +
                        HIP_VERSION_MAJOR * 1000;
}
#endif
