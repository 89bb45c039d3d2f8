// Seed 000's warp-aggregated atomic increment, `int mask = __match_any_sync(...)`: the peers
// with the same key go in an `int`, so on 64 lanes those in lanes 32..63 are dropped; the
// leader, the group's count and the broadcast mask are all wrong. (The seed takes its mask
// from __activemask(); the full mask here keeps that other bug out of this one.)
// Breaks at 64. Fixed: the mask in wk_lanemask_t, __ffsll and arch::popc.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void match_any_int_mask(const int* in, int* out) {
  WK_SHARED(int, counters, 4);
  const unsigned tid = threadIdx.x, lane = arch::lane_id();
  if (tid < 4) counters[tid] = 0;
  __syncthreads();
  const unsigned key = (unsigned)in[tid] & 3;
  int rank, res = 0;
  if (kFixed) {
    const wk_lanemask_t peers = arch::match_any_sync(WK_FULL_MASK, (uint32_t)key);
    const int leader = __ffsll(peers) - 1;
    rank = arch::popc(peers & arch::lanemask_lt());
    if ((int)lane == leader) res = atomicAdd(&counters[key], arch::popc(peers));
    res = (int)arch::shfl_idx_sync(peers, (uint32_t)res, (unsigned)leader, WK_WARP_SIZE);
  } else {
    const int peers = (int)arch::match_any_sync(WK_FULL_MASK, (uint32_t)key);  // cut here
    const int leader = __ffs(peers) - 1;  // BUG
    rank = __popc((unsigned)peers & (unsigned)arch::lanemask_lt());
    if ((int)lane == leader) res = atomicAdd(&counters[key], __popc(peers));
    res = (int)arch::shfl_idx_sync(peers, (uint32_t)res, (unsigned)leader, WK_WARP_SIZE);
  }
  __syncthreads();
  // A ticket per thread: the counter's value before its group, plus its rank in the group.
  out[tid] = res + rank;
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = t's ticket among the threads with its key (in[t] & 3).
WK_CORPUS_RUN(match_any_int_mask, 1, 128, 128, 1)
