// `31 - __clz(ballot)` as the last voting lane: wrong whenever one of lanes 32..63 voted.
#include "port.h"

__global__ void clz_u64_mask(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  const unsigned long long positive = __ballot_sync(ALL_LANES, in[tid] > 0);
  const int last = 31 - __clz(positive);  // BUG
  out[tid] = last;
}

__global__ void clz_u64_mask_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  const unsigned long long positive = __ballot_sync(ALL_LANES, in[tid] > 0);
  const int last = 63 - __clzll(positive);
  out[tid] = last;
}
