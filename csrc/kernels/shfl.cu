// shfl: idx/up/down/xor shuffles within width segments (docs/SEMANTICS.md "shfl"). `arg` is any
// int, read by prims::shfl as the hardware reads it (its low log2(W) bits).
#include "warp_pos.h"

namespace WK_NS {
using namespace prims;

namespace {

template <typename T>
__global__ void shfl_kernel(wk_status* st, uint32_t warp_size, uint32_t kind, const T* vals,
                            uint64_t threads, uint64_t mask, int32_t arg, uint32_t width,
                            T* out) {
  if (!width_ok(st, warp_size)) return;
  WarpPos p = warp_pos(threads, mask);
  if (!contains(p.members, p.lane)) return;
  out[p.t] = shfl(kind, p.members, vals[p.t], arg, width);
}

}  // namespace

int shfl_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype, uint32_t kind,
                const void* vals, uint64_t threads, uint64_t mask, int32_t arg, uint32_t width,
                void* out) {
  unsigned grid;
  if (kind > 3 || width == 0 || (width & (width - 1)) != 0 || width > warp_size ||
      !grid_for(threads, kBlock, &grid))
    return WK_ERR_ARG;
  return with_dtype_io(dtype, [&](auto tag) {
    typedef typename decltype(tag)::type T;
    WK_LAUNCH(grid, kBlock, 0, as_stream(stream), shfl_kernel<T>)(st, warp_size, kind, (const T*)vals,
                                                           threads, mask, arg, width, (T*)out);
    return host::launch_error();
  });
}

}  // namespace WK_NS
