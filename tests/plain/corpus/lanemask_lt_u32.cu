// `(1u << lane) - 1` as the lanes below: lanes 32..63 shift past 32 bits.
#include "port.h"

__global__ void lanemask_lt_u32(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  const unsigned long long keep = __ballot_sync(ALL_LANES, in[tid] > 0);
  const unsigned long long below = (1u << lane) - 1;  // BUG
  out[tid] = __popcll(keep & below);
}

__global__ void lanemask_lt_u32_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  const unsigned long long keep = __ballot_sync(ALL_LANES, in[tid] > 0);
  const unsigned long long below = (1ull << lane) - 1;
  out[tid] = __popcll(keep & below);
}
