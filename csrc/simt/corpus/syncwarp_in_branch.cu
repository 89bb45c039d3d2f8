// `__syncwarp()` (full mask) inside `if (lane < 16)` between a store to shared memory and a
// read of the neighbour's element: lanes 16.. never arrive, so it waits for lanes that have
// left (undefined on hardware, a hang in practice).
// Breaks at 32 and at 64. Fixed: the mask of the branch's lanes.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void syncwarp_in_branch(const int* in, int* out) {
  WK_SHARED(int, buf, 128);
  const unsigned tid = threadIdx.x, lane = arch::lane_id();
  if (lane < 16) {
    buf[tid] = in[tid];
    arch::syncwarp(kFixed ? (wk_lanemask_t)0xffff : WK_FULL_MASK);  // BUG
    out[tid] = buf[tid ^ 1];
  } else {
    out[tid] = in[tid];
  }
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = in[t ^ 1] for lanes below 16, in[t] for the others.
WK_CORPUS_RUN(syncwarp_in_branch, 1, 128, 128, 1)
