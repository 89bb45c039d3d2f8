// The mask of a warp's live lanes as `(1u << n) - 1`, n the lanes of the warp inside the
// block: for a full warp n is the width, and a 32-bit 1 shifted by 32 (or 64) is undefined.
// x86 and AMD shift by n % 32 = 0, so the mask comes out 0 and the ballot that uses it leaves
// out every lane. Breaks at 32 and at 64. Fixed: the full mask when n is the width.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void low_mask_u32(const int* in, int* out) {
  const unsigned tid = threadIdx.x, n = warp_lanes_in_block();
  const wk_lanemask_t live =
      kFixed ? (n >= WK_WARP_SIZE ? WK_FULL_MASK : ((wk_lanemask_t)1 << n) - 1)
             : (wk_lanemask_t)((1u << n) - 1);  // BUG
  out[tid] = arch::popc(arch::ballot_sync(live, in[tid] > 0));
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = how many of t's warp hold a positive value.
WK_CORPUS_RUN(low_mask_u32, 1, 128, 128, 1)
