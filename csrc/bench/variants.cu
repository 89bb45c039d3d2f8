// Entry points to more variants of wavekit's own kernels (the stable compaction's occupancy) and
// the warp-level microbenchmark of the integer warp reduce: the hardware reduce (redux.sync on
// sm_80+, what prims::bfly takes for a whole warp of 32-bit integers) against the shuffle
// butterfly, each thread running kRounds dependent reduces so the instruction cost shows.
#include "bench.h"
#include "row_codes.h"

namespace {

const unsigned kRoundsBlock = 256;
const unsigned kRounds = 32;

template <bool HW>
__global__ void __launch_bounds__(kRoundsBlock)
    warp_rounds_kernel(const int32_t* in, uint64_t n, int32_t* out) {
  const uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned ln = WK_NS::prims::lane();
  int32_t v = t < n ? in[t] : 0;
  for (unsigned r = 0; r < kRounds; ++r) {
    const int32_t s = HW ? WK_NS::prims::bfly<WK_NS::OP_SUM, int32_t>(WK_FULL_MASK, v, WK_WARP_SIZE)
                         : WK_NS::prims::bfly_shuffle<WK_NS::OP_SUM, int32_t>(WK_FULL_MASK, v, WK_WARP_SIZE);
    v = (int32_t)((uint32_t)s + (ln ^ r));
  }
  if (t < n && ln == 0) out[t / WK_WARP_SIZE] = v;
}

}  // namespace

extern "C" uint32_t wk_bench_warp_rounds_count(void) { return kRounds; }

extern "C" int32_t wk_bench_warp_rounds(void* stream, const int32_t* in, uint64_t n, int32_t* out,
                                        uint32_t hw) {
  const uint64_t grid = (n + kRoundsBlock - 1) / kRoundsBlock;
  if (n == 0 || grid > 0x7fffffffull) return WK_ERR_ARG;
  if (hw)
    warp_rounds_kernel<true><<<(unsigned)grid, kRoundsBlock, 0, (cudaStream_t)stream>>>(in, n, out);
  else
    warp_rounds_kernel<false><<<(unsigned)grid, kRoundsBlock, 0, (cudaStream_t)stream>>>(in, n, out);
  return (int32_t)cudaGetLastError();
}

extern "C" int32_t wk_bench_compact_b(void* stream, uint32_t dtype, const void* in, uint64_t n,
                                      uint64_t threshold_bits, void* scratch,
                                      uint64_t scratch_bytes, void* out, uint64_t* count,
                                      uint32_t stable, uint32_t blocks) {
  // Predicate code 2: x > a (crates/core/src/predicate.rs, Predicate::encode).
  return WK_NS::compact_shaped(stream, nullptr, WK_WARP_SIZE, dtype, 2, threshold_bits, 0, stable,
                               in, n, scratch, scratch_bytes, out, count,
                               wk_bench::tile_shape(blocks), 1);
}

extern "C" int32_t wk_bench_partition_b(void* stream, uint32_t dtype, const void* in, uint64_t n,
                                        uint64_t threshold_bits, void* scratch,
                                        uint64_t scratch_bytes, void* out, uint64_t* counts,
                                        uint32_t blocks) {
  // Two-way, predicate code 2: x > a (crates/core/src/predicate.rs, Predicate::encode).
  return WK_NS::partition_shaped(stream, nullptr, WK_WARP_SIZE, dtype, 2, 2, threshold_bits, 0, 0,
                                 0, 0, in, n, scratch, scratch_bytes, out, counts,
                                 wk_bench::tile_shape(blocks));
}

extern "C" int32_t wk_bench_runs_b(void* stream, const uint32_t* keys, uint64_t n, void* scratch,
                                   uint64_t scratch_bytes, uint32_t* keys_out, uint32_t* lengths,
                                   uint64_t* count, uint32_t blocks) {
  return WK_NS::runs_shaped(stream, nullptr, WK_WARP_SIZE, WK_NS::DT_U32, 0, keys, nullptr, n,
                            scratch, scratch_bytes, keys_out, nullptr, lengths, count,
                            wk_bench::tile_shape(blocks), 1);
}

extern "C" int32_t wk_bench_reduce_by_key_b(void* stream, const uint32_t* keys, const float* vals,
                                            uint64_t n, void* scratch, uint64_t scratch_bytes,
                                            float* out, uint32_t* keys_out, uint64_t* count,
                                            uint32_t blocks) {
  // Mode 2: reduce_by_key (by_key.cu), op 0: Sum.
  return WK_NS::by_key_shaped(stream, nullptr, WK_WARP_SIZE, WK_NS::DT_U32, WK_NS::DT_F32, 0, 2,
                              keys, vals, n, scratch, scratch_bytes, out, keys_out, count,
                              wk_bench::tile_shape(blocks), 1);
}

extern "C" int32_t wk_bench_spmv_b(void* stream, const uint32_t* row_offsets, const uint32_t* cols,
                                   const float* vals, const float* x, uint64_t rows, uint64_t nnz,
                                   uint32_t vector, void* scratch, uint64_t scratch_bytes,
                                   float* y, uint32_t variant) {
  WK_NS::SpmvShape shape;
  if (!wk_bench::spmv_shape(variant, &shape)) return WK_ERR_ARG;
  return WK_NS::spmv_balanced_shaped(stream, nullptr, WK_NS::DT_F32, row_offsets, cols, vals, x,
                                     rows, rows, nnz, vector, scratch, scratch_bytes, y, shape);
}
