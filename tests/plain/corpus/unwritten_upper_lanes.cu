// A warp scan whose store is guarded by `lane < 32`: on 64 lanes lanes 32..63 never store.
#include "port.h"

__global__ void unwritten_upper_lanes(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  int v = in[tid];
  for (int d = 1; d < warpSize; d *= 2) {
    const int up = __shfl_up_sync(ALL_LANES, v, d);
    if (lane >= d) v += up;
  }
  if (lane < 32) out[tid] = v;  // BUG
}

__global__ void unwritten_upper_lanes_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = tid % warpSize;
  int v = in[tid];
  for (int d = 1; d < warpSize; d *= 2) {
    const int up = __shfl_up_sync(ALL_LANES, v, d);
    if (lane >= d) v += up;
  }
  out[tid] = v;
}
