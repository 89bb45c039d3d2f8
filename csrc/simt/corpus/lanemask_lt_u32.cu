// Stream compaction's rank within the warp, popc(ballot & lanes below), with the lanes below
// written `(1u << lane) - 1`: a 32-bit shift, undefined for lanes 32..63.
// Breaks at 64. Fixed: arch::lanemask_lt().
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void lanemask_lt_u32(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = arch::lane_id();
  const wk_lanemask_t keep = arch::ballot_sync(WK_FULL_MASK, in[tid] > 0);
  const wk_lanemask_t below = kFixed ? arch::lanemask_lt() : (1u << lane) - 1;  // BUG
  out[tid] = arch::popc(keep & below);
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = how many lanes of t's warp below t hold a positive value.
WK_CORPUS_RUN(lanemask_lt_u32, 1, 128, 128, 1)
