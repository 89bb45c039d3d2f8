// Wave64 code's warp sum with offsets from 32: on 32 lanes the first step adds each lane's own
// value, counted twice.
#include "port.h"

__global__ void reduce_offset_32(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  int v = in[tid];
  for (int off = 32; off > 0; off /= 2)
    v += __shfl_down_sync(ALL_LANES, v, off);  // BUG
  if (tid % warpSize == 0) out[tid / warpSize] = v;
}

__global__ void reduce_offset_32_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  int v = in[tid];
  for (int off = warpSize / 2; off > 0; off /= 2)
    v += __shfl_down_sync(ALL_LANES, v, off);
  if (tid % warpSize == 0) out[tid / warpSize] = v;
}
