// warp_scan: Kogge-Stone scan within segments of `width` lanes (docs/SEMANTICS.md "warp_scan").
#include "dispatch.h"

namespace WK_NS {
using namespace prims;

namespace {

template <int OP, typename T>
__global__ void warp_scan_kernel(wk_status* st, uint32_t warp_size, uint32_t exclusive,
                                 const T* vals, uint64_t n, uint32_t width, T* out) {
  if (!width_ok(st, warp_size)) return;
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  // Lanes scan in the accumulator type A (float for the 16-bit floats), each result rounded
  // once.
  typedef typename Elem<T>::Acc A;
  const A v = t < n ? to_acc(vals[t]) : Op<OP, A>::identity();
  A r = kogge_stone<OP, A>(WK_FULL_MASK, v, width);
  if (exclusive) {
    const A prev = shfl_up(WK_FULL_MASK, r, 1, width);
    r = (lane() & (width - 1)) == 0 ? Op<OP, A>::identity() : prev;
  }
  if (t < n) out[t] = from_acc<T>(r);
}

}  // namespace

int warp_scan_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                     uint32_t op, uint32_t exclusive, const void* vals, uint64_t n,
                     uint32_t width, void* out) {
  unsigned grid;
  if (!pow2_upto(width, warp_size) || !grid_for(n, kBlock, &grid)) return WK_ERR_ARG;
  return with_dtype_io(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    return with_op<T>(op, [&](auto ot) {
      WK_LAUNCH(grid, kBlock, 0, as_stream(stream), warp_scan_kernel<decltype(ot)::value, T>)(
          st, warp_size, exclusive, (const T*)vals, n, width, (T*)out);
      return host::launch_error();
    });
  });
}

}  // namespace WK_NS
