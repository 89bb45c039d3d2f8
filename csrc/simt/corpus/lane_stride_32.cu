// One warp fills a shared tile with a lane-strided loop, stride hard-coded 32:
// `for (i = lane; i < 256; i += 32)`. On 64 lanes lanes l and l + 32 both store elements
// 32 + l, 64 + l, ...: the same element twice with nothing ordering the stores (and twice
// the work). Breaks at 64. Fixed: stride WK_WARP_SIZE.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void lane_stride_32(const int* in, int* out) {
  WK_SHARED(int, tile, 256);
  const unsigned lane = arch::lane_id();
  for (unsigned i = lane; i < 256; i += kFixed ? WK_WARP_SIZE : 32) tile[i] = in[i] * 3;  // BUG
  arch::syncwarp(WK_FULL_MASK);
  for (unsigned i = lane; i < 256; i += WK_WARP_SIZE) out[i] = tile[255 - i];
}

}  // namespace corpus
}  // namespace WK_NS

// One warp; out[i] = 3 * in[255 - i] for i < 256.
WK_CORPUS_RUN(lane_stride_32, 1, WK_WARP_SIZE, 256, 1)
