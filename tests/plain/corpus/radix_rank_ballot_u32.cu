// A one-sweep radix sort's warp ranking with its digit ballots stored in `unsigned`: on 64 lanes
// lanes 32..63 lose their peers in their own half, each ranks right after the lower half's keys
// of its digit, and the slots after it are never written.
#include "port.h"

__global__ void radix_rank_ballot_u32(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  const unsigned digit = (unsigned)in[tid] & 3;
  unsigned long long peers = ALL_LANES;
  for (int b = 0; b < 2; ++b) {
    const bool set = (digit >> b) & 1;
    const unsigned ones = __ballot_sync(ALL_LANES, set);  // cut here
    peers &= set ? ones : ~ones;
  }
  unsigned start = 0;
  for (unsigned d = 0; d < 4; ++d) {
    const unsigned long long of_d = __ballot_sync(ALL_LANES, digit == d);
    if (d < digit) start += __popcll(of_d);
  }
  const unsigned rank = __popcll(peers & ((1ull << lane) - 1));
  out[tid - lane + start + rank] = in[tid];  // BUG
}

__global__ void radix_rank_ballot_u32_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  const unsigned digit = (unsigned)in[tid] & 3;
  unsigned long long peers = ALL_LANES;
  for (int b = 0; b < 2; ++b) {
    const bool set = (digit >> b) & 1;
    const unsigned long long ones = __ballot_sync(ALL_LANES, set);
    peers &= set ? ones : ~ones;
  }
  unsigned start = 0;
  for (unsigned d = 0; d < 4; ++d) {
    const unsigned long long of_d = __ballot_sync(ALL_LANES, digit == d);
    if (d < digit) start += __popcll(of_d);
  }
  const unsigned rank = __popcll(peers & ((1ull << lane) - 1));
  out[tid - lane + start + rank] = in[tid];
}
