// reduce_rows: the canonical butterfly over the rows of a matrix, column by column, written over
// one of its rows (docs/SEMANTICS.md "dist_all_reduce"): out[j] = bfly(x_0[j], ..., x_{R-1}[j])
// with the R rows padded to Q = the next power of two with the identity, combined level by
// level (j with j + Q/2, then with j + Q/4, ...). wavekit-dist's reproducible allreduce
// gathers chunk r of every rank into rank r's rows with one all-to-all and folds them here, so
// a world of any size pays one exchange and one pass instead of log2(R) pair exchanges.
#include "bfly_fold.h"

namespace WK_NS {
using namespace prims;

namespace {

// Rows (ranks) one launch folds: a world larger than this keeps the pairwise halving. Not a
// lane count: each thread holds one value a row in registers.
const unsigned kMaxRows = 32;

// The fold runs in IO's accumulator type (f32 for f16 / bf16, IO itself otherwise) and the
// result is rounded once.
template <int OP, typename IO, unsigned Q>
__global__ void reduce_rows_kernel(IO* rows, uint64_t m, unsigned r, unsigned dst) {
  typedef typename Elem<IO>::Acc T;
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < m; j += stride) {
    T v[Q];
#pragma unroll
    for (unsigned k = 0; k < Q; ++k)
      v[k] = k < r ? to_acc(rows[k * m + j]) : Op<OP, T>::identity();
    const T out = bfly_fold<OP, T, Q>(v, r);
    // Every row of this column was read above, by this thread alone: writing over row `dst`
    // in place is safe.
    rows[dst * m + j] = from_acc<IO>(out);
  }
}

template <int OP, typename T>
int launch_q(host::stream_t s, T* rows, uint64_t m, unsigned r, unsigned dst) {
  const unsigned grid = strided_grid(m);
  if (r <= 2) WK_LAUNCH(grid, kBlock, 0, s, reduce_rows_kernel<OP, T, 2>)(rows, m, r, dst);
  else if (r <= 4) WK_LAUNCH(grid, kBlock, 0, s, reduce_rows_kernel<OP, T, 4>)(rows, m, r, dst);
  else if (r <= 8) WK_LAUNCH(grid, kBlock, 0, s, reduce_rows_kernel<OP, T, 8>)(rows, m, r, dst);
  else if (r <= 16) WK_LAUNCH(grid, kBlock, 0, s, reduce_rows_kernel<OP, T, 16>)(rows, m, r, dst);
  else WK_LAUNCH(grid, kBlock, 0, s, reduce_rows_kernel<OP, T, kMaxRows>)(rows, m, r, dst);
  return host::launch_error();
}

}  // namespace

int reduce_rows_launch(void* stream, wk_status*, uint32_t dtype, uint32_t op, void* rows,
                       uint64_t m, uint32_t r, uint32_t dst) {
  if (r == 0 || r > kMaxRows || dst >= r) return WK_ERR_ARG;
  if (m == 0) return WK_OK;
  return with_dtype_io(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type IO;
    return with_op<typename Elem<IO>::Acc>(op, [&](auto ot) {
      return launch_q<decltype(ot)::value, IO>(as_stream(stream), (IO*)rows, m, r, dst);
    });
  });
}

}  // namespace WK_NS
