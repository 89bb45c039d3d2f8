// HIP as it is written for AMD: hipThreadIdx_x, a mask-free __shfl_down, HIP_DYNAMIC_SHARED,
// __lane_id, a 64-bit __ballot, and a host side that launches with hipLaunchKernelGGL.
#include <hip/hip_runtime.h>

__global__ void hip_block_sum(const int* in, int* out) {
  HIP_DYNAMIC_SHARED(int, sums)
  const int tid = hipThreadIdx_x;
  int v = in[hipBlockIdx_x * hipBlockDim_x + tid];
  for (int off = warpSize / 2; off > 0; off /= 2) v += __shfl_down(v, off);
  if (__lane_id() == 0) sums[tid / warpSize] = v;
  __syncthreads();
  if (tid == 0) {
    int total = 0;
    for (int w = 0; w < (int)(hipBlockDim_x / warpSize); ++w) total += sums[w];
    out[hipBlockIdx_x] = total;
  }
}

__global__ void hip_count_positive(const int* in, int* out) {
  const unsigned long long positive = __ballot(in[hipThreadIdx_x] > 0);
  out[hipThreadIdx_x] = __popcll(positive);
}

int main() {
  int* d = nullptr;
  hipMalloc(&d, 1024 * sizeof(int));
  hipLaunchKernelGGL(hip_block_sum, dim3(1), dim3(128), 64, 0, d, d);
  return 0;
}
