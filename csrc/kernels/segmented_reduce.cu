// segmented_reduce: fixed-size or offset segments, `vector` lanes per segment
// (docs/SEMANTICS.md "segmented_reduce").
#include "dispatch.h"

namespace WK_NS {
using namespace prims;

namespace {

// `vector` lanes per segment (row): lane j folds items j, j+V, ... from the identity, then
// bfly over the V lanes. Segments past `count` fold nothing and write nothing. Items are
// combined in their accumulator type A (float for the 16-bit floats), the result rounded once.
template <int OP, typename T>
__global__ void segmented_kernel(wk_status* st, const T* in, uint64_t n, const uint32_t* offsets,
                                 uint64_t seg_size, uint64_t count, uint32_t vector, T* out) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t seg = t / vector;
  unsigned j = (unsigned)(t % vector);
  typedef typename Elem<T>::Acc A;
  A acc = Op<OP, A>::identity();
  if (seg < count) {
    uint64_t begin, end;
    if (offsets) {
      // Defence in depth (the host validated the offsets): an offset past the input is
      // reported and clamped to it, so no load leaves the input whatever the launch gets.
      const uint64_t b = offsets[seg], e = offsets[seg + 1];
      if (j == 0 && (b > n || e > n)) report(st, WK_ERR_INDEX, (seg << 32) | (b > n ? b : e));
      begin = b < n ? b : n;
      end = e < n ? e : n;
    } else {
      begin = seg * seg_size;
      end = begin + seg_size < n ? begin + seg_size : n;
    }
    // Eight loads in flight before the eight in-order combines; the order is unchanged.
    const unsigned kBatch = 8;
    uint64_t k = begin + j;
    for (; k + (kBatch - 1) * (uint64_t)vector < end; k += kBatch * (uint64_t)vector) {
      A x[kBatch];
#pragma unroll
      for (unsigned u = 0; u < kBatch; ++u) x[u] = to_acc(in[k + u * (uint64_t)vector]);
#pragma unroll
      for (unsigned u = 0; u < kBatch; ++u) acc = Op<OP, A>::combine(acc, x[u]);
    }
    for (; k < end; k += vector) acc = Op<OP, A>::combine(acc, to_acc(in[k]));
  }
  const A r = bfly<OP, A>(WK_FULL_MASK, acc, vector);
  if (seg < count && j == 0) out[seg] = from_acc<T>(r);
}

}  // namespace

int segmented_reduce_launch(void* stream, wk_status* st, uint32_t dtype, uint32_t op, const void* in,
                            uint64_t n, const uint32_t* offsets, uint64_t seg_size,
                            uint64_t count, uint32_t vector, void* out) {
  unsigned grid;
  if (!pow2_upto(vector, WK_MAX_VECTOR) || (!offsets && seg_size == 0) ||
      count > (~0ull) / vector || !grid_for(count * vector, kBlock, &grid))
    return WK_ERR_ARG;
  return with_dtype_io(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    return with_op<T>(op, [&](auto ot) {
      WK_LAUNCH(grid, kBlock, 0, as_stream(stream), segmented_kernel<decltype(ot)::value, T>)(
          st, (const T*)in, n, offsets, seg_size, count, vector, (T*)out);
      return host::launch_error();
    });
  });
}

}  // namespace WK_NS
