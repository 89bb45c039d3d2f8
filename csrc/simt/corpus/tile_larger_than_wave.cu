// A tile of 64 lanes, AMD's wave, reduced with shuffles of width 64. Tiles and shuffle widths
// may be at most the warp: on 32 lanes the width-64 shuffles read lanes that do not exist.
// Breaks at 32. Fixed: tiles of at most WK_WARP_SIZE lanes.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void tile_larger_than_wave(const int* in, int* out) {
  constexpr unsigned kWant = 64;
  constexpr unsigned kTile = kFixed && kWant > WK_WARP_SIZE ? WK_WARP_SIZE : kWant;
  const unsigned tid = threadIdx.x;
  int v = in[tid];
  for (unsigned off = kTile / 2; off > 0; off /= 2)
    v += (int)arch::shfl_xor_sync(WK_FULL_MASK, (uint32_t)v, off, kTile);  // BUG
  out[tid] = v;
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; out[t] = the sum of t's tile.
WK_CORPUS_RUN(tile_larger_than_wave, 1, 128, 128, 1)
