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
uint64_t partition_reversed_scratch(uint64_t n);
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

// Test hook (look_back_probe.cu): statuses `flags`/`values` for tiles 0 .. tiles-1, the
// look-back's exclusive prefix of tile `tiles` into out (one element).
int look_back_probe_launch(void* stream, uint32_t dtype, uint32_t op, const uint32_t* flags,
                           const void* values, uint64_t tiles, void* scratch,
                           uint64_t scratch_bytes, void* out);
}  // namespace WK_NS
