// A block sum whose final stage is picked with `threadIdx.x / 32 == 0`. On 64 lanes that is
// half of hardware warp 0: lanes 0..31 shuffle with the full mask while lanes 32..63 have
// left, so the shuffles wait for lanes that exited (a hang on hardware).
// Breaks at 64. Fixed: threadIdx.x / WK_WARP_SIZE.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void warp_div32_final(const int* in, int* out) {
  WK_SHARED(int, partial, 128 / WK_WARP_SIZE);
  const unsigned tid = threadIdx.x, lane = arch::lane_id();
  int v = warp_sum(in[tid]);
  if (lane == 0) partial[tid / WK_WARP_SIZE] = v;
  __syncthreads();
  const unsigned warp = kFixed ? tid / WK_WARP_SIZE : tid / 32;
  if (warp == 0) {
    v = lane < 128 / WK_WARP_SIZE ? (int)partial[lane] : 0;
    for (unsigned off = WK_WARP_SIZE / 2; off > 0; off /= 2)
      v += (int)arch::shfl_xor_sync(WK_FULL_MASK, (uint32_t)v, off, WK_WARP_SIZE);  // BUG
    if (lane == 0) out[0] = v;
  }
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[0] = the sum of the block.
WK_CORPUS_RUN(warp_div32_final, 1, 128, 1, 1)
