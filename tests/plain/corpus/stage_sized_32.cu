// A per-warp staging buffer of 32 elements: lanes 32..63 store past it.
#include "port.h"

__global__ void stage_sized_32(const int* in, int* out) {
  __shared__ int stage[32];
  const unsigned lane = threadIdx.x % warpSize;
  stage[lane] = in[lane];  // BUG
  __syncwarp();
  out[lane] = stage[(lane + 1) % warpSize];
}

__global__ void stage_sized_32_fixed(const int* in, int* out) {
  __shared__ int stage[64];
  const unsigned lane = threadIdx.x % warpSize;
  stage[lane] = in[lane];
  __syncwarp();
  out[lane] = stage[(lane + 1) % warpSize];
}
