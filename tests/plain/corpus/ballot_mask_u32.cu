// A ballot of the live threads stored in 32 bits and used as a shuffle mask: on 64 lanes lanes
// 32..63 call a shuffle whose mask no longer names them.
#include "port.h"

__global__ void ballot_mask_u32(const int* in, int* out) {
  const unsigned tid = threadIdx.x, n = 100;
  const unsigned below = __ballot_sync(ALL_LANES, tid < n);  // cut here
  const unsigned long long mask = below;
  int v = 0;
  if (tid < n) v = __shfl_sync(mask, in[tid], __ffsll(mask) - 1);  // BUG
  out[tid] = v;
}

__global__ void ballot_mask_u32_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x, n = 100;
  const unsigned long long mask = __ballot_sync(ALL_LANES, tid < n);
  int v = 0;
  if (tid < n) v = __shfl_sync(mask, in[tid], __ffsll(mask) - 1);
  out[tid] = v;
}
