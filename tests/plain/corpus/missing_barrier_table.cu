// A table written by the first 32 threads and read by all, with no barrier between.
#include "port.h"

__global__ void missing_barrier_table(const int* in, int* out) {
  __shared__ int table[32];
  const unsigned tid = threadIdx.x;
  if (tid < 32) table[tid] = in[tid] * 3;
  out[tid] = table[tid % 32];  // BUG
}

__global__ void missing_barrier_table_fixed(const int* in, int* out) {
  __shared__ int table[32];
  const unsigned tid = threadIdx.x;
  if (tid < 32) table[tid] = in[tid] * 3;
  __syncthreads();
  out[tid] = table[tid % 32];
}
