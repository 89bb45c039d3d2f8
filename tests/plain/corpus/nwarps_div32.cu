// Seed 000's BlockReduceSum with the warp count spelled `blockDim.x / 32`: on 64 lanes it reads
// partials no warp wrote.
#include "port.h"

__global__ void nwarps_div32(const int* in, int* out) {
  __shared__ int partial[32];
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  int v = warp_sum(in[tid]);
  if (lane == 0) partial[tid / warpSize] = v;
  __syncthreads();
  if (tid < warpSize) {
    v = tid < blockDim.x / 32 ? partial[tid] : 0;  // BUG
    v = warp_sum(v);
    if (tid == 0) out[0] = v;
  }
}

__global__ void nwarps_div32_fixed(const int* in, int* out) {
  __shared__ int partial[32];
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  int v = warp_sum(in[tid]);
  if (lane == 0) partial[tid / warpSize] = v;
  __syncthreads();
  if (tid < warpSize) {
    v = tid < blockDim.x / warpSize ? partial[tid] : 0;
    v = warp_sum(v);
    if (tid == 0) out[0] = v;
  }
}
