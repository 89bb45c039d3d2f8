// __popc of a 64-bit ballot: it takes 32 bits, so lanes 32..63 are not counted.
#include "port.h"

__global__ void popc_u64_mask(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  const unsigned long long positive = __ballot_sync(ALL_LANES, in[tid] > 0);
  out[tid] = __popc(positive);  // BUG
}

__global__ void popc_u64_mask_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  const unsigned long long positive = __ballot_sync(ALL_LANES, in[tid] > 0);
  out[tid] = __popcll(positive);
}
