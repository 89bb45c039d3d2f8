// A ballot stored in `unsigned`, as CUDA code declares it: on 64 lanes the ballot has 64 bits
// and the assignment drops lanes 32..63, so the count of positive values in the warp misses
// theirs. The compiler says nothing; the executor sees the cut mask reach __popc.
// Breaks at 64. Fixed: keep it in wk_lanemask_t and count with arch::popc.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void ballot_stored_u32(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  int count;
  if (kFixed) {
    const wk_lanemask_t positive = arch::ballot_sync(WK_FULL_MASK, in[tid] > 0);
    count = arch::popc(positive);
  } else {
    const unsigned positive = arch::ballot_sync(WK_FULL_MASK, in[tid] > 0);  // cut here
    count = __popc(positive);  // BUG
  }
  out[tid] = count;
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = how many of t's warp hold a positive value.
WK_CORPUS_RUN(ballot_stored_u32, 1, 128, 128, 1)
