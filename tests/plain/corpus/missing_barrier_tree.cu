// Seed 002's 256-thread shared-memory sum without barriers.
#include "port.h"

__global__ void missing_barrier_tree(const int* in, int* out) {
  __shared__ int s[256];
  const unsigned idx = threadIdx.x;
  s[idx] = in[idx];
  for (unsigned threshold = 128; idx < threshold; threshold >>= 1)
    s[idx] += s[idx + threshold];  // BUG
  if (idx == 0) out[0] = s[0];
}

__global__ void missing_barrier_tree_fixed(const int* in, int* out) {
  __shared__ int s[256];
  const unsigned idx = threadIdx.x;
  s[idx] = in[idx];
  __syncthreads();
  for (unsigned threshold = 128; threshold > 0; threshold >>= 1) {
    if (idx < threshold) s[idx] += s[idx + threshold];
    __syncthreads();
  }
  if (idx == 0) out[0] = s[0];
}
