// The kernel of examples/nvrtc_warp.rs: a cudarc user's kernel, compiled at run time by NVRTC
// (or hipRTC), that uses wavekit's device API at the device's width. tests/simt_source.rs checks
// this same text on the SIMT executor at 32 and 64 lanes in CI, and a copy with a wave64 bug
// planted in it.
#include <wavekit.h>

WK_KERNELS_BEGIN

// For warp w of the launch: sums[w] = the sum of its lanes' values (wavekit's canonical order,
// so bit for bit the CPU backend's warp_reduce), positive[w] = how many of them are positive.
// Lanes past n hold -0.0, float Sum's identity, and vote false: every lane of the warp takes
// part in the reduce and the ballot, so the full mask is right for whole warps.
__global__ void warp_sums(const float* in, float* sums, unsigned* positive, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool live = i < n;
  const float v = live ? in[i] : -0.0f;
  const float s = warp_reduce<OP_SUM>(v);
  const wk_lanemask_t pos = arch::ballot_sync(WK_FULL_MASK, live && v > 0.0f);
  if (live && arch::lane_id() == 0) {
    sums[i / WK_WARP_SIZE] = s;
    positive[i / WK_WARP_SIZE] = arch::popc(pos);
  }
}

WK_KERNELS_END

WK_EXPORT_KERNEL(warp_sums);
