// Wave64 code indexing its output `warp * 64 + lane`: on 32 lanes every other 32 elements are
// never written.
#include "port.h"

__global__ void out_index_wave64(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = tid % warpSize, warp = tid / warpSize;
  out[warp * 64 + lane] = in[tid] + 1;  // BUG
}

__global__ void out_index_wave64_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = tid % warpSize, warp = tid / warpSize;
  out[warp * warpSize + lane] = in[tid] + 1;
}
