// Plain CUDA and HIP on the SIMT executor: what `wavekit check` (csrc/src/plain) puts
// before a user's unmodified .cu/.hip file, so that it builds with the host C++ compiler at 32
// or 64 lanes and every launch is checked for hazards. The file itself is only rewritten where
// C++ cannot take it as it is, line for line: its `__shared__` declarations become references
// to raw shared memory (raw.cpp, tracked through the compiler's ThreadSanitizer
// instrumentation), and the bodies of its host-only functions (main, cudaMalloc calls, <<<>>>
// launches) are emptied, since no device code can call them.
//
// The width is the build's (WK_WARP_SIZE, WK_NS, set on the command line): lane masks are
// `wk_lanemask_t`, 32 bits at 32 lanes as CUDA's `unsigned`, 64 at 64 as HIP's wave64, so a
// CUDA port's `0xffffffff`, `unsigned` ballot or `__popc` of a mask is the bug it is on AMD.
//
//   lang.h   keywords, indices, warpSize, barriers, fences, raw shared declarations, loads
//   warp.h   __shfl*_sync, votes, __activemask, __syncwarp, match, __reduce_*_sync, HIP's
//            mask-free forms (__shfl_down, __ballot, __any, __all), __lane_id, bit built-ins
//   cg.h     cooperative_groups: thread_block, thread_block_tile<N>, tiled_partition, reduce
//   types.h  vector types and make_*, CUDA's min/max and math built-ins, host runtime types
#pragma once

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <type_traits>

#include <wavekit/width.h>

#include "../checked.h"
#include "lang.h"
#include "types.h"
#include "warp.h"
#include "cg.h"
#include "exports.h"
