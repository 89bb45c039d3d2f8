// vote: __all/__any/__uni/__ballot over each warp's members (docs/SEMANTICS.md "vote").
#include "warp_pos.h"

namespace WK_NS {
using namespace prims;

namespace {

__global__ void vote_kernel(wk_status* st, uint32_t warp_size, int impl, uint32_t kind,
                            const uint8_t* preds, uint64_t threads, uint64_t mask,
                            uint64_t* out) {
  if (!width_ok(st, warp_size)) return;
  WarpPos p = warp_pos(threads, mask);
  if (!contains(p.members, p.lane)) return;
  out[p.t] = vote(impl, kind, p.members, preds[p.t] != 0, 0, WK_WARP_SIZE);
}

}  // namespace

int vote_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t impl, uint32_t kind,
                const uint8_t* preds, uint64_t threads, uint64_t mask, uint64_t* out) {
  unsigned grid;
  if (kind > 3 || !grid_for(threads, kBlock, &grid)) return WK_ERR_ARG;
  WK_LAUNCH(grid, kBlock, 0, as_stream(stream), vote_kernel)(st, warp_size, (int)impl, kind, preds,
                                                     threads, mask, out);
  return host::launch_error();
}

}  // namespace WK_NS
