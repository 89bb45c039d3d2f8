// A segmented sort of small segments, one warp per segment: each lane stages its key in its
// warp's shared slots, then counts the keys that sort before it. The port sized each warp's
// slots for 32-lane segments: on 64 lanes, lanes 32..63 of warp 0 store into warp 1's slots,
// where warp 1's lanes store too with no barrier between the two warps.
// Breaks at 64. Fixed: WK_WARP_SIZE slots a warp.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void segment_slots_32(const int* in, int* out) {
  WK_SHARED(int, stage, 128);
  const unsigned tid = threadIdx.x, lane = arch::lane_id(), warp = tid / WK_WARP_SIZE;
  const unsigned slots = kFixed ? WK_WARP_SIZE : 32;
  const int key = in[tid];
  stage[warp * slots + lane] = key;  // BUG
  arch::syncwarp(WK_FULL_MASK);
  // The key's place in its segment: the keys below it, and the equal ones staged before it.
  unsigned rank = 0;
  for (unsigned j = 0; j < WK_WARP_SIZE; ++j) {
    const int other = stage[warp * slots + j];
    rank += other < key || (other == key && j < lane);
  }
  out[tid - lane + rank] = key;
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; each warp's keys sorted into the warp's own slots of out[].
WK_CORPUS_RUN(segment_slots_32, 1, 128, 128, 1)
