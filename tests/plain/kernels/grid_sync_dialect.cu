// A grid barrier in a file written against csrc/wavekit.h, built for the executor only: it calls
// the executor's grid.sync() itself, which the plain layer's grid_group calls. Without
// --cooperative its launch is not cooperative, so the barrier is reported and the launch
// abandoned; with it, every block writes its value before any block reads another's.
#include <wavekit.h>

WK_KERNELS_BEGIN

__global__ void next_block(int* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = (int)blockIdx.x + 1;
  ::wk_simt::sync_grid(WK_SIMT_HERE);  // the barrier
  const unsigned next = (blockIdx.x + 1) % gridDim.x;
  const int v = out[next * blockDim.x + threadIdx.x];
  ::wk_simt::sync_grid(WK_SIMT_HERE);
  out[i] = v;
}

WK_KERNELS_END

WK_EXPORT_KERNEL(next_block);
