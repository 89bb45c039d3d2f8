// A wave64 block sum ported to 32 lanes: the per-warp partial is stored by
// `threadIdx.x % 64 == 0` into partial[threadIdx.x / 64]. On 32 lanes only every other warp
// stores its partial, and the final stage, counting hardware warps, reads partials no thread
// wrote. Breaks at 32. Fixed: the hardware lane and warp (WK_WARP_SIZE).
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void lane_mod_64_partials(const int* in, int* out) {
  WK_SHARED(int, partial, 32);
  const unsigned tid = threadIdx.x;
  int v = warp_sum(in[tid]);
  const unsigned wave = kFixed ? WK_WARP_SIZE : 64;
  if (tid % wave == 0) partial[tid / wave] = v;
  __syncthreads();
  if (tid < WK_WARP_SIZE) {
    v = tid < blockDim.x / WK_WARP_SIZE ? (int)partial[tid] : 0;  // BUG
    v = warp_sum(v);
    if (tid == 0) out[0] = v;
  }
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 256 threads; out[0] = the sum of the block.
WK_CORPUS_RUN(lane_mod_64_partials, 1, 256, 1, 1)
