// The kernel shapes the benchmarks (csrc/bench) compare against each collective's default, and
// the launchers that take one, apart from the launchers of the table (launchers.def), which take
// only what the collective means: each collective's file defines its shaped launcher, and its
// table entry calls it with the default shape. Only the bench names any other. A shape picks
// which compiled kernel runs, never what it computes: every shape of a collective gives the
// default's bits (the bench checks each row's output before timing it).
#pragma once

#include "device.h"

namespace WK_NS {

// A kernel compiled for `blocks` blocks a multiprocessor with `tiles` tiles a block.
struct Occupancy {
  unsigned tiles;
  unsigned blocks;
};

// device_reduce: `tiles` tiles a block (1, 2, 4 or 8; 0 the launcher's choice, with large inputs
// split into two launches). An explicit `tiles` runs as one launch unless `two_launches`.
// `per_tile16`: four 16-bit tiles' partials each reduced alone (as before tile_partials);
// `widen16`: those of the 16-bit Min / Max widened before the fold (as before fold_half_minmax).
struct ReduceShape {
  unsigned tiles;
  bool two_launches;
  bool per_tile16;
  bool widen16;
};
int device_reduce_shaped(void* stream, uint32_t dtype, uint32_t op, const void* in, uint64_t n,
                         void* scratch, uint64_t scratch_bytes, void* out, ReduceShape shape);

// device_scan (Sum): the default's neighbours.
struct ScanShape {
  enum Kind {
    kDefault,
    kSharedLoads,    // 4-byte types: the default with its loads through shared memory
    kNarrowStores,   // 4- and 8-byte types: the default with its stores 4 bytes a lane
    kParkedTile,     // 16-bit floats: the tile parked in shared memory (scan_kernel, as before)
    kPairs,          // 16-bit floats, CUDA: scan_pairs_kernel in `at`, `tickets`, `logical`
    kOccupancy,      // element and accumulator of one type: scan_kernel in `at`
  } kind;
  Occupancy at;
  bool tickets;      // kPairs: tiles numbered by a ticket counter (else by the block index)
  unsigned logical;  // kPairs: logical threads a thread (2 or 4)
};
// Other ops than Sum run the default. tag: as device_scan_tagged's (launchers.def).
int device_scan_shaped(void* stream, wk_status* st, uint32_t dtype, uint32_t op,
                       uint32_t exclusive, const void* in, uint64_t n, void* scratch,
                       uint64_t scratch_bytes, void* out, ScanShape shape, uint32_t tag);

// compact, partition, runs and by_key: the kernel in `at` (blocks 1: the compiler's choice;
// {0, 0}: the default), and for compact, partition and runs whether every tile is loaded
// through shared memory (`staged`) instead of directly.
struct TileShape {
  Occupancy at;
  bool staged;
};
// The number the collectives' switches give a shape: blocks for one tile a block, tiles x 16 +
// blocks for more, plus 128 when staged; 0 the default.
inline unsigned shape_code(TileShape s) {
  return (s.staged ? 128u : 0u) + (s.at.tiles > 1 ? s.at.tiles * 16 : 0u) + s.at.blocks;
}
// Shapes other than the default are compiled for the types the bench measures (compact and
// partition: f32, compact also f64 at {1, 7}; runs: u32 keys with values of 4 bytes or none,
// two tiles a block keys only; by_key: f32 Sum over u32 keys at {1, 5} or {1, 8}); any other
// shape or type runs the default. tag: as the *_tagged launchers' (launchers.def).
int compact_shaped(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                   uint32_t pred, uint64_t a, uint64_t b, uint32_t stable, const void* in,
                   uint64_t n, void* scratch, uint64_t scratch_bytes, void* out,
                   uint64_t* out_count, TileShape shape, uint32_t tag);
int partition_shaped(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                     uint32_t ways, uint32_t pred, uint64_t a, uint64_t b, uint32_t pred2,
                     uint64_t a2, uint64_t b2, const void* in, uint64_t n, void* scratch,
                     uint64_t scratch_bytes, void* out, uint64_t* counts, TileShape shape);
int runs_shaped(void* stream, wk_status* st, uint32_t warp_size, uint32_t key_dtype,
                uint32_t value_size, const void* keys, const void* vals, uint64_t n,
                void* scratch, uint64_t scratch_bytes, void* keys_out, void* vals_out,
                uint32_t* lengths, uint64_t* count, TileShape shape, uint32_t tag);
int by_key_shaped(void* stream, wk_status* st, uint32_t warp_size, uint32_t key_dtype,
                  uint32_t dtype, uint32_t op, uint32_t mode, const void* keys,
                  const void* vals, uint64_t n, void* scratch, uint64_t scratch_bytes,
                  void* out, void* keys_out, uint64_t* count, TileShape shape, uint32_t tag);

// The balanced SpMV (f32 for the compiled shapes).
struct SpmvShape {
  enum Kernel {
    kDefault,
    kVector,      // spmv_kernel: a group of lanes a row, no partition
    kFourBlocks,  // f32: the chunk kernel compiled for four blocks an SM
  } kernel;
  unsigned chunk_log;  // log2 of the chunk (8..12), 0 spmv_chunk's
  bool prepared;       // the partition already in the scratch (as spmv_planned's plan)
  bool groups_only;    // every row folded by a group of lanes
  bool merge_path;     // chunks of rows and nonzeros together (a word a 256 of them)
  bool no_quads;       // no row folded by a quad of lanes
};
int spmv_balanced_shaped(void* stream, wk_status* st, uint32_t dtype,
                         const uint32_t* row_offsets, const uint32_t* cols, const void* vals,
                         const void* x, uint64_t x_len, uint64_t rows, uint64_t nnz,
                         uint32_t vector, void* scratch, uint64_t scratch_bytes, void* y,
                         SpmvShape shape);

// The histogram's ways of adding a key (histogram.cu); the launcher takes HIST_PLAIN up to
// kSharedBins bins and HIST_SLICED past them. All give the same counts:
//   HIST_PLAIN     one atomic per key, counted in shared memory first (up to kSharedBins);
//   HIST_MATCH     warp-aggregated: lanes holding the same bin (match_any) elect the lowest,
//                  which adds the group's size once;
//   HIST_ADAPTIVE  every 16th round a warp aggregates and counts its distinct bins; while
//                  they are many (little to aggregate, uniform input) it adds plainly, so
//                  uniform input pays almost nothing for the match and skewed input gains;
//   HIST_GLOBAL    HIST_PLAIN without the shared-memory counts: the naive baseline;
//   HIST_SLICED    many bins, counted in shared memory a slice at a time.
enum HistMode { HIST_PLAIN = 0, HIST_MATCH = 1, HIST_ADAPTIVE = 2, HIST_GLOBAL = 3, HIST_SLICED = 4 };
int histogram_shaped(void* stream, const uint32_t* keys, uint64_t n, uint32_t bins,
                     uint64_t* out, HistMode mode);

}  // namespace WK_NS
