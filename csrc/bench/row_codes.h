// The bench's row codes (tools/bench passes one u32 a row) as the kernels' shapes
// (kernels/shapes.h). The numbering is the bench's alone: no launcher of the table sees it.
#pragma once

#include "../kernels/shapes.h"

namespace wk_bench {

// compact, partition, runs, by_key: blocks for one tile a block, tiles x 16 + blocks for more,
// plus 128 for every tile through shared memory; 0 the default.
inline WK_NS::TileShape tile_shape(uint32_t code) {
  const unsigned rest = code & 127;
  const unsigned tiles = rest >= 16 ? rest / 16 : (rest != 0 ? 1 : 0);
  const unsigned blocks = rest >= 16 ? rest % 16 : rest;
  return WK_NS::TileShape{{tiles, blocks}, (code & 128) != 0};
}

// device_reduce: k % 16 tiles a block (0 the launcher's choice); bit 256 two launches where the
// launcher would take them, bit 512 four 16-bit tiles' partials each reduced alone, bit 1024
// those of the 16-bit Min / Max widened before the fold.
inline WK_NS::ReduceShape reduce_shape(uint32_t k) {
  return WK_NS::ReduceShape{k & 15, (k & 256) != 0, (k & 512) != 0, (k & 1024) != 0};
}

// device_scan: 0 the default, 1 its loads through shared memory, 2 its stores 4 bytes a lane,
// 3 the 16-bit tile parked in shared memory, 5 / 6 scan_pairs_kernel without tickets at four /
// two tiles a block, 7 / 8 four logical threads a thread at 4 tiles x 5 blocks / 3 x 6; from 16:
// tiles x 16 + blocks.
inline WK_NS::ScanShape scan_shape(uint32_t v) {
  typedef WK_NS::ScanShape S;
  switch (v) {
    case 0: return S{S::kDefault, {0, 0}, false, 0};
    case 1: return S{S::kSharedLoads, {0, 0}, false, 0};
    case 2: return S{S::kNarrowStores, {0, 0}, false, 0};
    case 3: return S{S::kParkedTile, {0, 0}, false, 0};
    case 5: return S{S::kPairs, {4, 4}, false, 2};
    case 6: return S{S::kPairs, {2, 8}, false, 2};
    case 7: return S{S::kPairs, {4, 5}, true, 4};
    case 8: return S{S::kPairs, {3, 6}, true, 4};
    default: return S{S::kOccupancy, {v / 16, v % 16}, false, 0};
  }
}

// SpMV: v % 16 is 0 the default, 1 the vector kernel, 4 four blocks an SM (false for any other);
// (v / 16) % 16 log2 of a chunk (0: spmv_chunk's); bits 256 prepared, 512 rows a group each,
// 1024 merge-path chunks, 2048 no quads.
inline bool spmv_shape(uint32_t v, WK_NS::SpmvShape* out) {
  typedef WK_NS::SpmvShape S;
  const unsigned k = v & 15;
  if (k != 0 && k != 1 && k != 4) return false;
  *out = S{k == 1 ? S::kVector : k == 4 ? S::kFourBlocks : S::kDefault, (v >> 4) & 15,
           (v & 256) != 0, (v & 512) != 0, (v & 1024) != 0, (v & 2048) != 0};
  return true;
}

}  // namespace wk_bench
