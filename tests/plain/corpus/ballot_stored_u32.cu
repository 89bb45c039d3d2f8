// A ballot kept in `unsigned`, as CUDA's __ballot_sync returns it, then counted: on 64 lanes
// the votes of lanes 32..63 are gone.
#include "port.h"

__global__ void ballot_stored_u32(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  const unsigned positive = __ballot_sync(ALL_LANES, in[tid] > 0);  // cut here
  out[tid] = __popc(positive);  // BUG
}

__global__ void ballot_stored_u32_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  const unsigned long long positive = __ballot_sync(ALL_LANES, in[tid] > 0);
  out[tid] = __popcll(positive);
}
