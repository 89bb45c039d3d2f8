// Launchers the kernels files call across files (and table.cu lists), in the vendor namespace.
#pragma once

#include "dispatch.h"

namespace WK_NS {
uint64_t device_reduce_scratch(uint32_t elem_size, uint64_t n);
uint64_t device_scan_scratch(uint32_t elem_size, uint64_t n);
uint64_t compact_scratch(uint64_t n);
int device_scan_launch(void* stream, wk_status* st, uint32_t dtype, uint32_t op,
                       uint32_t exclusive, const void* in, uint64_t n, void* scratch,
                       uint64_t scratch_bytes, void* out);
}  // namespace WK_NS
