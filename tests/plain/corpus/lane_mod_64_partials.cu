// Wave64 code storing a partial per `tid % 64 == 0`: on 32 lanes half the warps' partials are
// never stored, and the final warp reads them.
#include "port.h"

__global__ void lane_mod_64_partials(const int* in, int* out) {
  __shared__ int partial[32];
  const unsigned tid = threadIdx.x;
  int v = warp_sum(in[tid]);
  if (tid % 64 == 0) partial[tid / 64] = v;
  __syncthreads();
  if (tid < warpSize) {
    v = tid < blockDim.x / warpSize ? partial[tid] : 0;  // BUG
    v = warp_sum(v);
    if (tid == 0) out[0] = v;
  }
}

__global__ void lane_mod_64_partials_fixed(const int* in, int* out) {
  __shared__ int partial[32];
  const unsigned tid = threadIdx.x;
  int v = warp_sum(in[tid]);
  if (tid % warpSize == 0) partial[tid / warpSize] = v;
  __syncthreads();
  if (tid < warpSize) {
    v = tid < blockDim.x / warpSize ? partial[tid] : 0;
    v = warp_sum(v);
    if (tid == 0) out[0] = v;
  }
}
