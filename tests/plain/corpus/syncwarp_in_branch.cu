// `__syncwarp()` inside `if (lane < 16)`: its full mask names lanes 16.. that never call it.
#include "port.h"

__global__ void syncwarp_in_branch(const int* in, int* out) {
  __shared__ int buf[128];
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  if (lane < 16) {
    buf[tid] = in[tid];
    __syncwarp();  // BUG
    out[tid] = buf[tid ^ 1];
  } else {
    out[tid] = in[tid];
  }
}

__global__ void syncwarp_in_branch_fixed(const int* in, int* out) {
  __shared__ int buf[128];
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  if (lane < 16) {
    buf[tid] = in[tid];
    __syncwarp(0xffff);
    out[tid] = buf[tid ^ 1];
  } else {
    out[tid] = in[tid];
  }
}
