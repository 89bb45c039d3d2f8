// activemask: __activemask() inside a branch taken by the members (docs/SEMANTICS.md
// "activemask").
#include "warp_pos.h"

namespace WK_NS {
using namespace prims;

namespace {

__global__ void activemask_kernel(wk_status* st, uint32_t warp_size, int impl, uint64_t threads,
                                  uint64_t mask, uint64_t* out) {
  if (!width_ok(st, warp_size)) return;
  WarpPos p = warp_pos(threads, mask);
  if (contains(p.members, p.lane)) {
    out[p.t] = (uint64_t)activemask(impl);
  }
}

}  // namespace

int activemask_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t impl,
                      uint64_t threads, uint64_t mask, uint64_t* out) {
  unsigned grid;
  if (!grid_for(threads, kBlock, &grid)) return WK_ERR_ARG;
  WK_LAUNCH(grid, kBlock, 0, as_stream(stream), activemask_kernel)(st, warp_size, (int)impl, threads,
                                                           mask, out);
  return host::launch_error();
}

}  // namespace WK_NS
