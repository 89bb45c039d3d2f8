// Per-warp slots from two different warp sizes: slot = (threadIdx.x / 32) * 32 + lane, with
// the lane from the hardware. On 32 lanes slot is threadIdx.x; on 64, thread 32 (warp 0, lane
// 32) lands on slot 64, thread 64's, and no barrier orders the two stores (and the last
// warp's upper lanes run past the array).
// Breaks at 64. Fixed: one warp size, WK_WARP_SIZE.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void warp_slot_mixed(const int* in, int* out) {
  WK_SHARED(int, slots, 128);
  const unsigned tid = threadIdx.x, lane = arch::lane_id();
  const unsigned slot = kFixed ? tid / WK_WARP_SIZE * WK_WARP_SIZE + lane : tid / 32 * 32 + lane;
  slots[slot] = in[tid] * 2;  // BUG
  __syncthreads();
  out[tid] = slots[127 - slot];
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = 2 * in[127 - t].
WK_CORPUS_RUN(warp_slot_mixed, 1, 128, 128, 1)
