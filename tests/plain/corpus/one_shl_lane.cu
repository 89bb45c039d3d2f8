// A lane's bit as `bit << lane` on an int, or-ed into a 64-bit mask: lanes 32..63 shift past
// the int.
#include "port.h"

__global__ void one_shl_lane(const int* in, int* out) {
  __shared__ unsigned long long votes[4];
  const unsigned tid = threadIdx.x, lane = tid % warpSize, warp = tid / warpSize;
  if (lane == 0) votes[warp] = 0;
  __syncwarp();
  const int bit = in[tid] > 0;
  atomicOr(&votes[warp], (unsigned long long)(bit << lane));  // BUG
  __syncwarp();
  out[tid] = __popcll(votes[warp]);
}

__global__ void one_shl_lane_fixed(const int* in, int* out) {
  __shared__ unsigned long long votes[4];
  const unsigned tid = threadIdx.x, lane = tid % warpSize, warp = tid / warpSize;
  if (lane == 0) votes[warp] = 0;
  __syncwarp();
  const int bit = in[tid] > 0;
  atomicOr(&votes[warp], (unsigned long long)bit << lane);
  __syncwarp();
  out[tid] = __popcll(votes[warp]);
}
