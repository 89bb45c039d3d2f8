// Seed 000's warp-aggregated atomic, `int mask = __match_any_sync(...)`: on 64 lanes a group
// whose lanes span both halves loses its upper half, and its leader and count go wrong.
#include "port.h"

__global__ void match_any_int_mask(const int* in, int* out) {
  __shared__ int counters[4];
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  if (tid < 4) counters[tid] = 0;
  __syncthreads();
  const unsigned key = (unsigned)in[tid] & 3;
  int res = 0;
  const int peers = __match_any_sync(ALL_LANES, key);  // cut here
  const int leader = __ffs(peers) - 1;  // BUG
  const int rank = __popc((unsigned)peers & (unsigned)__lanemask_lt());
  if ((int)lane == leader) res = atomicAdd(&counters[key], __popc(peers));
  res = __shfl_sync(peers, res, leader);
  __syncthreads();
  out[tid] = res + rank;
}

__global__ void match_any_int_mask_fixed(const int* in, int* out) {
  __shared__ int counters[4];
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  if (tid < 4) counters[tid] = 0;
  __syncthreads();
  const unsigned key = (unsigned)in[tid] & 3;
  int res = 0;
  const unsigned long long peers = __match_any_sync(ALL_LANES, key);
  const int leader = __ffsll(peers) - 1;
  const int rank = __popcll(peers & __lanemask_lt());
  if ((int)lane == leader) res = atomicAdd(&counters[key], __popcll(peers));
  res = __shfl_sync(peers, res, leader);
  __syncthreads();
  out[tid] = res + rank;
}
