// `__syncthreads()` inside `if (threadIdx.x < blockDim.x / 2)`: the other half of the block
// never reaches it. On hardware the barrier counts arrivals, so the block hangs or goes on
// misaligned with a later barrier; the other half reads shared memory unordered.
// Breaks at 32 and at 64. Fixed: every thread reaches the barrier.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void divergent_syncthreads(const int* in, int* out) {
  WK_SHARED(int, buf, 128);
  const unsigned tid = threadIdx.x;
  buf[tid] = in[tid];
  if (kFixed || tid < blockDim.x / 2) __syncthreads();  // BUG
  out[tid] = buf[127 - tid];
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = in[127 - t].
WK_CORPUS_RUN(divergent_syncthreads, 1, 128, 128, 1)
