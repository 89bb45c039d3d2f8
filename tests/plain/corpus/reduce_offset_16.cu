// A warp sum with offsets from 16: on 64 lanes lane 0 sums lanes 0..31 only.
#include "port.h"

__global__ void reduce_offset_16(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  int v = in[tid];
  for (int off = 16; off > 0; off /= 2)
    v += __shfl_down_sync(ALL_LANES, v, off);  // BUG
  if (tid % warpSize == 0) out[tid / warpSize] = v;
}

__global__ void reduce_offset_16_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  int v = in[tid];
  for (int off = warpSize / 2; off > 0; off /= 2)
    v += __shfl_down_sync(ALL_LANES, v, off);
  if (tid % warpSize == 0) out[tid / warpSize] = v;
}
