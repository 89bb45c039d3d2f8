// A slot `(tid / 32) * 32 + lane` mixing a hard-coded warp size with the hardware lane: on 64
// lanes thread 32 and thread 64 take slot 64.
#include "port.h"

__global__ void warp_slot_mixed(const int* in, int* out) {
  __shared__ int slots[128];
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  const unsigned slot = tid / 32 * 32 + lane;
  slots[slot] = in[tid] * 2;  // BUG
  __syncthreads();
  out[tid] = slots[127 - slot];
}

__global__ void warp_slot_mixed_fixed(const int* in, int* out) {
  __shared__ int slots[128];
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  const unsigned slot = tid / warpSize * warpSize + lane;
  slots[slot] = in[tid] * 2;
  __syncthreads();
  out[tid] = slots[127 - slot];
}
