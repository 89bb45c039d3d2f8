// Code written for wave64 reads a ballot in halves, lo = (uint32_t)m and hi = m >> 32. On 32
// lanes the mask type is 32 bits and `m >> 32` shifts by its width: undefined (x86 and AMD give
// m itself, so the "upper half" counts lanes 0..31 again).
// Breaks at 32. Fixed: widen to 64 bits before shifting.
#include "corpus.h"

#if defined(__GNUC__) && !defined(__CUDACC__)
// The port's compiler warns about the constant count on 32 lanes; ports ignore it, so does this.
#pragma GCC diagnostic ignored "-Wshift-count-overflow"
#endif

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void upper_half_shift32(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  const wk_lanemask_t m = arch::ballot_sync(WK_FULL_MASK, in[tid] > 0);
  const unsigned lo = (unsigned)m;
  const unsigned hi = kFixed ? (unsigned)((uint64_t)m >> 32) : (unsigned)(m >> 32);  // BUG
  out[tid] = __popc(lo) + __popc(hi);
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = how many of t's warp hold a positive value.
WK_CORPUS_RUN(upper_half_shift32, 1, 128, 128, 1)
