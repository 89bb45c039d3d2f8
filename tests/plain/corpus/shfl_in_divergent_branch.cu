// A full-mask shuffle inside `if (lane % 2 == 0)`: the odd lanes it names never call it.
#include "port.h"

__global__ void shfl_in_divergent_branch(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  int v = in[tid];
  if (lane % 2 == 0) v += __shfl_down_sync(ALL_LANES, v, 1);  // BUG
  out[tid] = v;
}

__global__ void shfl_in_divergent_branch_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  int v = in[tid];
  const int right = __shfl_down_sync(ALL_LANES, v, 1);
  if (lane % 2 == 0) v += right;
  out[tid] = v;
}
