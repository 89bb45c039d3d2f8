// seed 000's BlockReduceSum with warpSize spelled 32 where the final stage counts the warps:
// it reads blockDim.x / 32 per-warp partials, but partials are written per hardware warp
// (lane 0 of each), so on 64 lanes half of those it reads were never written.
// Breaks at 64. Fixed: blockDim.x / WK_WARP_SIZE.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void nwarps_div32(const int* in, int* out) {
  WK_SHARED(int, partial, 32);
  const unsigned tid = threadIdx.x, lane = arch::lane_id();
  int v = warp_sum(in[tid]);
  if (lane == 0) partial[tid / WK_WARP_SIZE] = v;
  __syncthreads();
  if (tid < WK_WARP_SIZE) {
    const unsigned nwarps = kFixed ? blockDim.x / WK_WARP_SIZE : blockDim.x / 32;
    v = tid < nwarps ? (int)partial[tid] : 0;  // BUG
    v = warp_sum(v);
    if (tid == 0) out[0] = v;
  }
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 256 threads; out[0] = the sum of the block.
WK_CORPUS_RUN(nwarps_div32, 1, 256, 1, 1)
