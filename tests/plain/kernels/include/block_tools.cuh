// A header of a program's include folder: a device helper with its own shared memory, and a
// host helper using the runtime (which `wavekit check` sets aside, as in the file itself).
#pragma once
#include <stdio.h>

// The maximum of v over the block, in every thread (one slot per warp).
__device__ int block_reduce_max(int v) {
  __shared__ int per_warp[32];
  for (int off = warpSize / 2; off > 0; off /= 2) v = max(v, __shfl_xor_sync(~0ull, v, off));
  const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  if (lane == 0) per_warp[warp] = v;
  __syncthreads();
  int m = per_warp[0];
  for (int w = 1; w < (int)(blockDim.x / warpSize); ++w) m = max(m, per_warp[w]);
  return m;
}

inline void print_first(const int* d) {
  int h = 0;
  cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%d\n", h);
}
