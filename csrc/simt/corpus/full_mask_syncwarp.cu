// `__syncwarp(0xffffffff)` between a warp's shared-memory writes and its reads of its
// neighbours' elements. On 64 lanes the mask leaves out lanes 32..63, which call it anyway, and
// orders nothing between the two halves: lane 31 reads lane 32's element unordered (a race).
// Breaks at 64. Fixed: WK_FULL_MASK.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void full_mask_syncwarp(const int* in, int* out) {
  WK_SHARED(int, ring, 128);
  const unsigned tid = threadIdx.x, lane = arch::lane_id();
  ring[tid] = in[tid];
  arch::syncwarp(kFixed ? WK_FULL_MASK : 0xffffffff);  // BUG
  out[tid] = ring[tid - lane + (lane + 1) % WK_WARP_SIZE];
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = in[] of the next lane of t's warp, cyclically.
WK_CORPUS_RUN(full_mask_syncwarp, 1, 128, 128, 1)
