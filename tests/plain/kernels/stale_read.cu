// A shared cell that thread 0 reads, then a second warp reads over and over (a __syncwarp after
// each round orders those reads among its lanes), and then one of that warp's threads
// overwrites: nothing orders thread 0's read, the first of more than a hundred, with the write.
// The executor keeps each thread's latest read of a cell, however many came after it, to check
// a write against. stale_read_fixed puts a __syncthreads before the write.
#include <cuda_runtime.h>

template <bool FIXED>
__device__ void stale(const int* in, int* out) {
  __shared__ int cell;
  const unsigned warp = threadIdx.x / warpSize;
  if (threadIdx.x == 0) cell = in[0];
  __syncthreads();
  int v = 0;
  if (threadIdx.x == 0) v = cell;
  if (warp == 1) {
    for (int round = 0; round < 4; ++round) {
      v += cell;
      __syncwarp();
    }
  }
  if (FIXED) __syncthreads();
  if (threadIdx.x == warpSize) cell = in[1];  // BUG: thread 0's read is not ordered before it
  __syncthreads();
  out[threadIdx.x] = v + cell;
}

__global__ void stale_read(const int* in, int* out) { stale<false>(in, out); }

__global__ void stale_read_fixed(const int* in, int* out) { stale<true>(in, out); }
