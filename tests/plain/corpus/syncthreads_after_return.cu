// `__syncthreads()` after the threads past n returned.
#include "port.h"

__global__ void syncthreads_after_return(const int* in, int* out) {
  __shared__ int buf[128];
  const unsigned tid = threadIdx.x, n = 100;
  if (tid >= n) {
    out[tid] = 0;
    return;
  }
  buf[tid] = in[tid];
  __syncthreads();  // BUG
  out[tid] = buf[n - 1 - tid];
}

__global__ void syncthreads_after_return_fixed(const int* in, int* out) {
  __shared__ int buf[128];
  const unsigned tid = threadIdx.x, n = 100;
  buf[tid] = tid < n ? in[tid] : 0;
  __syncthreads();
  out[tid] = tid < n ? buf[n - 1 - tid] : 0;
}
