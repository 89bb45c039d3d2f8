// The wave64 warp sum ported to 32 lanes: `for (offset = 32; ...)` with the shuffle width the
// warp's. On 32 lanes the first step's source lies past the 32-lane segment, so every lane
// gets its own value back and the sum counts it twice.
// Breaks at 32. Fixed: start at WK_WARP_SIZE / 2.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void reduce_offset_32(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  int v = in[tid];
  for (unsigned off = kFixed ? WK_WARP_SIZE / 2 : 32; off > 0; off /= 2)
    v += (int)arch::shfl_down_sync(WK_FULL_MASK, (uint32_t)v, off, WK_WARP_SIZE);  // BUG
  if (arch::lane_id() == 0) out[tid / WK_WARP_SIZE] = v;
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[w] = the sum of warp w.
WK_CORPUS_RUN(reduce_offset_32, 1, 128, 128 / WK_WARP_SIZE, WK_WARP_SIZE)
