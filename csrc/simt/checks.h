// The executor's value checks (checks.cpp), for the data bugs of wave64 ports that no barrier or
// mask rule catches: lane masks cut to 32 bits, shifts past the width of their type (through
// -fsanitize=shift), shared memory read before any thread wrote it, outputs no thread wrote,
// and shuffle reduction trees whose offsets do not span their segment. Internal: the state
// they keep per lane and per launch, and the hooks the scheduler and shared memory call.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <unordered_map>

#include "executor.h"

namespace wk_simt {

struct Launch;
struct Lane;

struct LaneChecks {
  // This lane's latest collective results with lanes above 31 set (ballot, __activemask,
  // match_any): a 32-bit value equal to the low half of one is that mask cut to 32 bits.
  static constexpr int kWide = 4;
  uint64_t wide[kWide] = {};
  Site wide_site[kWide] = {};
  uint8_t wide_next = 0;
  // Low halves of those given to a 32-bit built-in: reported when the lane exits, unless it
  // gave the same built-ins the high half too (code that splits a mask in halves on purpose).
  struct Cut {
    const char* what;
    uint64_t value, wide;
    Site site, from;
  };
  Cut cuts[kWide] = {};
  uint8_t ncuts = 0;
  uint64_t halved[kWide] = {};  // results whose high half this lane used
  uint8_t halved_next = 0;
  // The shuffle tree (consecutive shfl_down or shfl_xor calls with halving offsets) this lane
  // is in: where it started, its first and latest offsets, its op, width and mask.
  Site tree_site{nullptr, 0};
  Op tree_op = Op::All;
  unsigned tree_first = 0, tree_last = 0, tree_width = 0;
  uint64_t tree_mask = 0;
};

// A report that later lanes add themselves to: its index in Launch::reports and the range of
// the values (shift counts, element indices) its lanes met.
struct MergedReport {
  size_t index;
  int64_t lo, hi;
};

struct LaunchChecks {
  // Keyed by block, warp, kind and what the check names (a source line, an array).
  std::unordered_map<std::string, MergedReport> merged;
};

// Before lane `x` joins a warp collective: a mask that is a wave64 result cut to 32 bits, and
// the shuffle tree its offsets build.
void check_collective(Launch& L, Lane& x, Op op, uint64_t mask, unsigned arg, unsigned width,
                      Site site);
// After it: remembers results with lanes above 31 set.
void note_collective_result(Lane& x, Op op, uint64_t result);
// Thread `t` read (or atomically updated) shared element `index` of `array`, which no thread
// of the block has written.
void report_uninit_read(Launch& L, const std::string& array, size_t index, unsigned t, Site site);
// The running lane is about to exit: its pending cut masks.
void lane_exit_checks(Launch& L);
// Thread `t` touched element `index` of `array`, which has `count`.
void report_out_of_bounds(Launch& L, const std::string& array, size_t count, int64_t index,
                          unsigned t, Site site);
// At the end of a launch: the outputs expect_written registered for it.
void check_outputs(Launch& L);
// A launch that could not run drops them.
void discard_outputs();

}  // namespace wk_simt
