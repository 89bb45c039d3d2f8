// `__ffs(ballot) - 1` as the leader: a leader among lanes 32..63 only is never found.
#include "port.h"

__global__ void ffs_u64_mask(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  const unsigned long long big = __ballot_sync(ALL_LANES, in[tid] > 30);
  const int leader = __ffs(big) - 1;  // BUG
  out[tid] = leader;
}

__global__ void ffs_u64_mask_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  const unsigned long long big = __ballot_sync(ALL_LANES, in[tid] > 30);
  const int leader = __ffsll(big) - 1;
  out[tid] = leader;
}
