// The block sum's final warp picked by `threadIdx.x / 32 == 0`: on 64 lanes only half of warp
// 0 takes the branch, and its full-mask shuffles name lanes that left.
#include "port.h"

__global__ void warp_div32_final(const int* in, int* out) {
  __shared__ int partial[4];
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  int v = warp_sum(in[tid]);
  if (lane == 0) partial[tid / warpSize] = v;
  __syncthreads();
  if (tid / 32 == 0) {
    v = lane < 128 / warpSize ? partial[lane] : 0;
    for (int off = warpSize / 2; off > 0; off /= 2)
      v += __shfl_xor_sync(ALL_LANES, v, off);  // BUG
    if (lane == 0) out[0] = v;
  }
}

__global__ void warp_div32_final_fixed(const int* in, int* out) {
  __shared__ int partial[4];
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  int v = warp_sum(in[tid]);
  if (lane == 0) partial[tid / warpSize] = v;
  __syncthreads();
  if (tid / warpSize == 0) {
    v = lane < 128 / warpSize ? partial[lane] : 0;
    for (int off = warpSize / 2; off > 0; off /= 2)
      v += __shfl_xor_sync(ALL_LANES, v, off);
    if (lane == 0) out[0] = v;
  }
}
