// Kernels that hang or read out of bounds on hardware, for the executor's reports on them:
//   variant 0: lane 0 waits at __syncthreads while the rest of its warp shuffles with a full
//              mask, which names lane 0: each side waits for the other (a deadlock)
//   variant 1: divergent branches call different collectives with the same full mask
//   variant 2: seed 000's reduction on a shared array of one warp's length, so lane + offset
//              reads past its end
#include "../prelude.h"

namespace WK_NS {
namespace pitfalls {

template <int kVariant>
__global__ void hang(const int* in, int* out) {
  const unsigned lane = arch::lane_id();
  const unsigned tid = threadIdx.x;
  int v = in[tid];
  if (kVariant == 0) {
    if (lane == 0) {
      __syncthreads();
    } else {
      v += (int)arch::shfl_down_sync(WK_FULL_MASK, (uint32_t)v, 1, WK_WARP_SIZE);
      __syncthreads();
    }
  } else if (kVariant == 1) {
    if (lane % 2)
      v = (int)arch::any_sync(WK_FULL_MASK, v > 0);
    else
      v = (int)arch::all_sync(WK_FULL_MASK, v > 0);
  } else {
    WK_SHARED(int, shmem, WK_WARP_SIZE);
    shmem[lane] = v;
    arch::syncwarp(WK_FULL_MASK);
    int acc = v;
    for (unsigned offset = WK_WARP_SIZE / 2; offset > 0; offset /= 2) {
      acc += shmem[lane + offset];
      arch::syncwarp(WK_FULL_MASK);
      shmem[lane] = acc;
      arch::syncwarp(WK_FULL_MASK);
    }
    v = acc;
  }
  out[tid] = v;
}

}  // namespace pitfalls
}  // namespace WK_NS

// One block of one warp; in and out hold a warp's worth of values.
extern "C" int WK_SIMT_EXPORT(pitfall_hang)(void* stream, int variant, const int* in, int* out) {
  using namespace WK_NS::pitfalls;
  if (variant == 0)
    WK_LAUNCH(1, WK_WARP_SIZE, 0, stream, hang<0>)(in, out);
  else if (variant == 1)
    WK_LAUNCH(1, WK_WARP_SIZE, 0, stream, hang<1>)(in, out);
  else
    WK_LAUNCH(1, WK_WARP_SIZE, 0, stream, hang<2>)(in, out);
  return WK_NS::host::launch_error();
}
