// `(1u << n) - 1` as the mask of the warp's n live lanes: n is the width in a full warp, a
// shift by at least 32 bits at either width.
#include "port.h"

__global__ void low_mask_u32(const int* in, int* out) {
  const unsigned tid = threadIdx.x, n = warp_lanes_in_block();
  const unsigned long long live = (1u << n) - 1;  // BUG
  out[tid] = __popcll(__ballot_sync(live, in[tid] > 0));
}

__global__ void low_mask_u32_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x, n = warp_lanes_in_block();
  const unsigned long long live = n >= 64 ? ~0ull : (1ull << n) - 1;
  out[tid] = __popcll(__ballot_sync(live, in[tid] > 0));
}
