// Seed 000's incorrect use of __activemask(): the mask of a sum inside `if (tid < n)` taken
// with __activemask() in the branch. Nothing makes the lanes of the branch reach that call
// together, so the mask may hold fewer of them and the sum is partial.
// Breaks at 32 and at 64 (under independent thread scheduling). Fixed: a ballot before the
// branch, and shuffles that read only lanes inside it.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void activemask_in_branch(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = arch::lane_id(), n = 100;
  wk_lanemask_t mask = 0;
  if (kFixed) mask = arch::ballot_sync(WK_FULL_MASK, tid < n);
  int v = 0;
  if (tid < n) {
    if (!kFixed) mask = arch::activemask();
    v = in[tid];
    for (unsigned off = WK_WARP_SIZE / 2; off > 0; off /= 2) {
      if (kFixed) {
        const bool inside = tid + off < n && lane + off < WK_WARP_SIZE;
        const int other = (int)arch::shfl_idx_sync(mask, (uint32_t)v, inside ? lane + off : lane,
                                                   WK_WARP_SIZE);
        if (inside) v += other;
      } else {
        v += (int)arch::shfl_down_sync(mask, (uint32_t)v, off, WK_WARP_SIZE);  // BUG
      }
    }
  }
  if (lane == 0) out[tid / WK_WARP_SIZE] = v;
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[w] = the sum of in[t] over the threads t < 100 of warp w.
WK_CORPUS_RUN(activemask_in_branch, 1, 128, 128 / WK_WARP_SIZE, WK_WARP_SIZE)
