// Wave64 code taking the upper half of a ballot with `m >> 32`: on 32 lanes the ballot is 32
// bits and the shift is past its width.
#include "port.h"

__global__ void upper_half_shift32(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  const auto m = __ballot_sync(ALL_LANES, in[tid] > 0);
  const unsigned lo = (unsigned)m;
  const unsigned hi = (unsigned)(m >> 32);  // BUG
  out[tid] = __popc(lo) + __popc(hi);
}

__global__ void upper_half_shift32_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  const auto m = __ballot_sync(ALL_LANES, in[tid] > 0);
  const unsigned lo = (unsigned)m;
  const unsigned hi = (unsigned)((unsigned long long)m >> 32);
  out[tid] = __popc(lo) + __popc(hi);
}
