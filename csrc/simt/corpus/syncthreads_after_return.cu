// `if (tid >= n) return;` before a `__syncthreads()`: the threads that returned never reach
// the barrier, which the rest then wait at (undefined; exited threads do not count as arrived
// on every GPU).
// Breaks at 32 and at 64. Fixed: no early return; the threads past n take part with a zero.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void syncthreads_after_return(const int* in, int* out) {
  WK_SHARED(int, buf, 128);
  const unsigned tid = threadIdx.x, n = 100;
  if (!kFixed && tid >= n) {
    out[tid] = 0;
    return;
  }
  buf[tid] = tid < n ? in[tid] : 0;
  __syncthreads();  // BUG
  out[tid] = tid < n ? buf[n - 1 - tid] : 0;
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = in[99 - t] for t < 100, else 0.
WK_CORPUS_RUN(syncthreads_after_return, 1, 128, 128, 1)
