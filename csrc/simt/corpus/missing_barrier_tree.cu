// Seed 002's shared-memory sum over 256 threads, with no barrier anywhere: `s[idx] = a[idx];
// for (threshold = 128; idx < threshold; threshold >>= 1) s[idx] += s[idx + threshold];`.
// Threads read elements that other warps (and lanes) have not yet written or are still
// updating. (The seed's synchronised version puts `__syncthreads()` inside that loop, whose
// trip count depends on idx: a divergent barrier in its turn.)
// Breaks at 32 and at 64. Fixed: every thread runs every step, a barrier after each.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void missing_barrier_tree(const int* in, int* out) {
  WK_SHARED(int, s, 256);
  const unsigned idx = threadIdx.x;
  s[idx] = in[idx];
  if (kFixed) {
    __syncthreads();
    for (unsigned threshold = 128; threshold > 0; threshold >>= 1) {
      if (idx < threshold) s[idx] += s[idx + threshold];
      __syncthreads();
    }
  } else {
    for (unsigned threshold = 128; idx < threshold; threshold >>= 1)
      s[idx] += s[idx + threshold];  // BUG
  }
  if (idx == 0) out[0] = s[0];
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 256 threads; out[0] = the sum of in[0..256).
WK_CORPUS_RUN(missing_barrier_tree, 1, 256, 1, 1)
