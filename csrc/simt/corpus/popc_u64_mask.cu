// `__popc` on a 64-bit ballot: __popc takes 32 bits, so on 64 lanes the count of a wavefront's
// ballot leaves out lanes 32..63 (REFERENCE.md "common porting bugs").
// Breaks at 64. Fixed: __popcll.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void popc_u64_mask(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  const wk_lanemask_t positive = arch::ballot_sync(WK_FULL_MASK, in[tid] > 0);
  out[tid] = kFixed ? __popcll(positive) : __popc(positive);  // BUG
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = how many of t's warp hold a positive value.
WK_CORPUS_RUN(popc_u64_mask, 1, 128, 128, 1)
