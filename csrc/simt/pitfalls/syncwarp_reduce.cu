// Seed 000: a warp sum through shared memory with a __syncwarp after each step,
//   shmem[tid] += shmem[tid + 16]; __syncwarp(); ...
// Each step reads an element another lane writes in the same step: a race, whatever the
// __syncwarp after it.
//   variant 0: the racy kernel
//   variant 1: the seed's fix as printed: reads and writes split by __syncwarp, but `v` starts
//              at 0, so shmem[tid]'s own value is dropped (race-free, wrong sum)
//   variant 2: the fix with `v` starting at shmem[tid]
// Each warp owns 2 * warp-width elements, the upper half zero, so tid + offset stays inside.
#include "../prelude.h"

namespace WK_NS {
namespace pitfalls {

constexpr unsigned kWarpsPerBlock = 2;

template <int kVariant>
__global__ void warp_shared_sum(const int* in, int* out) {
  WK_SHARED(int, shmem, 2 * WK_WARP_SIZE * kWarpsPerBlock);
  const unsigned tid = threadIdx.x;
  const unsigned lane = tid % WK_WARP_SIZE;
  const unsigned warp = tid / WK_WARP_SIZE;
  const unsigned base = warp * 2 * WK_WARP_SIZE;
  shmem[base + lane] = in[blockIdx.x * blockDim.x + tid];
  shmem[base + WK_WARP_SIZE + lane] = 0;
  arch::syncwarp(WK_FULL_MASK);
  if (kVariant == 0) {
    for (unsigned offset = WK_WARP_SIZE / 2; offset > 0; offset /= 2) {
      shmem[base + lane] += shmem[base + lane + offset];
      arch::syncwarp(WK_FULL_MASK);
    }
  } else {
    int v = kVariant == 1 ? 0 : (int)shmem[base + lane];
    for (unsigned offset = WK_WARP_SIZE / 2; offset > 0; offset /= 2) {
      v += shmem[base + lane + offset];
      arch::syncwarp(WK_FULL_MASK);
      shmem[base + lane] = v;
      arch::syncwarp(WK_FULL_MASK);
    }
  }
  if (lane == 0) out[blockIdx.x * kWarpsPerBlock + warp] = shmem[base];
}

}  // namespace pitfalls
}  // namespace WK_NS

// `blocks` blocks of two warps; out[w] = the sum of warp w's inputs.
extern "C" int WK_SIMT_EXPORT(pitfall_syncwarp_sum)(void* stream, int variant, const int* in,
                                                    int* out, unsigned blocks) {
  using namespace WK_NS::pitfalls;
  const unsigned threads = kWarpsPerBlock * WK_WARP_SIZE;
  if (variant == 0)
    WK_LAUNCH(blocks, threads, 0, stream, warp_shared_sum<0>)(in, out);
  else if (variant == 1)
    WK_LAUNCH(blocks, threads, 0, stream, warp_shared_sum<1>)(in, out);
  else
    WK_LAUNCH(blocks, threads, 0, stream, warp_shared_sum<2>)(in, out);
  return WK_NS::host::launch_error();
}
