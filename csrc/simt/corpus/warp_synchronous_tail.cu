// The classic block sum's last-warp tail without synchronisation, implicit warp-synchronous
// code: `if (tid < 32) { s[tid] += s[tid + 32]; s[tid] += s[tid + 16]; ... }` through a
// volatile pointer. Each step reads an element another lane of the warp updates in the same
// step; only lockstep execution made it work.
// Breaks at 32 and at 64. Fixed: read, __syncwarp(), write, __syncwarp() at each step.
#include "corpus.h"
#include "../../wavekit/prims.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void warp_synchronous_tail(const int* in, int* out) {
  WK_SHARED(int, s, 128);
  const unsigned tid = threadIdx.x;
  s[tid] = in[tid];
  __syncthreads();
  if (tid < 64) s[tid] += s[tid + 64];
  __syncthreads();
  if (tid < 32) {
    for (unsigned off = 32; off > 0; off /= 2) {
      if (kFixed) {
        // The lanes of the branch are 0..31 at either width.
        const wk_lanemask_t branch = prims::low_lanes(32);
        const int other = s[tid + off];
        arch::syncwarp(branch);
        s[tid] += other;
        arch::syncwarp(branch);
      } else {
        s[tid] += s[tid + off];  // BUG
      }
    }
    if (tid == 0) out[0] = s[0];
  }
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[0] = the sum of in[0..128).
WK_CORPUS_RUN(warp_synchronous_tail, 1, 128, 1, 1)
