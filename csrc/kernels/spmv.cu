// spmv: CSR y = A x, `vector` lanes per row, each row summed in the documented order
// (docs/SEMANTICS.md "spmv").
#include "dispatch.h"

namespace WK_NS {
using namespace prims;

namespace {

template <typename T>
__global__ void spmv_kernel(wk_status* st, const uint32_t* row_offsets, const uint32_t* cols,
                            const T* vals, const T* x, uint64_t x_len, uint64_t nnz,
                            uint64_t rows, uint32_t vector, T* y) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t row = t / vector;
  unsigned j = (unsigned)(t % vector);
  T acc = Op<OP_SUM, T>::identity();
  if (row < rows) {
    typedef Op<OP_SUM, T> O;
    // Defence in depth (the host validated the matrix): offsets past nnz are clamped and a
    // column past x is reported, so no load leaves the buffers whatever the launch gets.
    const uint64_t stop = row_offsets[row + 1];
    const uint64_t end = stop < nnz ? stop : nnz;
    uint64_t k = row_offsets[row] + j;
    uint32_t bad = 0;
    bool ok = true;
    // Four products' loads in flight before the in-order adds; the order is unchanged.
    for (; k + 3 * (uint64_t)vector < end; k += 4 * (uint64_t)vector) {
      uint32_t c0 = cols[k], c1 = cols[k + vector], c2 = cols[k + 2 * vector], c3 = cols[k + 3 * vector];
      if (c0 >= x_len || c1 >= x_len || c2 >= x_len || c3 >= x_len) {
        bad = c0 >= x_len ? c0 : c1 >= x_len ? c1 : c2 >= x_len ? c2 : c3;
        ok = false;
        break;
      }
      T p0 = mul(vals[k], x[c0]), p1 = mul(vals[k + vector], x[c1]);
      T p2 = mul(vals[k + 2 * vector], x[c2]), p3 = mul(vals[k + 3 * vector], x[c3]);
      acc = O::combine(O::combine(O::combine(O::combine(acc, p0), p1), p2), p3);
    }
    for (; ok && k < end; k += vector) {
      uint32_t c = cols[k];
      if (c >= x_len) {
        bad = c;
        ok = false;
      } else {
        acc = O::combine(acc, mul(vals[k], x[c]));
      }
    }
    if (!ok) report(st, WK_ERR_INDEX, (row << 32) | bad);
  }
  T r = bfly<OP_SUM, T>(WK_FULL_MASK, acc, vector);
  if (row < rows && j == 0) y[row] = r;
}

}  // namespace

int spmv_launch(void* stream, wk_status* st, uint32_t dtype, const uint32_t* row_offsets,
                const uint32_t* cols, const void* vals, const void* x, uint64_t x_len,
                uint64_t nnz, uint64_t rows, uint32_t vector, void* y) {
  unsigned grid;
  if (!pow2_upto(vector, WK_MAX_VECTOR) || rows > (~0ull) / vector ||
      !grid_for(rows * vector, kBlock, &grid))
    return WK_ERR_ARG;
  return with_dtype(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    WK_LAUNCH(grid, kBlock, 0, as_stream(stream), spmv_kernel<T>)(st, row_offsets, cols, (const T*)vals,
                                                           (const T*)x, x_len, nnz, rows,
                                                           vector, (T*)y);
    return host::launch_error();
  });
}

}  // namespace WK_NS
