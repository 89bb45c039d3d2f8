// A warp-per-segment sort staging each warp's keys in shared slots sized for 32-lane segments:
// on 64 lanes, lanes 32..63 of warp 0 store into warp 1's slots, with no barrier between them.
#include "port.h"

__global__ void segment_slots_32(const int* in, int* out) {
  __shared__ int stage[128];
  const unsigned tid = threadIdx.x, lane = tid % warpSize, warp = tid / warpSize;
  const unsigned slots = 32;
  const int key = in[tid];
  stage[warp * slots + lane] = key;  // BUG
  __syncwarp(ALL_LANES);
  unsigned rank = 0;
  for (unsigned j = 0; j < warpSize; ++j) {
    const int other = stage[warp * slots + j];
    rank += other < key || (other == key && j < lane);
  }
  out[tid - lane + rank] = key;
}

__global__ void segment_slots_32_fixed(const int* in, int* out) {
  __shared__ int stage[128];
  const unsigned tid = threadIdx.x, lane = tid % warpSize, warp = tid / warpSize;
  const unsigned slots = warpSize;
  const int key = in[tid];
  stage[warp * slots + lane] = key;
  __syncwarp(ALL_LANES);
  unsigned rank = 0;
  for (unsigned j = 0; j < warpSize; ++j) {
    const int other = stage[warp * slots + j];
    rank += other < key || (other == key && j < lane);
  }
  out[tid - lane + rank] = key;
}
