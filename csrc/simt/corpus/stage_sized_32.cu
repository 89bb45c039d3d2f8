// A warp's staging buffer in shared memory sized for 32 lanes, indexed by lane: on 64 lanes
// lanes 32..63 store past its end.
// Breaks at 64. Fixed: WK_WARP_SIZE elements.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void stage_sized_32(const int* in, int* out) {
  WK_SHARED(int, stage, kFixed ? WK_WARP_SIZE : 32);
  const unsigned lane = arch::lane_id();
  stage[lane] = in[lane];  // BUG
  arch::syncwarp(WK_FULL_MASK);
  out[lane] = stage[(lane + 1) % WK_WARP_SIZE];
}

}  // namespace corpus
}  // namespace WK_NS

// One warp; out[l] = in[l + 1], cyclically.
WK_CORPUS_RUN(stage_sized_32, 1, WK_WARP_SIZE, WK_WARP_SIZE, 1)
