// A barrier inside a block-strided loop over n items: the threads past the last item leave the
// loop one round early.
#include "port.h"

__global__ void syncthreads_in_strided_loop(const int* in, int* out) {
  __shared__ int tile[128];
  const unsigned tid = threadIdx.x, n = 300;
  int acc = 0;
  for (unsigned i = tid; i < n; i += blockDim.x) {
    tile[tid] = in[i];
    __syncthreads();  // BUG
    acc += tile[(tid + 1) % blockDim.x];
    __syncthreads();
  }
  out[tid] = acc;
}

__global__ void syncthreads_in_strided_loop_fixed(const int* in, int* out) {
  __shared__ int tile[128];
  const unsigned tid = threadIdx.x, n = 300;
  const unsigned end = (n + blockDim.x - 1) / blockDim.x * blockDim.x;
  int acc = 0;
  for (unsigned i = tid; i < end; i += blockDim.x) {
    tile[tid] = i < n ? in[i] : 0;
    __syncthreads();
    acc += tile[(tid + 1) % blockDim.x];
    __syncthreads();
  }
  out[tid] = acc;
}
