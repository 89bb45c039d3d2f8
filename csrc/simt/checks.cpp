// Value checks: the data bugs of wave64 ports that no barrier or mask rule catches (see
// checks.h). Each report names the source line; lanes of one warp that trip the same check at
// the same line in the same block are added to one report.
#include <stdio.h>
#include <string.h>

#include <algorithm>

#include "internal.h"

namespace wk_simt {

namespace {

std::string range(int64_t lo, int64_t hi) {
  return lo == hi ? std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi);
}

// Adds lane `lane` of warp `warp` (value `v`) to the block's report of `kind` keyed by `key`,
// creating it; `detail(lanes, lo, hi)` writes its text for the lanes and value range so far.
template <class F>
void report_lane(Launch& L, uint32_t kind, unsigned warp, unsigned lane, const std::string& key,
                 int64_t v, F detail) {
  const std::string k = std::to_string(L.block_serial) + "/" + std::to_string(warp) + "/" +
                        std::to_string(kind) + "/" + key;
  auto it = L.checks.merged.find(k);
  if (it != L.checks.merged.end()) {
    MergedReport& m = it->second;
    Report& r = L.reports[m.index];
    r.lanes |= 1ull << lane;
    m.lo = std::min(m.lo, v);
    m.hi = std::max(m.hi, v);
    r.detail = detail(r.lanes, m.lo, m.hi);
    return;
  }
  const size_t before = L.reports.size();
  L.report(kind, warp, 1ull << lane, detail(1ull << lane, v, v));
  if (L.reports.size() > before) L.checks.merged[k] = MergedReport{before, v, v};
}

// The running lane's report of `kind` at `site`.
template <class F>
void report_here(uint32_t kind, Site site, int64_t v, F detail) {
  Launch& L = *g_launch;
  report_lane(L, kind, L.warp_of(L.cur), L.lane_of(L.cur), site_str(site), v, detail);
}

// ---- masks cut to 32 bits ----

bool wide_result_op(Op op) {
  return op == Op::Ballot || op == Op::BallotActive || op == Op::ActiveMask ||
         op == Op::MatchAny;
}

bool masked_op(Op op) {
  switch (op) {
    case Op::All:
    case Op::Any:
    case Op::Uni:
    case Op::Ballot:
    case Op::ShflIdx:
    case Op::ShflUp:
    case Op::ShflDown:
    case Op::ShflXor:
    case Op::MatchAny:
    case Op::MatchAll:
    case Op::SyncWarp: return true;
    default: return false;
  }
}

// The recent wave64 result of lane `x` whose low 32 bits are `v`, if any. Zero matches nothing:
// it is too common a value to blame on a cut mask.
const Site* narrowed_from(const Lane& x, uint64_t v, uint64_t* wide) {
  if (v == 0 || v >> 32) return nullptr;
  for (int i = 0; i < LaneChecks::kWide; ++i) {
    const uint64_t r = x.checks.wide[i];
    if (r >> 32 && (uint32_t)r == v) {
      *wide = r;
      return &x.checks.wide_site[i];
    }
  }
  return nullptr;
}

std::string cut_story(uint64_t wide, Site from) {
  return "it is the low half of " + hex(wide) + ", the 64-lane result of the collective at " +
         site_str(from) + ", stored in 32 bits: lanes " + lane_list(wide >> 32 << 32) +
         " were dropped (keep lane masks in a 64-bit type, wk_lanemask_t)";
}

// ---- shuffle trees ----

void check_tree(Launch& L, Lane& x, Op op, uint64_t mask, unsigned arg, unsigned width,
                Site site) {
  LaneChecks& c = x.checks;
  if (op != Op::ShflDown && op != Op::ShflXor) return;
  const bool step = c.tree_op == op && c.tree_width == width && c.tree_mask == mask &&
                    (arg * 2 == c.tree_last || arg == c.tree_last);
  if (!step) {
    c.tree_site = site;
    c.tree_op = op;
    c.tree_first = arg;
    c.tree_width = width;
    c.tree_mask = mask;
  }
  c.tree_last = arg;
  if (arg != 1 || c.tree_first < 2 || width < 2 || (width & (width - 1))) return;
  const unsigned first = c.tree_first;
  const unsigned lane = L.lane_of(L.cur);
  const unsigned base = lane & ~(width - 1);
  const uint64_t segment = (width >= 64 ? ~0ull : ((1ull << width) - 1)) << base;
  const unsigned span = std::min(2 * first, width);
  const uint64_t reached = (span >= 64 ? ~0ull : ((1ull << span) - 1)) << base;
  const Site at = c.tree_site;
  if (first >= width) {
    report_here(WK_SIMT_REDUCTION_SPAN, at, first, [&](uint64_t lanes, int64_t, int64_t) {
      return "shuffle tree at " + site_str(at) + " runs offsets " + std::to_string(first) +
             "..1 in segments of " + std::to_string(width) + " lanes: the steps with offsets >= " +
             std::to_string(width) + " read each lane's own value, which the tree then counts "
             "twice (lanes " + lane_list(lanes) + "); start at width/2";
    });
  } else if (width == 64 && span == 32 && (mask & segment & ~reached)) {
    // Only the 32-lane tree on 64 lanes, the hard-coded warp size: a smaller tree over part of
    // the segment is too often deliberate (a few partial sums, the rest zero).
    report_here(WK_SIMT_REDUCTION_SPAN, at, first, [&](uint64_t lanes, int64_t, int64_t) {
      return "shuffle tree at " + site_str(at) + " runs offsets " + std::to_string(first) +
             "..1 in segments of " + std::to_string(width) + " lanes: each result combines " +
             std::to_string(span) + " lanes, so lanes " + lane_list(mask & segment & ~reached) +
             " of the mask never reach lane " + std::to_string(base) + " (lanes " +
             lane_list(lanes) + "; a warp size of 32 hard-coded?); start at width/2";
    });
  }
}

// ---- -fsanitize=shift (GCC's and clang's UBSan ABI) ----

struct SourceLocation {
  const char* file;
  uint32_t line;
  uint32_t column;
};
struct TypeDescriptor {
  uint16_t kind;  // 0: integer
  uint16_t info;  // integer: log2(bits) << 1 | signed
  char name[1];
};
struct ShiftOutOfBoundsData {
  SourceLocation loc;
  const TypeDescriptor* lhs;
  const TypeDescriptor* rhs;
};

unsigned type_bits(const TypeDescriptor* t) { return t->kind == 0 ? 1u << (t->info >> 1) : 64; }

// A value UBSan passes: inline when it fits in a pointer, else by address.
int64_t value_of(const TypeDescriptor* t, uintptr_t v) {
  const unsigned bits = type_bits(t);
  uint64_t raw = bits <= 64 ? (uint64_t)v : *reinterpret_cast<const uint64_t*>(v);
  if (bits < 64) raw &= (1ull << bits) - 1;
  if (t->kind == 0 && (t->info & 1) && bits < 64 && (raw >> (bits - 1) & 1)) raw |= ~0ull << bits;
  return (int64_t)raw;
}

void shift_report(ShiftOutOfBoundsData* d, uintptr_t lhs, uintptr_t rhs) {
  const unsigned bits = type_bits(d->lhs);
  const int64_t count = value_of(d->rhs, rhs);
  const int64_t value = value_of(d->lhs, lhs);
  const Site site{d->loc.file, (int)d->loc.line};
  const std::string type = std::string(d->lhs->name) + " (" + std::to_string(bits) + " bits)";
  if (!g_launch) {
    fprintf(stderr, "wavekit simt: shift out of range at %s outside a launch\n",
            site_str(site).c_str());
    return;
  }
  const bool by_count = count < 0 || count >= (int64_t)bits;
  report_here(WK_SIMT_SHIFT_OUT_OF_RANGE, site, by_count ? count : value,
              [&](uint64_t lanes, int64_t lo, int64_t hi) {
                if (by_count)
                  return "shift at " + site_str(site) + ": " + type + " shifted by " +
                         range(lo, hi) + " (lanes " + lane_list(lanes) +
                         "), at least its width: undefined; x86 and AMD shift by the count "
                         "modulo the width, NVIDIA clamps it (for lane bits use a 64-bit "
                         "wk_lanemask_t)";
                return "shift at " + site_str(site) + ": left shift of " + type + " value " +
                       range(lo, hi) + " (lanes " + lane_list(lanes) +
                       ") is negative or overflows: undefined";
              });
}

// ---- outputs ----

struct ExpectedOutput {
  unsigned char* p;
  size_t count, elem, stride;
  std::string name;
  Site site;
};
thread_local std::vector<ExpectedOutput> t_outputs;

bool poisoned(const unsigned char* e, size_t n) {
  for (size_t k = 0; k < n; ++k)
    if (e[k] != kOutputPoison) return false;
  return true;
}

}  // namespace

void check_collective(Launch& L, Lane& x, Op op, uint64_t mask, unsigned arg, unsigned width,
                      Site site) {
  if (!masked_op(op)) return;
  // A cut mask named by a lane it cut out, which was in the wave64 result it came from.
  const unsigned lane = L.lane_of(L.cur);
  uint64_t wide = 0;
  const Site* from = L.W == 64 && !(mask >> lane & 1) ? narrowed_from(x, mask, &wide) : nullptr;
  if (from && (wide >> lane & 1)) {
    const Site src = *from;
    report_here(WK_SIMT_MASK_NARROWED, site, 0, [&](uint64_t lanes, int64_t, int64_t) {
      return "the mask " + hex(mask) + " at " + site_str(site) + " leaves out its callers " +
             lane_list(lanes) + ": " + cut_story(wide, src);
    });
  }
  check_tree(L, x, op, mask, arg, width, site);
}

void note_collective_result(Lane& x, Op op, uint64_t result) {
  if (!wide_result_op(op) || !(result >> 32)) return;
  LaneChecks& c = x.checks;
  c.wide[c.wide_next] = result;
  c.wide_site[c.wide_next] = x.site;
  c.wide_next = (uint8_t)((c.wide_next + 1) % LaneChecks::kWide);
}

void check_narrow(const char* what, uint64_t bits, unsigned bytes, Site site) {
  if (!g_launch) return;
  Launch& L = *g_launch;
  const std::string name(what);
  if (bytes > 4 && bits >> 32) {
    report_here(WK_SIMT_MASK_NARROWED, site, 0, [&](uint64_t lanes, int64_t, int64_t) {
      return name + " at " + site_str(site) + " takes 32 bits but is given the 64-bit " +
             hex(bits) + " (lanes " + lane_list(lanes) + "): its bits for lanes " +
             lane_list(bits >> 32 << 32) + " are dropped; use the 64-bit form (" + name +
             "ll) for lane masks";
    });
    return;
  }
  LaneChecks& c = L.me().checks;
  const uint64_t v = bits & 0xffffffffull;
  // The high half of a recent result: the lane splits that mask in halves on purpose.
  for (int i = 0; i < LaneChecks::kWide; ++i) {
    const uint64_t r = c.wide[i];
    if (v == 0 || r >> 32 != v) continue;
    c.halved[c.halved_next] = r;
    c.halved_next = (uint8_t)((c.halved_next + 1) % LaneChecks::kWide);
    uint8_t keep = 0;
    for (uint8_t k = 0; k < c.ncuts; ++k)
      if (c.cuts[k].wide != r) c.cuts[keep++] = c.cuts[k];
    c.ncuts = keep;
    return;
  }
  uint64_t wide = 0;
  const Site* from = narrowed_from(L.me(), v, &wide);
  if (!from || c.ncuts == LaneChecks::kWide) return;
  for (int i = 0; i < LaneChecks::kWide; ++i)
    if (c.halved[i] == wide) return;
  for (uint8_t k = 0; k < c.ncuts; ++k)
    if (same_site(c.cuts[k].site, site) && c.cuts[k].wide == wide) return;
  c.cuts[c.ncuts++] = LaneChecks::Cut{what, v, wide, site, *from};
}

void lane_exit_checks(Launch& L) {
  LaneChecks& c = L.me().checks;
  for (uint8_t k = 0; k < c.ncuts; ++k) {
    const LaneChecks::Cut cut = c.cuts[k];
    report_here(WK_SIMT_MASK_NARROWED, cut.site, 0, [&](uint64_t lanes, int64_t, int64_t) {
      return std::string(cut.what) + " at " + site_str(cut.site) + " is given " +
             hex(cut.value) + " (lanes " + lane_list(lanes) + "): " +
             cut_story(cut.wide, cut.from);
    });
  }
  c.ncuts = 0;
}

void report_uninit_read(Launch& L, const std::string& array, size_t index, unsigned t,
                        Site site) {
  const std::string where = has_site(site) ? " at " + site_str(site) : std::string();
  report_lane(L, WK_SIMT_UNINIT_SHARED_READ, L.warp_of(t), L.lane_of(t), array + where,
              (int64_t)index, [&](uint64_t lanes, int64_t lo, int64_t hi) {
                return "shared '" + array + "'[" + range(lo, hi) + "] read" + where +
                       " by lanes " + lane_list(lanes) +
                       " before any thread of the block wrote it: shared memory starts "
                       "undefined";
              });
}

void report_out_of_bounds(Launch& L, const std::string& array, size_t count, int64_t index,
                          unsigned t, Site site) {
  const std::string where = has_site(site) ? " at " + site_str(site) : std::string();
  report_lane(L, WK_SIMT_SHARED_OUT_OF_BOUNDS, L.warp_of(t), L.lane_of(t), array + where, index,
              [&](uint64_t lanes, int64_t lo, int64_t hi) {
                return "shared '" + array + "'[" + std::to_string(lo) + "]" +
                       (hi > lo ? " to [" + std::to_string(hi) + "]" : std::string()) + where +
                       " is outside its " + std::to_string(count) + " elements (lanes " +
                       lane_list(lanes) + ")";
              });
}

void expect_written(void* p, size_t count, size_t elem, size_t stride, const char* name,
                    Site site) {
  // Called from device code's entry points (the corpus), which Rust calls: no exception out.
  // Without memory for the record the output is left as it is and the next launch of this
  // thread fails with WK_SIMT_ERR_OUT_OF_MEMORY.
  guarded_void([&] {
    t_outputs.push_back(ExpectedOutput{static_cast<unsigned char*>(p), count, elem,
                                       stride ? stride : 1, name, site});
    memset(p, kOutputPoison, count * elem);
  });
}

void discard_outputs() { t_outputs.clear(); }

void check_outputs(Launch& L) {
  std::vector<ExpectedOutput> outs;
  outs.swap(t_outputs);
  const uint64_t per_block = L.n;
  const uint64_t blocks = (uint64_t)L.grid.x * L.grid.y * L.grid.z;
  for (const ExpectedOutput& o : outs) {
    // Unwritten elements grouped by the warp meant to write them.
    struct Gap {
      uint64_t block;
      unsigned warp;
      uint64_t lanes;
      size_t lo, hi;
    };
    std::vector<Gap> gaps;
    for (size_t i = 0; i < o.count; ++i) {
      if (!poisoned(o.p + i * o.elem, o.elem)) continue;
      const uint64_t g = (uint64_t)i * o.stride % (per_block * blocks);
      const uint64_t b = g / per_block;
      const unsigned t = (unsigned)(g % per_block);
      const unsigned w = L.warp_of(t);
      if (gaps.empty() || gaps.back().block != b || gaps.back().warp != w)
        gaps.push_back(Gap{b, w, 0, i, i});
      gaps.back().lanes |= 1ull << L.lane_of(t);
      gaps.back().hi = i;
    }
    for (const Gap& gap : gaps) {
      const Dim3 bidx{(unsigned)(gap.block % L.grid.x),
                      (unsigned)(gap.block / L.grid.x % L.grid.y),
                      (unsigned)(gap.block / ((uint64_t)L.grid.x * L.grid.y))};
      const size_t before = L.reports.size();
      L.report(WK_SIMT_UNWRITTEN_OUTPUT, gap.warp, gap.lanes,
               "output '" + o.name + "'[" + range((int64_t)gap.lo, (int64_t)gap.hi) +
                   "] still holds the poison written before the launch: lanes " +
                   lane_list(gap.lanes) + " of warp " + std::to_string(gap.warp) +
                   ", which were to write it, never did (output checked at " +
                   site_str(o.site) + ")");
      if (L.reports.size() > before) L.reports.back().block = bidx;
    }
  }
}

}  // namespace wk_simt

extern "C" {
// GCC and clang call these from code built with -fsanitize=shift (the _abort form under
// -fno-sanitize-recover); here they become reports naming the lane.
void __ubsan_handle_shift_out_of_bounds(wk_simt::ShiftOutOfBoundsData* d, uintptr_t lhs,
                                        uintptr_t rhs) {
  wk_simt::shift_report(d, lhs, rhs);
}
void __ubsan_handle_shift_out_of_bounds_abort(wk_simt::ShiftOutOfBoundsData* d, uintptr_t lhs,
                                              uintptr_t rhs) {
  wk_simt::shift_report(d, lhs, rhs);
}
}
