// A kernel whose helper is in the program's include folder: `wavekit check -I include`.
#include <block_tools.cuh>

__global__ void block_max(const int* in, int* out) {
  const int m = block_reduce_max(in[blockIdx.x * blockDim.x + threadIdx.x]);
  if (threadIdx.x == 0) out[blockIdx.x] = m;
}
