// warp_reduce_sync: __reduce_{add,min,max,and,or,xor}_sync(mask, v) for every element type and
// op (docs/SEMANTICS.md "warp_reduce_sync"): every member gets the reduction over its warp's
// members, by prims::reduce_sync (the hardware reduce for 32-bit integers on sm_80+ unless the
// emulation is asked for, the canonical masked butterfly otherwise).
#include "warp_pos.h"

namespace WK_NS {
using namespace prims;

namespace {

template <int OP, typename T>
__global__ void warp_reduce_sync_kernel(wk_status* st, uint32_t warp_size, int impl,
                                        const T* vals, uint64_t threads, uint64_t mask, T* out) {
  if (!width_ok(st, warp_size)) return;
  WarpPos p = warp_pos(threads, mask);
  if (!contains(p.members, p.lane)) return;
  // In the accumulator type (float for the 16-bit floats), rounded once.
  typedef typename Elem<T>::Acc A;
  out[p.t] = from_acc<T>(reduce_sync<OP, A>(impl, p.members, to_acc(vals[p.t])));
}

}  // namespace

int warp_reduce_sync_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t impl,
                            uint32_t dtype, uint32_t op, const void* vals, uint64_t threads,
                            uint64_t mask, void* out) {
  unsigned grid;
  if (!grid_for(threads, kBlock, &grid)) return WK_ERR_ARG;
  return with_dtype_io(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    return with_op<T>(op, [&](auto ot) {
      WK_LAUNCH(grid, kBlock, 0, as_stream(stream), warp_reduce_sync_kernel<decltype(ot)::value, T>)(
          st, warp_size, (int)impl, (const T*)vals, threads, mask, (T*)out);
      return host::launch_error();
    });
  });
}

}  // namespace WK_NS
