// Seed 002's final stage, `if (idx <= 8)` over 8 warp sums: thread 8 reads past them.
#include "port.h"

__global__ void seed002_final_off_by_one(const int* in, int* out) {
  __shared__ int shared_mem[8];
  const unsigned idx = threadIdx.x, lane = idx % warpSize;
  int val = warp_sum(in[idx]);
  if (lane == 0) shared_mem[idx / warpSize] = val;
  __syncthreads();
  if (idx <= 8) {
    val = shared_mem[idx];  // BUG
    for (int off = 4; off > 0; off /= 2) val += __shfl_down_sync(ALL_LANES, val, off);
    if (idx == 0) out[0] = val;
  }
}

__global__ void seed002_final_off_by_one_fixed(const int* in, int* out) {
  __shared__ int shared_mem[8];
  const unsigned idx = threadIdx.x, lane = idx % warpSize;
  int val = warp_sum(in[idx]);
  if (lane == 0) shared_mem[idx / warpSize] = val;
  __syncthreads();
  if (idx < warpSize) {
    val = lane < 8 ? shared_mem[lane] : 0;
    for (int off = 4; off > 0; off /= 2) val += __shfl_down_sync(ALL_LANES, val, off, 8);
    if (idx == 0) out[0] = val;
  }
}
