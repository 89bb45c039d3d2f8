// Seed 000's transpose without its `__syncwarp()` between the stores and the reads.
#include "port.h"

__global__ void transpose_no_syncwarp(const int* in, int* out) {
  __shared__ int smem[32];
  const unsigned tid = threadIdx.x;
  smem[tid / 8 * 8 + tid % 8] = in[tid];
  out[tid] = smem[tid % 4 * 8 + tid / 4];  // BUG
}

// The block's 32 threads are lanes 0..31 at either width: 0xffffffff names them all.
__global__ void transpose_no_syncwarp_fixed(const int* in, int* out) {
  __shared__ int smem[32];
  const unsigned tid = threadIdx.x;
  smem[tid / 8 * 8 + tid % 8] = in[tid];
  __syncwarp(0xffffffff);
  out[tid] = smem[tid % 4 * 8 + tid / 4];
}
