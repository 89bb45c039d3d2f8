// A warp vote built by hand: each lane ORs `bit << lane` (bit an int) into a shared word. The
// shift is done in 32-bit int, so for lanes 32..63 it shifts past the type's width: undefined
// (x86 and AMD shift by lane % 32, landing on lanes 0..31).
// Breaks at 64. Fixed: shift a wk_lanemask_t.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void one_shl_lane(const int* in, int* out) {
  WK_SHARED(wk_lanemask_t, votes, 128 / WK_WARP_SIZE);
  const unsigned tid = threadIdx.x, lane = arch::lane_id(), warp = tid / WK_WARP_SIZE;
  if (lane == 0) votes[warp] = 0;
  arch::syncwarp(WK_FULL_MASK);
  const int bit = in[tid] > 0;
  atomicOr(&votes[warp],
           kFixed ? (wk_lanemask_t)bit << lane : (wk_lanemask_t)(bit << lane));  // BUG
  arch::syncwarp(WK_FULL_MASK);
  out[tid] = arch::popc(votes[warp]);
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = how many of t's warp hold a positive value.
WK_CORPUS_RUN(one_shl_lane, 1, 128, 128, 1)
