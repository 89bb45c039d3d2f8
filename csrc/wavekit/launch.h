// The C ABI between the compiled csrc object and Rust. The table's entries are listed once, in
// launchers.def; backends/gpu/build.rs generates the Rust mirror from that list and from the
// WK_* constants below.
//
// Each vendor's object exports exactly one C symbol, wk_cuda_launchers() / wk_hip_launchers(),
// returning a table of launchers. Every launcher:
//   - takes the vendor stream first (cudaStream_t / hipStream_t as void*), then the device
//     status word, and runs asynchronously on that stream;
//   - takes element types as `dtype` (ElemKind's repr: i32 u32 i64 u64 f32 f64 = 0..5, and
//     f16 bf16 = 6, 7 since ABI 11 where the kernels take them; launchers.def says where
//     not), ops as
//     `op` (ReduceOp's repr), raw device pointers, and counts as uint64_t;
//   - warp primitives also take the runtime warp size (the kernel compares it with the width it
//     was compiled for and reports WK_ERR_WARP_SIZE in the status word if they differ) and
//     `impl`: WK_IMPL_NATIVE uses the vendor's instruction where the arch has one,
//     WK_IMPL_EMULATED forces the emulation in emulated.h;
//   - returns 0, a positive vendor error code (launch or API error), or a negative WK_ERR_*.
// Errors found by kernels go to the status word (first one wins); the host reads it after the
// work is done and resets it to {0, 0, WK_DETAIL_NONE}.
#pragma once

#include "rtc.h"

#define WK_ABI_VERSION 24

#define WK_OK 0
#define WK_ERR_WARP_SIZE (-1)
#define WK_ERR_DTYPE (-2)
#define WK_ERR_ARG (-3)
#define WK_ERR_INDEX (-4)
#define WK_ERR_SCRATCH (-5)
// ABI 13: a peer GPU did not reach peer_all_reduce's rendezvous within the timeout.
#define WK_ERR_TIMEOUT (-6)

#define WK_IMPL_NATIVE 0u
#define WK_IMPL_EMULATED 1u

#define WK_DETAIL_NONE (~0ull)

// Scratch users, for scratch_bytes().
#define WK_ALGO_DEVICE_REDUCE 0u
#define WK_ALGO_DEVICE_SCAN 1u
#define WK_ALGO_COUNT_IF 2u
#define WK_ALGO_COMPACT 3u
#define WK_ALGO_SPMV 4u  // n = nonzeros
// The sorting launchers' scratch, for sort_scratch_bytes() (keys and values by size).
#define WK_ALGO_SORT 5u            // keys (and values) into the caller's outputs
#define WK_ALGO_ARGSORT 6u         // the keys' indices only
#define WK_ALGO_SEGMENTED_SORT 7u  // segments longer than a warp
#define WK_ALGO_TOP_K 8u
// ABI 8: argmin/argmax's per-block (key, index) partials, for scratch_bytes(); since ABI 24
// also its ticket, in the device reduce's kind of scratch (launchers.def).
#define WK_ALGO_ARG_REDUCE 9u
#define WK_ALGO_RUNS 10u  // unique, unique_by_key, run_length_encode (ABI 8)
#define WK_ALGO_BY_KEY 11u  // reduce_by_key, scan_by_key: the values' dtype (ABI 9)
#define WK_ALGO_PARTITION 12u  // partition, partition3 (ABI 9)
// ABI 12: merge_runs' ping-pong copy of keys and values, for sort_scratch_bytes().
#define WK_ALGO_MERGE_RUNS 13u
// ABI 23: partition_reversed, partition3_reversed.
#define WK_ALGO_PARTITION_REVERSED 14u

// ABI 13: peer_all_reduce's ranks (the GPUs of one node) and the words of each rank's flag
// buffer (one per block and rank of its rendezvous; zeroed once, before the first call).
#define WK_MAX_PEERS 8
#define WK_PEER_FLAG_WORDS 1024
// ABI 14: peer_all_reduce's peers list ends with this rank's own send and recv (staging).

// ABI 20: the largest tag of the *_tagged launchers (a count's tile status keeps it and a 2-bit
// flag in the 24 bits above a 40-bit count; ABI 19 allowed 2^30 - 1 for device_scan_tagged).
#define WK_MAX_STATUS_TAG 4194303

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
#define WK_QUERY(ret, name, params) ret(*name) params;
#define WK_LAUNCHER(name, params) int32_t(*name) params;
#include "launchers.def"
#undef WK_QUERY
#undef WK_LAUNCHER
} wk_launchers;

#ifdef __cplusplus
}
#endif
