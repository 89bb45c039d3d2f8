// The same live-lane mask written `(1ull << n) - 1`, which CUDA code gets right for 32 lanes:
// on 64 lanes a full warp shifts a 64-bit 1 by 64, undefined (REFERENCE.md's `1ULL << 64`),
// and x86 and AMD give a mask of 0.
// Breaks at 64. Fixed: the full mask when n is the width.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void low_mask_1ull(const int* in, int* out) {
  const unsigned tid = threadIdx.x, n = warp_lanes_in_block();
  const wk_lanemask_t live = kFixed ? (n >= 64 ? ~0ull : (1ull << n) - 1)
                                    : (wk_lanemask_t)((1ull << n) - 1);  // BUG
  out[tid] = arch::popc(arch::ballot_sync(live, in[tid] > 0));
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = how many of t's warp hold a positive value.
WK_CORPUS_RUN(low_mask_1ull, 1, 128, 128, 1)
