// `(1ull << n) - 1` as the mask of the warp's n live lanes: right on 32 lanes, a shift by 64 in
// a full wave64.
#include "port.h"

__global__ void low_mask_1ull(const int* in, int* out) {
  const unsigned tid = threadIdx.x, n = warp_lanes_in_block();
  const unsigned long long live = (1ull << n) - 1;  // BUG
  out[tid] = __popcll(__ballot_sync(live, in[tid] > 0));
}

__global__ void low_mask_1ull_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x, n = warp_lanes_in_block();
  const unsigned long long live = n >= 64 ? ~0ull : (1ull << n) - 1;
  out[tid] = __popcll(__ballot_sync(live, in[tid] > 0));
}
