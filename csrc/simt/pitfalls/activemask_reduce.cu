// Seed 000: a warp sum inside `if (threadIdx.x < n)` whose shuffle mask is __activemask()
// taken inside the branch. Under independent thread scheduling not every lane of the branch
// need be at that call together, so the mask may be short and the sum partial.
//   variant 0: the wrong kernel (mask = __activemask() in the branch)
//   variant 1: the seed's fix as printed (mask = ballot before the branch); its shfl_down still
//              reads lanes past n, outside the mask, whose values are undefined
//   variant 2: ballot mask, and every shuffle reads a lane inside it
#include "../prelude.h"

namespace WK_NS {
namespace pitfalls {

template <int kVariant>
__global__ void warp_partial_sum(const int* in, int* out, unsigned n) {
  const unsigned tid = threadIdx.x;
  const unsigned lane = arch::lane_id();
  const unsigned warp = tid / WK_WARP_SIZE;
  int val = 0;
  wk_lanemask_t mask = 0;
  if (kVariant != 0) mask = arch::ballot_sync(WK_FULL_MASK, tid < n);
  if (tid < n) {
    if (kVariant == 0) mask = arch::activemask();
    val = in[tid];
    for (unsigned offset = WK_WARP_SIZE / 2; offset > 0; offset /= 2) {
      if (kVariant == 2) {
        // The branch holds the lanes below n: read lane + offset only if it is one of them.
        const bool inside = tid + offset < n && lane + offset < WK_WARP_SIZE;
        const unsigned src = inside ? lane + offset : lane;
        const int other = (int)arch::shfl_idx_sync(mask, (uint32_t)val, src, WK_WARP_SIZE);
        if (inside) val += other;
      } else {
        val += (int)arch::shfl_down_sync(mask, (uint32_t)val, offset, WK_WARP_SIZE);
      }
    }
  }
  if (lane == 0) out[warp] = val;
}

}  // namespace pitfalls
}  // namespace WK_NS

// One block of `threads` (a multiple of the warp width); out[w] = sum of in[t] for the threads
// t < n of warp w.
extern "C" int WK_SIMT_EXPORT(pitfall_activemask_sum)(void* stream, int variant, const int* in,
                                                      int* out, unsigned threads, unsigned n) {
  using namespace WK_NS::pitfalls;
  if (variant == 0)
    WK_LAUNCH(1, threads, 0, stream, warp_partial_sum<0>)(in, out, n);
  else if (variant == 1)
    WK_LAUNCH(1, threads, 0, stream, warp_partial_sum<1>)(in, out, n);
  else
    WK_LAUNCH(1, threads, 0, stream, warp_partial_sum<2>)(in, out, n);
  return WK_NS::host::launch_error();
}
