// A warp sum with the warp size hard-coded: `for (offset = 16; offset > 0; offset /= 2)
// v += __shfl_down_sync(full, v, offset)`. On 64 lanes the tree stops at 32 lanes: lane 0's
// sum leaves out lanes 32..63, with no mask or barrier rule broken.
// Breaks at 64. Fixed: start at WK_WARP_SIZE / 2.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void reduce_offset_16(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  int v = in[tid];
  for (unsigned off = kFixed ? WK_WARP_SIZE / 2 : 16; off > 0; off /= 2)
    v += (int)arch::shfl_down_sync(WK_FULL_MASK, (uint32_t)v, off, WK_WARP_SIZE);  // BUG
  if (arch::lane_id() == 0) out[tid / WK_WARP_SIZE] = v;
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[w] = the sum of warp w.
WK_CORPUS_RUN(reduce_offset_16, 1, 128, 128 / WK_WARP_SIZE, WK_WARP_SIZE)
