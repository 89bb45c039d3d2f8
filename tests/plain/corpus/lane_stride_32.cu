// A warp's loop over a tile with stride 32: on 64 lanes lane 0 and lane 32 store the same
// elements.
#include "port.h"

__global__ void lane_stride_32(const int* in, int* out) {
  __shared__ int tile[256];
  const unsigned lane = threadIdx.x % warpSize;
  for (unsigned i = lane; i < 256; i += 32) tile[i] = in[i] * 3;  // BUG
  __syncwarp();
  for (unsigned i = lane; i < 256; i += warpSize) out[i] = tile[255 - i];
}

__global__ void lane_stride_32_fixed(const int* in, int* out) {
  __shared__ int tile[256];
  const unsigned lane = threadIdx.x % warpSize;
  for (unsigned i = lane; i < 256; i += warpSize) tile[i] = in[i] * 3;
  __syncwarp();
  for (unsigned i = lane; i < 256; i += warpSize) out[i] = tile[255 - i];
}
