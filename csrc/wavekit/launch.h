// The C ABI between the compiled csrc object and Rust (backends/gpu/ffi.rs mirrors it).
//
// Each vendor's object exports exactly one C symbol, wk_cuda_launchers() / wk_hip_launchers(),
// returning a table of launchers. Every launcher:
//   - takes the vendor stream first (cudaStream_t / hipStream_t as void*), then the device
//     status word, and runs asynchronously on that stream;
//   - takes element types as `dtype` (ElemKind's repr: i32 u32 i64 u64 f32 f64 = 0..5), ops as
//     `op` (ReduceOp's repr), raw device pointers, and counts as uint64_t;
//   - warp primitives also take the runtime warp size (the kernel compares it with the width it
//     was compiled for and reports WK_ERR_WARP_SIZE in the status word if they differ) and
//     `impl`: WK_IMPL_NATIVE uses the vendor's instruction where the arch has one,
//     WK_IMPL_EMULATED forces the emulation in emulated.h;
//   - returns 0, a positive vendor error code (launch or API error), or a negative WK_ERR_*.
// Errors found by kernels go to the status word (first one wins); the host reads it after the
// work is done and resets it to {0, 0, WK_DETAIL_NONE}.
#pragma once

#include <stdint.h>

#define WK_ABI_VERSION 2

#define WK_OK 0
#define WK_ERR_WARP_SIZE (-1)
#define WK_ERR_DTYPE (-2)
#define WK_ERR_ARG (-3)
#define WK_ERR_INDEX (-4)
#define WK_ERR_SCRATCH (-5)

#define WK_IMPL_NATIVE 0u
#define WK_IMPL_EMULATED 1u

#define WK_DETAIL_NONE (~0ull)

// Scratch users, for scratch_bytes().
#define WK_ALGO_DEVICE_REDUCE 0u
#define WK_ALGO_DEVICE_SCAN 1u
#define WK_ALGO_COUNT_IF 2u
#define WK_ALGO_COMPACT 3u

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wk_status {
  int32_t code;      // 0 or the first WK_ERR_* a kernel reported
  uint32_t reserved;
  uint64_t detail;   // WK_ERR_INDEX: (thread << 32 | bad value) of the lowest such thread
} wk_status;

typedef struct wk_launchers {
  uint32_t abi_version;
  uint32_t struct_size;
  const char* (*error_string)(int32_t code);
  // Bytes of scratch `algo` needs for n elements of dtype. Scratch need not be zeroed, except
  // device_reduce's: it must be zero the first time it is used, and every completed reduce
  // leaves it zero again (its tickets reset themselves), so keep it apart from other scratch.
  uint64_t (*scratch_bytes)(uint32_t algo, uint32_t dtype, uint64_t n);

  // ---- warp primitives: `threads` values, warps of the compiled width, member `mask` ----
  int32_t (*vote)(void* stream, wk_status* st, uint32_t warp_size, uint32_t impl, uint32_t vote,
                  const uint8_t* preds, uint64_t threads, uint64_t mask, uint64_t* out);
  int32_t (*shfl)(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype, uint32_t kind,
                  const void* vals, uint64_t threads, uint64_t mask, uint32_t arg,
                  uint32_t width, void* out);
  int32_t (*match)(void* stream, wk_status* st, uint32_t warp_size, uint32_t impl,
                   uint32_t dtype, uint32_t kind, const void* vals, uint64_t threads,
                   uint64_t mask, uint64_t* out_mask, uint8_t* out_pred);
  int32_t (*activemask)(void* stream, wk_status* st, uint32_t warp_size, uint32_t impl,
                        uint64_t threads, uint64_t mask, uint64_t* out);
  int32_t (*syncwarp_transpose)(void* stream, wk_status* st, uint32_t warp_size, uint32_t impl,
                                uint32_t dtype, const void* vals, uint64_t threads,
                                uint64_t mask, void* out);
  int32_t (*tile_shfl)(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                       uint32_t kind, const void* vals, uint64_t threads, uint32_t tile,
                       uint32_t arg, void* out);
  int32_t (*tile_vote)(void* stream, wk_status* st, uint32_t warp_size, uint32_t impl,
                       uint32_t vote, const uint8_t* preds, uint64_t threads, uint32_t tile,
                       uint64_t* out);
  int32_t (*tile_reduce)(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                         uint32_t op, const void* vals, uint64_t threads, uint32_t tile,
                         void* out);
  // ---- warp collectives over segments of `width` lanes ----
  int32_t (*warp_reduce)(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                         uint32_t op, const void* vals, uint64_t n, uint32_t width, void* out);
  int32_t (*warp_scan)(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                       uint32_t op, uint32_t exclusive, const void* vals, uint64_t n,
                       uint32_t width, void* out);
  // ---- device collectives ----
  int32_t (*block_reduce)(void* stream, wk_status* st, uint32_t dtype, uint32_t op,
                          const void* in, uint64_t n, uint32_t block, void* out);
  // out: one element in device memory.
  int32_t (*device_reduce)(void* stream, wk_status* st, uint32_t dtype, uint32_t op,
                           const void* in, uint64_t n, void* scratch, uint64_t scratch_bytes,
                           void* out);
  int32_t (*device_scan)(void* stream, wk_status* st, uint32_t dtype, uint32_t op,
                         uint32_t exclusive, const void* in, uint64_t n, void* scratch,
                         uint64_t scratch_bytes, void* out);
  // offsets == NULL: `count` segments of `seg_size` elements, the last possibly shorter.
  int32_t (*segmented_reduce)(void* stream, wk_status* st, uint32_t dtype, uint32_t op,
                              const void* in, uint64_t n, const uint32_t* offsets,
                              uint64_t seg_size, uint64_t count, uint32_t vector, void* out);
  int32_t (*spmv)(void* stream, wk_status* st, uint32_t dtype, const uint32_t* row_offsets,
                  const uint32_t* cols, const void* vals, const void* x, uint64_t rows,
                  uint32_t vector, void* y);
  int32_t (*atomic_agg_inc)(void* stream, wk_status* st, uint32_t warp_size, uint32_t impl,
                            const uint32_t* slots, uint64_t n, uint32_t* counters,
                            uint64_t ncounters, uint32_t* olds);
  // Predicates as Predicate::encode(): (code, a bits, b bits). out_count: one device uint64.
  int32_t (*count_if)(void* stream, wk_status* st, uint32_t dtype, uint32_t pred, uint64_t a,
                      uint64_t b, const void* in, uint64_t n, void* scratch,
                      uint64_t scratch_bytes, uint64_t* out_count);
  int32_t (*compact)(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                     uint32_t pred, uint64_t a, uint64_t b, uint32_t stable, const void* in,
                     uint64_t n, void* scratch, uint64_t scratch_bytes, void* out,
                     uint64_t* out_count);
  // out: bins + 1 device uint64 (counts, then the keys at or past `bins`); zeroed here.
  int32_t (*histogram)(void* stream, wk_status* st, const uint32_t* keys, uint64_t n,
                       uint32_t bins, uint64_t* out);
  // ---- test hooks ----
  // The scan's look-back over caller-chosen statuses: flags[i] (1 aggregate, 2 inclusive
  // prefix; flags[0] must be 2) and values[i] for tiles 0 .. tiles-1; out (one element) gets
  // the exclusive prefix of tile `tiles`. scratch: scratch_bytes(DEVICE_SCAN, dtype,
  // tiles * WK_SCAN_TILE).
  int32_t (*look_back_probe)(void* stream, uint32_t dtype, uint32_t op, const uint32_t* flags,
                             const void* values, uint64_t tiles, void* scratch,
                             uint64_t scratch_bytes, void* out);
} wk_launchers;

#ifdef __cplusplus
}
#endif
