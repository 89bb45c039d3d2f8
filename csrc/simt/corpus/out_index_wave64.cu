// Output offsets with AMD's wave size spelled out: out[warp * 64 + lane], warp and lane from the
// hardware. On 32 lanes warp 1 writes out[64..95] instead of out[32..63], which no thread
// writes (and the last warps write past the block's range).
// Breaks at 32. Fixed: warp * WK_WARP_SIZE + lane.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void out_index_wave64(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = arch::lane_id(), warp = tid / WK_WARP_SIZE;
  const unsigned wave = kFixed ? WK_WARP_SIZE : 64;
  out[warp * wave + lane] = in[tid] + 1;
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = in[t] + 1.
WK_CORPUS_RUN(out_index_wave64, 1, 128, 128, 1)
