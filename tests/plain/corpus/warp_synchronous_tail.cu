// The last-warp tail of a block sum written warp-synchronously, without __syncwarp.
#include "port.h"

__global__ void warp_synchronous_tail(const int* in, int* out) {
  __shared__ int s[128];
  const unsigned tid = threadIdx.x;
  s[tid] = in[tid];
  __syncthreads();
  if (tid < 64) s[tid] += s[tid + 64];
  __syncthreads();
  if (tid < 32) {
    for (unsigned off = 32; off > 0; off /= 2)
      s[tid] += s[tid + off];  // BUG
    if (tid == 0) out[0] = s[0];
  }
}

// The threads of the tail are lanes 0..31 at either width: 0xffffffff names them all.
__global__ void warp_synchronous_tail_fixed(const int* in, int* out) {
  __shared__ int s[128];
  const unsigned tid = threadIdx.x;
  s[tid] = in[tid];
  __syncthreads();
  if (tid < 64) s[tid] += s[tid + 64];
  __syncthreads();
  if (tid < 32) {
    for (unsigned off = 32; off > 0; off /= 2) {
      const int other = s[tid + off];
      __syncwarp(0xffffffff);
      s[tid] += other;
      __syncwarp(0xffffffff);
    }
    if (tid == 0) out[0] = s[0];
  }
}
