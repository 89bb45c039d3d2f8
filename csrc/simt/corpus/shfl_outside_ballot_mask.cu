// A forward difference over the first n values, next = __shfl_down_sync(mask, v, 1) with the
// mask a ballot of `tid < n`: the last thread below n reads lane n % width, which is not in the
// mask, and its value is undefined (it is used only when the port forgets the edge).
// Breaks at 32 and at 64. Fixed: the last thread reads itself.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void shfl_outside_ballot_mask(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = arch::lane_id(), n = 100;
  const wk_lanemask_t mask = arch::ballot_sync(WK_FULL_MASK, tid < n);
  int diff = 0;
  if (tid < n) {
    const int v = in[tid];
    const bool last = tid + 1 == n || lane + 1 == WK_WARP_SIZE;
    const int next =
        kFixed ? (int)arch::shfl_idx_sync(mask, (uint32_t)v, last ? lane : lane + 1, WK_WARP_SIZE)
               : (int)arch::shfl_down_sync(mask, (uint32_t)v, 1, WK_WARP_SIZE);  // BUG
    diff = next - v;
  }
  out[tid] = diff;
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = the difference to the next thread's value within its warp
// for t < 99 (a warp's last lane reads itself), else 0.
WK_CORPUS_RUN(shfl_outside_ballot_mask, 1, 128, 128, 1)
