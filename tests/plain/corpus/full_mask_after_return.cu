// Seed 000's vote after `if (tid > n) return`: the full mask names lanes that returned.
#include "port.h"

__global__ void full_mask_after_return(const int* in, int* out) {
  const unsigned tid = threadIdx.x, n = 100;
  out[tid] = -1;
  if (tid > n) return;
  out[tid] = __all_sync(ALL_LANES, in[tid] > 48);  // BUG
}

__global__ void full_mask_after_return_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x, n = 100;
  const unsigned long long mask = __ballot_sync(ALL_LANES, tid <= n);
  out[tid] = -1;
  if (tid > n) return;
  out[tid] = __all_sync(mask, in[tid] > 48);
}
