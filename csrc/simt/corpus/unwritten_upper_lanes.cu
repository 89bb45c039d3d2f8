// A warp's inclusive scan whose store is guarded by `lane < 32`, a hard-coded warp size where
// the code once kept lanes past the warp out: on 64 lanes lanes 32..63 compute their prefix
// and never store it, so out[] keeps whatever it held.
// Breaks at 64. Fixed: lane < WK_WARP_SIZE (always true).
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void unwritten_upper_lanes(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = arch::lane_id();
  int v = in[tid];
  for (unsigned d = 1; d < WK_WARP_SIZE; d *= 2) {
    const int up = (int)arch::shfl_up_sync(WK_FULL_MASK, (uint32_t)v, d, WK_WARP_SIZE);
    if (lane >= d) v += up;
  }
  if (lane < (kFixed ? WK_WARP_SIZE : 32)) out[tid] = v;
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = the sum of in[] over t's warp up to t.
WK_CORPUS_RUN(unwritten_upper_lanes, 1, 128, 128, 1)
