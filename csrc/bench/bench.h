// The C ABI of the benchmark-only CUDA code (compiled with the `cuda` feature beside csrc/kernels;
// tools/bench/src/cuda/ffi.rs mirrors it): CUB baselines from the CUB headers of the CUDA wheel,
// same-run bandwidth baselines, variants of wavekit's own kernels, and the seed ladder (seed 003
// and seed 002's reductions). Every function queues work on `stream` and returns 0, a positive
// CUDA error code, or a negative WK_ERR_* (csrc/wavekit/launch.h). Functions taking
// `temp`/`temp_bytes` write the scratch size they need to *temp_bytes when temp is NULL.
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// CUB version (CUB_VERSION) the baselines were compiled against.
uint32_t wk_bench_cub_version(void);

// cub::DeviceReduce::Sum / Min / Max (op as ReduceOp: 0 Sum, 2 Min, 3 Max); i32, f32, f64.
int32_t wk_bench_cub_reduce(void* stream, uint32_t dtype, uint32_t op, const void* in, uint64_t n,
                            void* out, void* temp, size_t* temp_bytes);
// cub::DeviceScan::InclusiveSum / ExclusiveSum, and InclusiveScan with cuda::maximum (op Max,
// inclusive only); i32, i64, f32, f64.
int32_t wk_bench_cub_scan(void* stream, uint32_t dtype, uint32_t op, uint32_t exclusive,
                          const void* in, void* out, uint64_t n, void* temp, size_t* temp_bytes);
// cub::DeviceSegmentedReduce::Sum of f32 over `count` segments [offsets[i], offsets[i+1]).
int32_t wk_bench_cub_segreduce(void* stream, const float* in, float* out, const uint32_t* offsets,
                               uint64_t count, void* temp, size_t* temp_bytes);
// cub::DeviceSelect::If keeping x > threshold (dtype f32 or f64), the count to *count (device
// int64).
int32_t wk_bench_cub_select_gt(void* stream, uint32_t dtype, const void* in, uint64_t n,
                               double threshold, void* out, int64_t* count, void* temp,
                               size_t* temp_bytes);
// cub::DeviceHistogram::HistogramEven of u32 keys into `bins` u32 counts (levels 0..bins, so
// bin k counts the keys equal to k; keys at or past `bins` are dropped).
// CUB's sorts (cub_sort.cu): keys of any dtype, pairs with u32 values, stable segmented keys.
int32_t wk_bench_cub_sort_keys(void* stream, uint32_t dtype, const void* in, void* out, uint64_t n,
                               uint32_t descending, void* temp, size_t* temp_bytes);
int32_t wk_bench_cub_sort_pairs(void* stream, uint32_t dtype, const void* keys, void* keys_out,
                                const uint32_t* vals, uint32_t* vals_out, uint64_t n,
                                uint32_t descending, void* temp, size_t* temp_bytes);
int32_t wk_bench_cub_segmented_sort(void* stream, const uint32_t* keys, uint32_t* out, uint64_t n,
                                    const uint32_t* offsets, uint64_t count, void* temp,
                                    size_t* temp_bytes);
int32_t wk_bench_cub_histogram(void* stream, const uint32_t* keys, uint64_t n, uint32_t bins,
                               uint32_t* counts, void* temp, size_t* temp_bytes);

// cuSPARSE (csrc/bench/cusparse.cu), opened at run time: its version (e.g. 12603), or 0 when
// the library could not be loaded; the last failure's message.
int32_t wk_bench_cusparse_version(void);
const char* wk_bench_cusparse_error(void);
// y = A x for a CSR matrix of f32 (32-bit offsets and columns), cusparseSpMV with algorithm
// `alg` (cusparseSpMVAlg_t): a plan (handle and descriptors on `stream`) and the bytes of
// buffer it needs; then runs (after an optional preprocess) and the plan's release.
int32_t wk_bench_cusparse_spmv_plan(void* stream, const uint32_t* row_offsets,
                                    const uint32_t* cols, const float* vals, const float* x,
                                    float* y, uint64_t rows, uint64_t ncols, uint64_t nnz,
                                    uint32_t alg, void** plan, size_t* buffer_bytes);
int32_t wk_bench_cusparse_spmv_preprocess(void* plan, void* buffer);
int32_t wk_bench_cusparse_spmv(void* plan, void* buffer);
void wk_bench_cusparse_free(void* plan);

// Device-to-device copy of `bytes` (cudaMemcpyAsync): the copy bandwidth baseline.
int32_t wk_bench_copy(void* stream, void* dst, const void* src, uint64_t bytes);
// Reads `bytes` (a multiple of 16, 16-byte aligned) once with 16-byte loads: the read baseline.
int32_t wk_bench_read(void* stream, const void* src, uint64_t bytes, uint32_t* sink);
// Holds the stream for `micros` microseconds, so that what is queued after it is all queued
// before the GPU reaches it (host launch latency stays out of event timings).
int32_t wk_bench_delay(void* stream, uint32_t micros);
// count of x < threshold (f32) with one atomicAdd on one global counter per selected element:
// the "one global counter" baseline of count_if. *out must be zeroed (done here).
int32_t wk_bench_count_atomic(void* stream, const float* in, uint64_t n, float threshold,
                              unsigned long long* out);

// wavekit's device reduce with k % 16 tiles per block (1, 2, 4, 8; 0 = the launcher's choice);
// bit 256: two launches where the launcher would take them; bit 512: four 16-bit tiles' partials
// each reduced alone.
int32_t wk_bench_reduce_k(void* stream, uint32_t dtype, uint32_t op, const void* in, uint64_t n,
                          void* scratch, uint64_t scratch_bytes, void* out, uint32_t k);
// wavekit's inclusive/exclusive Sum scan with `variant` = tiles per block x 16 + blocks per SM
// (1x16 + 4..7, 2x16 + 3..4), 0 for the launcher's choice, 1 for that choice with its loads
// through shared memory (types of 4 bytes or less), 2 with its stores 4 bytes a lane, or (the
// 16-bit floats, CUDA) 5 / 6 scan_pairs_kernel with blocks numbered by index, four / two tiles
// a block; `tag` as device_scan_tagged's (1: the scratch zeroed first).
int32_t wk_bench_scan_b(void* stream, uint32_t dtype, uint32_t exclusive, const void* in,
                        uint64_t n, void* scratch, uint64_t scratch_bytes, void* out,
                        uint32_t variant, uint32_t tag);
// wavekit's histogram with mode 0 plain atomics (shared-memory counts when bins <= 8191),
// 1 warp-aggregated (match_any), 2 adaptive, 3 plain atomics straight on the global counts.
int32_t wk_bench_histogram_mode(void* stream, const uint32_t* keys, uint64_t n, uint32_t bins,
                                uint64_t* out, int32_t mode);
// Warp-level microbenchmark (variants.cu): each thread of n runs wk_bench_warp_rounds_count()
// rounds of v = warp_sum(v) + (lane ^ round) over its warp (i32, wrapping), by the hardware
// reduce where prims::bfly takes it (hw = 1) or the shuffle butterfly (hw = 0); lane 0 of each
// warp writes v to out[warp].
uint32_t wk_bench_warp_rounds_count(void);
int32_t wk_bench_warp_rounds(void* stream, const int32_t* in, uint64_t n, int32_t* out,
                             uint32_t hw);
// Compaction (stable or unordered) of f32 or f64 (dtype) x > threshold (its bits) in the shape
// `blocks` names (row_codes.h; 0 the default); scratch as the compact launcher's, the count
// to *count (device).
int32_t wk_bench_compact_b(void* stream, uint32_t dtype, const void* in, uint64_t n,
                           uint64_t threshold_bits, void* scratch, uint64_t scratch_bytes,
                           void* out, uint64_t* count, uint32_t stable, uint32_t blocks);
// Stable two-way partition of f32 or f64 (dtype) by x > threshold (its bits) in the shape
// `blocks` names (row_codes.h; 0 the default); scratch as the partition launcher's, the
// size of the first part to *counts (device).
int32_t wk_bench_partition_b(void* stream, uint32_t dtype, const void* in, uint64_t n,
                             uint64_t threshold_bits, void* scratch, uint64_t scratch_bytes,
                             void* out, uint64_t* counts, uint32_t blocks);
// The balanced SpMV (f32) in the shape `variant` names (row_codes.h: 0 the default,
// 1 the vector kernel, 4 blocks an SM, plus 16 x log2 of a chunk, plus its bits: 256 prepared,
// 512 rows a group each, 1024 merge-path chunks); x has `rows` entries (a square matrix),
// scratch as the SpMV launcher's for nnz (for nnz + rows with bit 1024).
int32_t wk_bench_spmv_b(void* stream, const uint32_t* row_offsets, const uint32_t* cols,
                        const float* vals, const float* x, uint64_t rows, uint64_t nnz,
                        uint32_t vector, void* scratch, uint64_t scratch_bytes, float* y,
                        uint32_t variant);
// Run-length encode (lengths non-null) or unique of u32 keys in the shape `blocks` names
// (row_codes.h; 0 the default); scratch as the runs launcher's, the count to *count (device).
int32_t wk_bench_runs_b(void* stream, const uint32_t* keys, uint64_t n, void* scratch,
                        uint64_t scratch_bytes, uint32_t* keys_out, uint32_t* lengths,
                        uint64_t* count, uint32_t blocks);
// reduce_by_key (Sum) of f32 values over u32 keys in the shape `blocks` names
// (row_codes.h; 0 the default); scratch as the by_key launcher's, the count to *count.
int32_t wk_bench_reduce_by_key_b(void* stream, const uint32_t* keys, const float* vals,
                                 uint64_t n, void* scratch, uint64_t scratch_bytes, float* out,
                                 uint32_t* keys_out, uint64_t* count, uint32_t blocks);

// The seed ladder: sum of n floats by step 1..6 (see ladder.cu), result to *result (host),
// synchronising the stream. `d_y` is one device float the atomic steps accumulate into.
int32_t wk_bench_ladder(void* stream, uint32_t step, const float* in, uint64_t n, float* d_y,
                        float* result);
uint32_t wk_bench_ladder_steps(void);
const char* wk_bench_ladder_name(uint32_t step);

#ifdef __cplusplus
}
#endif
