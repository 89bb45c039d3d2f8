// C interface of the SIMT executor for the Rust side (backends/simt/src/ffi.rs mirrors it).
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Scheduling policies. LOCKSTEP runs the lanes of a warp interleaved one shared-memory access
// at a time and lets __activemask() see every lane of the warp at that call (AMD wavefronts,
// pre-Volta warps). The others run each lane alone to its next synchronising point (Volta
// independent thread scheduling) in forward, reverse or seeded random thread order, and split
// the lanes reaching an __activemask() together into smaller groups.
enum {
  WK_SIMT_LOCKSTEP = 0,
  WK_SIMT_FORWARD = 1,
  WK_SIMT_REVERSE = 2,
  WK_SIMT_RANDOM = 3,
};

// Hazard kinds.
enum {
  WK_SIMT_BARRIER_DIVERGENCE = 0,  // a __syncthreads not reached by every thread of the block;
                                   // a grid.sync() not reached by every thread of the grid, or
                                   // reached in a launch that is not cooperative
  WK_SIMT_INACTIVE_MASK_LANE = 1,  // a collective's mask names a lane that exited, does not
                                   // exist or waits at a block barrier
  WK_SIMT_MISMATCHED_COLLECTIVE = 2,  // lanes named in a mask wait at a different collective
                                      // or mask, or the mask leaves out the caller
  WK_SIMT_SHFL_OUTSIDE_MASK = 3,      // a shuffle read a source lane outside its mask
  WK_SIMT_SHARED_RACE = 4,            // two threads touch a shared element, one writes, and no
                                      // barrier orders them
  WK_SIMT_SHARED_OUT_OF_BOUNDS = 5,
  WK_SIMT_STALLED = 6,  // the executor gave up on a block (too many forced resolutions)
  // Value checks (checks.cpp), for data bugs of wave64 ports:
  WK_SIMT_SHIFT_OUT_OF_RANGE = 7,  // a shift by at least the width of its type, or of a negative
                                   // value (device code built with -fsanitize=shift)
  WK_SIMT_MASK_NARROWED = 8,       // a lane mask lost its lanes above 31: a 64-bit mask given to
                                   // a 32-bit built-in, or a wave64 result stored in 32 bits
  WK_SIMT_UNINIT_SHARED_READ = 9,  // a shared element read before any thread of the block wrote it
  WK_SIMT_UNWRITTEN_OUTPUT = 10,   // elements of a checked output no thread wrote
  WK_SIMT_REDUCTION_SPAN = 11,     // a shuffle tree whose offsets do not span its segment: lanes
                                   // left out (offsets from 16 on 64 lanes) or counted twice
  WK_SIMT_INVALID_ACCESS = 12,     // a lane faulted on memory nothing of the launch holds (plain
                                   // CUDA/HIP addressing out of bounds); the launch is abandoned
  WK_SIMT_REPORT_KINDS = 13,
};

// Launch return codes. Hazards are reports in the session; HAZARDS only says there are new ones.
enum {
  WK_SIMT_OK = 0,
  WK_SIMT_ERR_CONFIG = 1,   // bad grid, block or width
  WK_SIMT_ERR_ABORTED = 2,  // a block was abandoned (see the STALLED report)
  WK_SIMT_HAZARDS = 3,      // the launch ran to the end and reported hazards
  WK_SIMT_ERR_FAULT = 4,    // a lane faulted (see the INVALID_ACCESS report); launch abandoned
  WK_SIMT_ERR_OUT_OF_MEMORY = 5,  // the executor could not get memory for the launch (a fiber
                                  // stack, its state, shared memory); nothing of it ran, or it
                                  // was abandoned. wk_simt_take_oom_bytes says how much.
  WK_SIMT_ERR_INTERNAL = 6,       // a C++ exception other than std::bad_alloc stopped the call
  WK_SIMT_ERR_COOPERATIVE_TOO_LARGE = 7,  // a cooperative launch of more threads than the
                                          // executor keeps co-resident
                                          // (wk_simt_cooperative_max_threads); nothing ran
  WK_SIMT_ERR_NOT_COOPERATIVE = 8,  // grid.sync() in a launch that is not cooperative (see its
                                    // BARRIER_DIVERGENCE report); the launch was abandoned
};

typedef struct wk_simt_session wk_simt_session;

typedef struct {
  uint32_t kind;
  uint32_t block[3];
  uint32_t warp;
  uint32_t width;
  uint64_t lanes;
  const char* kernel;  // valid until the reports are cleared
  const char* detail;
} wk_simt_report;

wk_simt_session* wk_simt_session_new(uint32_t policy, uint64_t seed);
void wk_simt_session_free(wk_simt_session* s);
void wk_simt_session_configure(wk_simt_session* s, uint32_t policy, uint64_t seed);
size_t wk_simt_session_report_count(wk_simt_session* s);
// Copies report i into *out; returns 0, or -1 if i is out of range.
int wk_simt_session_report(wk_simt_session* s, size_t i, wk_simt_report* out);
// Reports left out because a launch hit its cap of reports.
uint64_t wk_simt_session_suppressed(wk_simt_session* s);
// The reports of each kind a launch keeps from now on (16 unless set; 0 keeps none).
void wk_simt_session_set_report_cap(wk_simt_session* s, uint32_t cap);
// Makes the launches of `s` from now on cooperative (`on` non-zero), as
// cudaLaunchCooperativeKernel launches: every block of the grid resident at once, as fibers,
// and grid.sync() a barrier across them; or not (the default: blocks one after another).
void wk_simt_session_set_cooperative(wk_simt_session* s, int on);
// The most threads (blocks times threads a block) a cooperative launch may have: each is a
// fiber with its own stack for the whole launch. A larger one fails with
// WK_SIMT_ERR_COOPERATIVE_TOO_LARGE.
uint64_t wk_simt_cooperative_max_threads(void);
void wk_simt_session_clear(wk_simt_session* s);
// Removes the first n reports (those a caller has copied).
void wk_simt_session_drop(wk_simt_session* s, size_t n);
uint64_t wk_simt_session_launches(wk_simt_session* s);
const char* wk_simt_error_string(int code);
// The bytes of the allocation behind the last WK_SIMT_ERR_OUT_OF_MEMORY of this OS thread (0
// when the allocator did not say), then 0.
uint64_t wk_simt_take_oom_bytes(void);
// expect_written (executor.h) for a caller outside device code: the next launch of this OS
// thread reports the elements of `p` no thread wrote, the report naming `file`:`line` (copied).
void wk_simt_expect_written(void* p, size_t count, size_t elem_bytes, size_t stride,
                            const char* name, const char* file, int line);

#ifdef __cplusplus
}
#endif
