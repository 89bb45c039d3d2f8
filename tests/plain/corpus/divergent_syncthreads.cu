// `__syncthreads()` in `if (tid < blockDim.x / 2)`: half the block never reaches it.
#include "port.h"

__global__ void divergent_syncthreads(const int* in, int* out) {
  __shared__ int buf[128];
  const unsigned tid = threadIdx.x;
  buf[tid] = in[tid];
  if (tid < blockDim.x / 2) __syncthreads();  // BUG
  out[tid] = buf[127 - tid];
}

__global__ void divergent_syncthreads_fixed(const int* in, int* out) {
  __shared__ int buf[128];
  const unsigned tid = threadIdx.x;
  buf[tid] = in[tid];
  __syncthreads();
  out[tid] = buf[127 - tid];
}
