// syncwarp_transpose: seed 000's transpose through shared memory ordered by __syncwarp
// (docs/SEMANTICS.md "syncwarp_transpose").
#include "warp_pos.h"

namespace WK_NS {
using namespace prims;

namespace {

// Seed 000's transpose: the warp is W/8 rows of 8; store row-major, sync, read column-major.
template <typename T>
__global__ void syncwarp_transpose_kernel(wk_status* st, uint32_t warp_size, int impl, const T* vals,
                                 uint64_t threads, uint64_t mask, T* out) {
  WK_SHARED(T, slots, kBlock);
  if (!width_ok(st, warp_size)) return;
  WarpPos p = warp_pos(threads, mask);
  if (!contains(p.members, p.lane)) return;
  unsigned base = threadIdx.x - p.lane;
  T v = vals[p.t];
  slots[base + p.lane] = v;
  syncwarp(impl, p.members);
  const unsigned rows = WK_WARP_SIZE / 8;
  unsigned src = (p.lane % rows) * 8 + p.lane / rows;
  // A non-member source stored nothing; its lane's result is undefined (None), so the
  // caller's own value stands in rather than reading an unwritten slot.
  out[p.t] = contains(p.members, src) ? slots[base + src] : v;
}

}  // namespace

int syncwarp_transpose_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t impl,
                     uint32_t dtype, const void* vals, uint64_t threads, uint64_t mask,
                     void* out) {
  unsigned grid;
  if (!grid_for(threads, kBlock, &grid)) return WK_ERR_ARG;
  return with_dtype_io(dtype, [&](auto tag) {
    typedef typename decltype(tag)::type T;
    WK_LAUNCH(grid, kBlock, 0, as_stream(stream), syncwarp_transpose_kernel<T>)(
        st, warp_size, (int)impl, (const T*)vals, threads, mask, (T*)out);
    return host::launch_error();
  });
}

}  // namespace WK_NS
