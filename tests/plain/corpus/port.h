// What the plain-CUDA twins of the hazard corpus share, written as a port to wave64 writes it:
// lane masks held in 64 bits, all lanes as ~0ull (CUDA's 32-bit mask parameter keeps the low
// 32), and the warp size as warpSize.
#pragma once

#define ALL_LANES (~0ull)

// The sum of v over the caller's warp, in every lane.
static __device__ __forceinline__ int warp_sum(int v) {
  for (int off = warpSize / 2; off > 0; off /= 2) v += __shfl_xor_sync(ALL_LANES, v, off);
  return v;
}

// How many lanes of the caller's warp lie inside its block.
static __device__ __forceinline__ unsigned warp_lanes_in_block() {
  const unsigned lane = threadIdx.x % warpSize;
  const unsigned rest = blockDim.x - (threadIdx.x - lane);
  return rest < warpSize ? rest : warpSize;
}
