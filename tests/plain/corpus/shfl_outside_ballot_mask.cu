// `__shfl_down_sync(mask, v, 1)` with the mask of `tid < n`: thread n-1 reads lane n, outside
// the mask.
#include "port.h"

__global__ void shfl_outside_ballot_mask(const int* in, int* out) {
  const unsigned tid = threadIdx.x, n = 100;
  const unsigned long long mask = __ballot_sync(ALL_LANES, tid < n);
  int diff = 0;
  if (tid < n) {
    const int v = in[tid];
    const int next = __shfl_down_sync(mask, v, 1);  // BUG
    diff = next - v;
  }
  out[tid] = diff;
}

__global__ void shfl_outside_ballot_mask_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = tid % warpSize, n = 100;
  const unsigned long long mask = __ballot_sync(ALL_LANES, tid < n);
  int diff = 0;
  if (tid < n) {
    const int v = in[tid];
    const bool last = tid + 1 == n || lane + 1 == warpSize;
    const int next = __shfl_sync(mask, v, last ? lane : lane + 1);
    diff = next - v;
  }
  out[tid] = diff;
}
