// Where a thread of a warp-primitive launch sits: thread t is lane t % W of warp t / W, and its
// warp's members are the host mask less the lanes past the launch (docs/SEMANTICS.md
// "Launches, warps, members"). Non-members call nothing.
#pragma once

#include "dispatch.h"

namespace WK_NS {

struct WarpPos {
  uint64_t t;
  unsigned lane;
  wk_lanemask_t members;
};

__device__ __forceinline__ WarpPos warp_pos(uint64_t threads, uint64_t mask) {
  WarpPos p;
  p.t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  p.lane = (unsigned)(p.t % WK_WARP_SIZE);
  p.members = (wk_lanemask_t)mask & prims::live_lanes(p.t / WK_WARP_SIZE, threads);
  return p;
}

}  // namespace WK_NS
