// Leader election with `__ffs(ballot) - 1`: __ffs takes 32 bits, so on 64 lanes a ballot whose
// lowest set lane is 32 or more gives leader -1, and any ballot is read without its upper lanes.
// Breaks at 64. Fixed: __ffsll.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void ffs_u64_mask(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  const wk_lanemask_t big = arch::ballot_sync(WK_FULL_MASK, in[tid] > 30);
  const int leader = (kFixed ? __ffsll(big) : __ffs(big)) - 1;  // BUG
  out[tid] = leader;
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = the lowest lane of t's warp holding a value above 30.
WK_CORPUS_RUN(ffs_u64_mask, 1, 128, 128, 1)
