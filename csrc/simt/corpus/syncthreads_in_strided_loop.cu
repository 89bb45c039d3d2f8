// A block-strided loop with `__syncthreads()` in its body, `for (i = tid; i < n; i +=
// blockDim.x)`: threads with one more element than others run one more iteration, and its
// barrier waits for threads that have left the loop.
// Breaks at 32 and at 64. Fixed: every thread runs the same number of iterations.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void syncthreads_in_strided_loop(const int* in, int* out) {
  WK_SHARED(int, tile, 128);
  const unsigned tid = threadIdx.x, n = 300;
  const unsigned end = kFixed ? (n + blockDim.x - 1) / blockDim.x * blockDim.x : n;
  int acc = 0;
  for (unsigned i = tid; i < end; i += blockDim.x) {
    tile[tid] = i < n ? in[i] : 0;
    __syncthreads();  // BUG
    acc += tile[(tid + 1) % blockDim.x];
    __syncthreads();
  }
  out[tid] = acc;
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = the sum of in[i] over i < 300 with i % 128 == (t + 1) % 128.
WK_CORPUS_RUN(syncthreads_in_strided_loop, 1, 128, 128, 1)
