// Seed 000's vote example: `if (tid > n) return; b[tid] = __all_sync(0xffffffff, a[tid] > 48)`
// (the full mask spelled for the width). The full mask names lanes that already returned: the
// vote waits for them on hardware (a hang) or reads undefined predicates.
// Breaks at 32 and at 64. Fixed: the mask of the staying lanes, a ballot before the return.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void full_mask_after_return(const int* in, int* out) {
  const unsigned tid = threadIdx.x, n = 100;
  const wk_lanemask_t mask = kFixed ? arch::ballot_sync(WK_FULL_MASK, tid <= n) : WK_FULL_MASK;
  out[tid] = -1;
  if (tid > n) return;
  out[tid] = arch::all_sync(mask, in[tid] > 48);  // BUG
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] for t <= 100 = whether every value of t's warp up to thread
// 100 is above 48, else -1.
WK_CORPUS_RUN(full_mask_after_return, 1, 128, 128, 1)
