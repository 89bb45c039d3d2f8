// A shuffle mask from a ballot stored in `unsigned`: the lanes below n broadcast their
// leader's value with mask = __ballot_sync(full, tid < n). On 64 lanes the stored mask lost
// lanes 32..63, and the shuffle that uses it names only half the lanes that call it.
// Breaks at 64. Fixed: wk_lanemask_t.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void ballot_mask_u32(const int* in, int* out) {
  const unsigned tid = threadIdx.x, n = 100;
  wk_lanemask_t mask;
  if (kFixed) {
    mask = arch::ballot_sync(WK_FULL_MASK, tid < n);
  } else {
    const unsigned below = arch::ballot_sync(WK_FULL_MASK, tid < n);  // cut here
    mask = below;
  }
  int v = 0;
  if (tid < n)
    v = (int)arch::shfl_idx_sync(mask, (uint32_t)in[tid], arch::lowest_lane(mask),  // BUG
                                 WK_WARP_SIZE);
  out[tid] = v;
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = in[] of the first thread of t's warp for t < 100, else 0.
WK_CORPUS_RUN(ballot_mask_u32, 1, 128, 128, 1)
