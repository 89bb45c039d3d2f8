// A shuffle with the full mask inside `if (lane % 2 == 0)`: the mask names the odd lanes,
// which never call it. On hardware the shuffle waits for them or reads undefined values.
// Breaks at 32 and at 64. Fixed: every lane shuffles, the even ones use the result.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void shfl_in_divergent_branch(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = arch::lane_id();
  int v = in[tid];
  if (kFixed) {
    const int right = (int)arch::shfl_down_sync(WK_FULL_MASK, (uint32_t)v, 1, WK_WARP_SIZE);
    if (lane % 2 == 0) v += right;
  } else if (lane % 2 == 0) {
    v += (int)arch::shfl_down_sync(WK_FULL_MASK, (uint32_t)v, 1, WK_WARP_SIZE);  // BUG
  }
  out[tid] = v;
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = in[t] + in[t + 1] for even lanes, in[t] for odd ones.
WK_CORPUS_RUN(shfl_in_divergent_branch, 1, 128, 128, 1)
