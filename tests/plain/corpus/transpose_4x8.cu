// Seed 000's 4x8 transpose through shared memory with __syncwarp: a warp of 64 lanes stores
// rows 4..7 of a 4-row array.
#include "port.h"

__global__ void transpose_4x8(const int* in, int* out) {
  __shared__ int smem[4][8];
  const unsigned tid = threadIdx.x;
  const unsigned x1 = tid % 8, y1 = tid / 8;
  smem[y1][x1] = in[tid];  // BUG
  __syncwarp();
  const unsigned x2 = tid / 4, y2 = tid % 4;
  out[tid] = smem[y2][x2];
}

__global__ void transpose_4x8_fixed(const int* in, int* out) {
  __shared__ int smem[8][8];
  const unsigned tid = threadIdx.x, rows = warpSize / 8;
  const unsigned x1 = tid % 8, y1 = tid / 8;
  smem[y1][x1] = in[tid];
  __syncwarp();
  const unsigned x2 = tid / rows, y2 = tid % rows;
  out[tid] = smem[y2][x2];
}
