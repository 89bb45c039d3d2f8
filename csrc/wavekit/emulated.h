// Vendor-neutral emulations of the primitives AMD lacks, built only on ballot and shuffle (see
// the arch interface in arch_cuda.h). On CUDA they are compiled as a selectable variant so the
// GPU tests can hold each one against the native instruction.
#pragma once

#include "width.h"

namespace WK_NS {
namespace emu {

// uni: every member's predicate equal.
__device__ __forceinline__ bool uni_sync(wk_lanemask_t mask, bool p) {
  wk_lanemask_t b = arch::ballot_sync(mask, p);
  return b == 0 || b == mask;
}

// match_any as a ballot loop: each round the lowest unresolved member broadcasts its bits and
// every member holding them learns its group; one round per distinct value. `todo` is the same
// in every member, so all members run the same rounds.
template <typename U>
__device__ __forceinline__ wk_lanemask_t match_any_sync(wk_lanemask_t mask, U v) {
  wk_lanemask_t todo = mask;
  wk_lanemask_t mine = 0;
  while (todo != 0) {
    int leader = arch::lowest_lane(todo);
    U lv = arch::shfl_idx_sync(mask, v, (unsigned)leader, WK_WARP_SIZE);
    bool same = v == lv;
    wk_lanemask_t group = arch::ballot_sync(mask, same);
    if (same) mine = group;
    todo &= ~group;
  }
  return mine;
}

template <typename U>
__device__ __forceinline__ wk_lanemask_t match_all_sync(wk_lanemask_t mask, U v, bool* pred) {
  U lv = arch::shfl_idx_sync(mask, v, (unsigned)arch::lowest_lane(mask), WK_WARP_SIZE);
  bool all = arch::ballot_sync(mask, v == lv) == mask;
  *pred = all;
  return all ? mask : 0;
}

// syncwarp: a synchronising ballot over the members between two block-scope fences, so every
// member's earlier shared-memory writes are visible to every member after it.
__device__ __forceinline__ void syncwarp(wk_lanemask_t mask) {
  arch::fence_block();
  (void)arch::ballot_sync(mask, true);
  arch::fence_block();
}

// activemask: the ballot of `true` over the lanes executing now.
__device__ __forceinline__ wk_lanemask_t activemask() { return arch::ballot_active(true); }

}  // namespace emu
}  // namespace WK_NS
