// Seed 000's sum with `__activemask()` taken inside the branch: the lanes that reach it
// together may be fewer than those of the branch, and the shuffles read the others.
#include "port.h"

__global__ void activemask_in_branch(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = tid % warpSize, n = 100;
  int v = 0;
  if (tid < n) {
    const unsigned long long mask = __activemask();
    v = in[tid];
    for (int off = warpSize / 2; off > 0; off /= 2)
      v += __shfl_down_sync(mask, v, off);  // BUG
  }
  if (lane == 0) out[tid / warpSize] = v;
}

__global__ void activemask_in_branch_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = tid % warpSize, n = 100;
  const unsigned long long mask = __ballot_sync(ALL_LANES, tid < n);
  int v = 0;
  if (tid < n) {
    v = in[tid];
    for (int off = warpSize / 2; off > 0; off /= 2) {
      const bool inside = tid + off < n && lane + off < warpSize;
      const int other = __shfl_sync(mask, v, inside ? lane + off : lane);
      if (inside) v += other;
    }
  }
  if (lane == 0) out[tid / warpSize] = v;
}
