// Wave64 code's all-reduce over a tile of 64: on 32 lanes the shuffles' width is past the warp.
#include "port.h"

__global__ void tile_larger_than_wave(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  int v = in[tid];
  for (int off = 64 / 2; off > 0; off /= 2)
    v += __shfl_xor_sync(ALL_LANES, v, off, 64);  // BUG
  out[tid] = v;
}

__global__ void tile_larger_than_wave_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  const int tile = warpSize < 64 ? warpSize : 64;
  int v = in[tid];
  for (int off = tile / 2; off > 0; off /= 2)
    v += __shfl_xor_sync(ALL_LANES, v, off, tile);
  out[tid] = v;
}
