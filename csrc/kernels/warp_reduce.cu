// warp_reduce: one butterfly result per segment of `width` lanes (docs/SEMANTICS.md
// "warp_reduce").
#include "dispatch.h"

namespace WK_NS {
using namespace prims;

namespace {

// Launched in full blocks; lanes past n hold the identity, so a short last segment is padded.
// Lanes combine in the accumulator type A (float for the 16-bit floats), rounded once.
template <int OP, typename T>
__global__ void warp_reduce_kernel(wk_status* st, uint32_t warp_size, const T* vals, uint64_t n,
                                   uint32_t width, T* out) {
  if (!width_ok(st, warp_size)) return;
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  typedef typename Elem<T>::Acc A;
  const A v = t < n ? to_acc(vals[t]) : Op<OP, A>::identity();
  const A r = bfly<OP, A>(WK_FULL_MASK, v, width);
  if (t < n && t % width == 0) out[t / width] = from_acc<T>(r);
}

}  // namespace

int warp_reduce_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                       uint32_t op, const void* vals, uint64_t n, uint32_t width, void* out) {
  unsigned grid;
  if (!pow2_upto(width, warp_size) || !grid_for(n, kBlock, &grid)) return WK_ERR_ARG;
  return with_dtype_io(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    return with_op<T>(op, [&](auto ot) {
      WK_LAUNCH(grid, kBlock, 0, as_stream(stream), warp_reduce_kernel<decltype(ot)::value, T>)(
          st, warp_size, (const T*)vals, n, width, (T*)out);
      return host::launch_error();
    });
  });
}

}  // namespace WK_NS
