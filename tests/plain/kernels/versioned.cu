// Kernels behind nvcc's predefined macros, as CUDA's samples guard them: the version of the
// runtime, the target of the device pass.
#include <cuda_runtime.h>

#if CUDART_VERSION >= 2020
__global__ void scale(const int* in, int* out) { out[threadIdx.x] = 3 * in[threadIdx.x]; }
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
__global__ void arch_new(int* out) { out[threadIdx.x] = 1; }
#else
__global__ void arch_old(int* out) { out[threadIdx.x] = 2; }
#endif

#ifdef __CUDACC__
__global__ void versions(int* out) {
  out[threadIdx.x] = __CUDA_ARCH__ * 100000 + CUDART_VERSION + __CUDACC_VER_MINOR__ -
                     __CUDACC_VER_MAJOR__ * 1000;
}
#endif
