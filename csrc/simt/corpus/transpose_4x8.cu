// Seed 000's __syncwarp example: a warp writes a 4x8 matrix row-major into shared memory and
// reads it back column-major (x1 = tid % 8, y1 = tid / 8). The matrix is 32 elements, one per
// lane of a 32-lane warp; on 64 lanes rows 4..7 fall past its end.
// Breaks at 64. Fixed: WK_WARP_SIZE / 8 rows.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void transpose_4x8(const int* in, int* out) {
  constexpr unsigned kRows = kFixed ? WK_WARP_SIZE / 8 : 4;
  WK_SHARED(int, smem, kRows * 8);
  const unsigned tid = threadIdx.x;
  const unsigned x1 = tid % 8, y1 = tid / 8;
  smem[y1 * 8 + x1] = in[tid];  // BUG
  arch::syncwarp(WK_FULL_MASK);
  const unsigned x2 = tid / kRows, y2 = tid % kRows;
  out[tid] = smem[y2 * 8 + x2];
}

}  // namespace corpus
}  // namespace WK_NS

// One warp; out[t] = the element of the transposed matrix at t.
WK_CORPUS_RUN(transpose_4x8, 1, WK_WARP_SIZE, WK_WARP_SIZE, 1)
