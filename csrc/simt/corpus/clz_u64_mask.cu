// The highest lane of a ballot as `31 - __clz(ballot)`: __clz takes 32 bits, so on 64 lanes
// the last active lane is never above 31.
// Breaks at 64. Fixed: 63 - __clzll of the mask widened to 64 bits.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void clz_u64_mask(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  const wk_lanemask_t positive = arch::ballot_sync(WK_FULL_MASK, in[tid] > 0);
  const int last =
      kFixed ? 63 - __clzll((unsigned long long)positive) : 31 - __clz(positive);  // BUG
  out[tid] = last;
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = the highest lane of t's warp holding a positive value.
WK_CORPUS_RUN(clz_u64_mask, 1, 128, 128, 1)
