// The first 32 threads fill a lookup table in shared memory that the whole block then reads,
// with no `__syncthreads()` between the stores and the loads: other threads may read entries
// not yet stored (a race; on 64 lanes threads 32..63 are even in the writers' own warp).
// Breaks at 32 and at 64. Fixed: a barrier after the stores.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void missing_barrier_table(const int* in, int* out) {
  WK_SHARED(int, table, 32);
  const unsigned tid = threadIdx.x;
  if (tid < 32) table[tid] = in[tid] * 3;
  if (kFixed) __syncthreads();
  out[tid] = table[tid % 32];  // BUG
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = 3 * in[t % 32].
WK_CORPUS_RUN(missing_barrier_table, 1, 128, 128, 1)
