// `0xffffffff` as the full mask of a warp all-reduce: every lane on 32 lanes, lanes 0..31
// only on 64, where lanes 0..31 read lanes 32..63 outside it at offset 32.
#include "port.h"

__global__ void full_mask_literal(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  int v = in[tid];
  for (int off = warpSize / 2; off > 0; off /= 2)
    v += __shfl_xor_sync(0xffffffff, v, off);  // BUG
  out[tid] = v;
}

__global__ void full_mask_literal_fixed(const int* in, int* out) {
  const unsigned tid = threadIdx.x;
  int v = in[tid];
  for (int off = warpSize / 2; off > 0; off /= 2)
    v += __shfl_xor_sync(ALL_LANES, v, off);
  out[tid] = v;
}
