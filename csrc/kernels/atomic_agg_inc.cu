// atomic_agg_inc: seed 000's warp-aggregated atomicAggInc (docs/SEMANTICS.md "atomic_agg_inc").
#include "dispatch.h"

namespace WK_NS {
using namespace prims;

namespace {

// Lanes with the same slot (match_any) elect the lowest as leader, which adds the group's size
// once; ranks within the group follow lane order.
__global__ void atomic_agg_inc_kernel(wk_status* st, uint32_t warp_size, int impl, const uint32_t* slots,
                               uint64_t n, uint32_t* counters, uint64_t ncounters,
                               uint32_t* olds) {
  if (!width_ok(st, warp_size)) return;
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  wk_lanemask_t live = live_lanes(t / WK_WARP_SIZE, n);
  uint32_t slot = slots[t];
  bool valid = slot < ncounters;
  if (!valid) report(st, WK_ERR_INDEX, (t << 32) | slot);
  wk_lanemask_t members = arch::ballot_sync(live, valid);
  if (!valid) return;
  wk_lanemask_t group = match_any_sync(impl, members, slot);
  unsigned leader = (unsigned)arch::lowest_lane(group);
  uint32_t old = 0;
  if (lane() == leader) old = atomicAdd(counters + slot, (uint32_t)arch::popc(group));
  old = shfl_idx(group, old, leader, WK_WARP_SIZE);
  olds[t] = old + (uint32_t)arch::popc(group & arch::lanemask_lt());
}

}  // namespace

int atomic_agg_inc_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t impl,
                   const uint32_t* slots, uint64_t n, uint32_t* counters, uint64_t ncounters,
                   uint32_t* olds) {
  unsigned grid;
  if (n >= (1ull << 32) || !grid_for(n, kBlock, &grid)) return WK_ERR_ARG;
  WK_LAUNCH(grid, kBlock, 0, as_stream(stream), atomic_agg_inc_kernel)(st, warp_size, (int)impl, slots, n,
                                                        counters, ncounters, olds);
  return host::launch_error();
}

}  // namespace WK_NS
