// `0xffffffff` as the full mask of a warp all-reduce. On 32 lanes it is every lane; on 64 it
// names lanes 0..31 only: at offset 32 lanes 0..31 read lanes 32..63, outside the mask
// (undefined values), and lanes 32..63 call with a mask that leaves them out.
// Breaks at 64. Fixed: WK_FULL_MASK.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void full_mask_literal(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  int v = in[tid];
  for (unsigned off = WK_WARP_SIZE / 2; off > 0; off /= 2)
    v += (int)arch::shfl_xor_sync(kFixed ? WK_FULL_MASK : 0xffffffff, (uint32_t)v, off,  // BUG
                                  WK_WARP_SIZE);
  out[tid] = v;
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = the sum of t's warp.
WK_CORPUS_RUN(full_mask_literal, 1, 128, 128, 1)
