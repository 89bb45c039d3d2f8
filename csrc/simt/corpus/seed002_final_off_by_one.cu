// Seed 002's last step: eight warp sums in `__shared__ float shared_mem[8]`, then
// `if (idx <= 8) { val = shared_mem[idx]; ...__shfl_down_sync(...) }`: thread 8 reads one
// past the end (and the full-mask shuffles name lanes 9.., which skipped the branch).
// Breaks at 32 and at 64. Fixed: the first warp reads `lane < 8 ? shared_mem[lane] : 0` and
// reduces with every lane taking part.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void seed002_final_off_by_one(const int* in, int* out) {
  WK_SHARED(int, shared_mem, 8);
  const unsigned idx = threadIdx.x, lane = arch::lane_id();
  int val = warp_sum(in[idx]);
  if (lane == 0) shared_mem[idx / WK_WARP_SIZE] = val;
  __syncthreads();
  if (kFixed) {
    if (idx < WK_WARP_SIZE) {
      val = lane < 8 ? (int)shared_mem[lane] : 0;
      for (unsigned off = 4; off > 0; off /= 2)
        val += (int)arch::shfl_down_sync(WK_FULL_MASK, (uint32_t)val, off, 8);
      if (idx == 0) out[0] = val;
    }
  } else if (idx <= 8) {
    val = shared_mem[idx];  // BUG
    for (unsigned off = 4; off > 0; off /= 2)
      val += (int)arch::shfl_down_sync(WK_FULL_MASK, (uint32_t)val, off, WK_WARP_SIZE);
    if (idx == 0) out[0] = val;
  }
}

}  // namespace corpus
}  // namespace WK_NS

// One block of eight warps; out[0] = the sum of in[] over its threads.
WK_CORPUS_RUN(seed002_final_off_by_one, 1, 8 * WK_WARP_SIZE, 1, 1)
