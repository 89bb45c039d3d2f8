// Launchers the kernels files call across files (and table.cu lists), in the vendor namespace.
#pragma once

#include "dispatch.h"

namespace WK_NS {
// Scratch regions start on 256-byte boundaries (the allocation granule every vendor aligns to).
inline uint64_t round_up(uint64_t b) { return (b + 255) / 256 * 256; }

uint64_t device_reduce_scratch(uint32_t elem_size, uint64_t n);
uint64_t device_scan_scratch(uint32_t elem_size, uint64_t n);
uint64_t compact_scratch(uint64_t n);
uint64_t runs_scratch(uint64_t n);
uint64_t by_key_scratch(uint32_t elem_size, uint64_t n);
uint64_t partition_scratch(uint64_t n);
uint64_t spmv_scratch(uint64_t nnz);
uint64_t arg_reduce_scratch(uint64_t n);
// The sorting launchers' scratch (table query; sort.cu).
uint64_t sort_scratch_bytes(uint32_t algo, uint32_t key_size, uint32_t value_size, uint64_t n);
int spmv_launch(void* stream, wk_status* st, uint32_t dtype, const uint32_t* row_offsets,
                const uint32_t* cols, const void* vals, const void* x, uint64_t x_len,
                uint64_t nnz, uint64_t rows, uint32_t vector, void* y);
int device_scan_launch(void* stream, wk_status* st, uint32_t dtype, uint32_t op,
                       uint32_t exclusive, const void* in, uint64_t n, void* scratch,
                       uint64_t scratch_bytes, void* out);

// Variants the benchmarks (csrc/bench) compare; the table's launchers pick one of each.
// k = tiles per block (1, 2, 4 or 8; 0 = the launcher's choice).
int device_reduce_launch_k(void* stream, uint32_t dtype, uint32_t op, const void* in,
                           uint64_t n, void* scratch, uint64_t scratch_bytes, void* out,
                           unsigned k);
// variant = tiles per block x 16 + blocks per SM (1x16 + 4..7, 2x16 + 3..4): the Sum scan kernel
// compiled that way; 0 (and every other op): the default (ScanOccupancy). tag: as
// device_scan_tagged's (launchers.def).
int device_scan_launch_b(void* stream, wk_status* st, uint32_t dtype, uint32_t op,
                         uint32_t exclusive, const void* in, uint64_t n, void* scratch,
                         uint64_t scratch_bytes, void* out, unsigned variant, uint32_t tag);
// variant % 16: 0 the default, 1 the vector kernel, 4 (f32 only) the balanced kernel compiled
// for four blocks an SM;
// (variant / 16) % 16: log2 of the chunk, 0 the default; bit 256: the partition already in the
// scratch (spmv.cu).
int spmv_balanced_launch_b(void* stream, wk_status* st, uint32_t dtype, const uint32_t* row_offsets,
                           const uint32_t* cols, const void* vals, const void* x, uint64_t x_len,
                           uint64_t rows, uint64_t nnz, uint32_t vector, void* scratch,
                           uint64_t scratch_bytes, void* y, unsigned variant);
// blocks = 1, 6, 7 or 8: the compaction kernel, one tile a block, compiled for that many blocks
// per SM (1: the compiler's choice); 2x16 + 3..4: two tiles a block at 3 or 4 blocks per SM
// (4-byte and smaller elements); 128 + 7 or 128 + 2x16 + 4: those shapes with every tile
// loaded through shared memory; 0: the default (compact.cu). tag: as compact_tagged's.
int compact_launch_b(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                     uint32_t pred, uint64_t a, uint64_t b, uint32_t stable, const void* in,
                     uint64_t n, void* scratch, uint64_t scratch_bytes, void* out,
                     uint64_t* out_count, unsigned blocks, uint32_t tag);
// blocks = 6: the partition kernel, one tile a block at six blocks an SM; 2x16 + 4: two tiles a
// block at four (4-byte and smaller elements); 128 + 6: one tile at six, every tile loaded
// through shared memory; 0: the default (partition.cu).
int partition_launch_b(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                       uint32_t ways, uint32_t pred, uint64_t a, uint64_t b, uint32_t pred2,
                       uint64_t a2, uint64_t b2, const void* in, uint64_t n, void* scratch,
                       uint64_t scratch_bytes, void* out, uint64_t* counts, unsigned blocks);
// blocks = 1, 6 or 8 (u32 keys, values of 4 bytes or none): the runs kernel compiled for that
// many blocks per SM (1: the compiler's choice); 128 + 6: six with every tile loaded through
// shared memory; 2 x 16 + 3 or 4: two tiles a block at 3 or 4 blocks per SM (keys only); 0 or
// any other: the default (runs.cu). tag: as runs_tagged's.
int runs_launch_b(void* stream, wk_status* st, uint32_t warp_size, uint32_t key_dtype,
                  uint32_t value_size, const void* keys, const void* vals, uint64_t n,
                  void* scratch, uint64_t scratch_bytes, void* keys_out, void* vals_out,
                  uint32_t* lengths, uint64_t* count, unsigned blocks, uint32_t tag);
// blocks = 5 or 8 (f32 Sum over u32 keys): the by_key kernel compiled for that many blocks per
// SM; 0 or any other: the default (by_key.cu). tag: as by_key_tagged's.
int by_key_launch_b(void* stream, wk_status* st, uint32_t warp_size, uint32_t key_dtype,
                    uint32_t dtype, uint32_t op, uint32_t mode, const void* keys,
                    const void* vals, uint64_t n, void* scratch, uint64_t scratch_bytes,
                    void* out, void* keys_out, uint64_t* count, unsigned blocks, uint32_t tag);
// Test hook (look_back_probe.cu): statuses `flags`/`values` for tiles 0 .. tiles-1, the
// look-back's exclusive prefix of tile `tiles` into out (one element).
int look_back_probe_launch(void* stream, uint32_t dtype, uint32_t op, const uint32_t* flags,
                           const void* values, uint64_t tiles, void* scratch,
                           uint64_t scratch_bytes, void* out);
// mode: 0 plain atomics (shared-memory counts for small histograms), 1 warp-aggregated
// (match_any), 2 adaptive, 3 plain atomics on the global counts only (the naive baseline),
// 4 shared-memory counts a slice of bins per block (wide histograms).
int histogram_launch_mode(void* stream, const uint32_t* keys, uint64_t n, uint32_t bins,
                          uint64_t* out, int mode);
}  // namespace WK_NS
