// `__syncwarp(0xffffffff)` before reading a neighbour's store: on 64 lanes the mask leaves out
// lanes 32..63, which call it anyway, and their stores are not ordered with the reads.
#include "port.h"

__global__ void full_mask_syncwarp(const int* in, int* out) {
  __shared__ int ring[128];
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  ring[tid] = in[tid];
  __syncwarp(0xffffffff);  // BUG
  out[tid] = ring[tid - lane + (lane + 1) % warpSize];
}

__global__ void full_mask_syncwarp_fixed(const int* in, int* out) {
  __shared__ int ring[128];
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  ring[tid] = in[tid];
  __syncwarp();
  out[tid] = ring[tid - lane + (lane + 1) % warpSize];
}
