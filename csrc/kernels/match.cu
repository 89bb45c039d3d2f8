// match: __match_any/__match_all on bit patterns (docs/SEMANTICS.md "match").
#include "warp_pos.h"

namespace WK_NS {
using namespace prims;

namespace {

template <typename T>
__global__ void match_kernel(wk_status* st, uint32_t warp_size, int impl, uint32_t kind,
                             const T* vals, uint64_t threads, uint64_t mask, uint64_t* out_mask,
                             uint8_t* out_pred) {
  if (!width_ok(st, warp_size)) return;
  WarpPos p = warp_pos(threads, mask);
  if (!contains(p.members, p.lane)) return;
  // A 16-bit float's bits match as a 32-bit word (the arch layers match 32 and 64 bits).
  const typename ShflBits<T>::type v = to_bits(vals[p.t]);
  bool pred = true;
  wk_lanemask_t r = kind == 0 ? match_any_sync(impl, p.members, v)
                              : match_all_sync(impl, p.members, v, &pred);
  out_mask[p.t] = (uint64_t)r;
  out_pred[p.t] = pred ? 1 : 0;
}

}  // namespace

int match_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t impl, uint32_t dtype,
                 uint32_t kind, const void* vals, uint64_t threads, uint64_t mask,
                 uint64_t* out_mask, uint8_t* out_pred) {
  unsigned grid;
  if (kind > 1 || !grid_for(threads, kBlock, &grid)) return WK_ERR_ARG;
  return with_dtype_io(dtype, [&](auto tag) {
    typedef typename decltype(tag)::type T;
    WK_LAUNCH(grid, kBlock, 0, as_stream(stream), match_kernel<T>)(
        st, warp_size, (int)impl, kind, (const T*)vals, threads, mask, out_mask, out_pred);
    return host::launch_error();
  });
}

}  // namespace WK_NS
