// Seed 000's 4x8 transpose through shared memory (32 threads) without the __syncwarp() between
// the row-major stores and the column-major loads: a lane may load an element its owner has
// not stored yet. Under independent thread scheduling nothing keeps the warp in step.
// Breaks at 32 and at 64. Fixed: __syncwarp() between them.
#include "corpus.h"
#include "../../wavekit/prims.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void transpose_no_syncwarp(const int* in, int* out) {
  WK_SHARED(int, smem, 32);
  const unsigned tid = threadIdx.x;
  smem[tid / 8 * 8 + tid % 8] = in[tid];
  // The block's 32 threads are the low lanes of its warp at either width.
  if (kFixed) arch::syncwarp(prims::low_lanes(blockDim.x));
  out[tid] = smem[tid % 4 * 8 + tid / 4];  // BUG
}

}  // namespace corpus
}  // namespace WK_NS

// 32 threads; out[t] = in[(t % 4) * 8 + t / 4].
WK_CORPUS_RUN(transpose_no_syncwarp, 1, 32, 32, 1)
