// The AMDGCN builtins of amdgcn.h on the executor core, and how the lanes of a warp move
// together as an AMD wave's do.
//
// An AMD wave has one program counter: its lanes run each instruction together, those with
// their EXEC bit off skipping it; a divergent branch runs one side, then the other, and the
// lanes meet again where the code after the branch begins. A cross-lane builtin here is a
// collective over the lanes at the same instruction (the same call instruction in the host
// code, at the same stack depth); which lanes those are is decided as the wave would:
//
// The flavour's code is compiled with -fsanitize-coverage=trace-pc (csrc/src/simt.rs), which
// calls __sanitizer_cov_trace_pc at the start of every basic block, where each lane notes the
// block. Lanes run as fibers, each to its next wave instruction, barrier or exit. When all
// have stopped, each warp replays what its lanes noted the way the hardware steps a diverged
// wave: the lanes at the position that comes first (deepest in calls, then lowest address)
// move on one block, the others wait, until the first position is a wave instruction; the
// lanes there are its group, and run on. The blocks lie in program order (the flavour is
// compiled without the optimisations that move them), so the side of a branch runs to its end
// before the code after the branch, and a loop's lanes finish the loop before those that left
// it go on: the order the hardware's EXEC mask gives (the "MinPC" rule of GPU simulators; a
// goto back up the code would defeat it, structured code does not). Lanes never meet at a
// random split (as Volta's __activemask does), whatever the schedule: the schedule only
// orders the lanes' runs between wave instructions. (Lanes interact between two wave
// instructions only through memory, where a wave's lanes would need a fence and collective
// anyway, which the executor checks, so running them apart and replaying their order gives
// the groups stepping them in lockstep would.)
#include <algorithm>
#include <string>

#include "../internal.h"
#include "amdgcn.h"

extern "C" void __sanitizer_cov_trace_pc();

namespace wk_simt {
namespace amdgcn {

namespace {

const char* wave_op_name(Op op) {
  switch (op) {
    case Op::WaveBallot: return "v_cmp ballot (llvm.amdgcn.icmp)";
    case Op::WavePermute: return "ds_bpermute_b32";
    default: return "v_readfirstlane_b32";
  }
}

// The calling lane stops at `op`, made from host instruction `pc`; `cfa` is the stack pointer
// of the code that made the call (its canonical frame address: the same for every entry
// point, whatever its own frame).
WarpResult stop(Op op, uint64_t value, unsigned arg, Site site, const void* pc,
                const void* cfa) {
  Lane& x = g_launch->me();
  x.depth = x.stack_top - (uintptr_t)cfa;
  site.pc = pc;
  return warp_op(op, 0, value, op == Op::WaveBallot ? 0 : 4, arg, 0, site);
}

// Whether the lanes stopped at `a` run before those stopped at `b` (see the top of the file).
bool runs_first(const WavePos& a, const WavePos& b) {
  if (a.depth != b.depth) return a.depth > b.depth;
  return a.pc < b.pc;
}

WavePos pos_of(uintptr_t depth, const void* pc) {
  return WavePos{(uint32_t)depth,
                 (int32_t)((intptr_t)pc - (intptr_t)(void*)&__sanitizer_cov_trace_pc)};
}

// Where lane `x` stands in its warp's replay: the next block it noted, else the wave
// instruction it waits at.
WavePos replay_pos(const Lane& x) {
  return x.step_head < x.steps.size() ? x.steps[x.step_head] : pos_of(x.depth, x.site.pc);
}

void complete_wave(Launch& L, unsigned w, uint64_t group, const Lane& proto) {
  const unsigned base = w * L.W;
  auto each = [&](auto f) {
    for (uint64_t g = group; g; g &= g - 1) f((unsigned)__builtin_ctzll(g));
  };
  switch (proto.op) {
    case Op::WaveBallot: {
      // The compare writes one bit per lane with EXEC set; a wave32 result is zero-extended.
      uint64_t ballot = 0;
      each([&](unsigned l) {
        if (L.lanes[base + l].value) ballot |= 1ull << l;
      });
      each([&](unsigned l) { L.lanes[base + l].result = ballot; });
      break;
    }
    case Op::WavePermute: {
      // DS_BPERMUTE_B32 (CDNA3/CDNA4 ISA, "LDS Instructions"; RDNA3 ISA 16.15):
      //   src_lane = (VGPR[ADDR] + OFFSET) / 4 % 64 (wave64); on RDNA "% 32 regardless of wave
      //   size", the whole wave on wave32. "High-order bits are ignored." "If src_lane
      //   selects a disabled thread then zero is returned."
      // So the source is address bits [7:2] (wave64) or [6:2] (wave32), whatever the sign or
      // the low two bits. (RDNA in wave64 mode, which cannot cross the 32-lane halves, is not
      // a flavour here: gfx1030 is built for wave32.)
      uint64_t readers = 0, inactive = 0;
      each([&](unsigned l) {
        Lane& x = L.lanes[base + l];
        const unsigned src = (x.arg >> 2) & (L.W - 1);
        if (group >> src & 1) {
          x.result = L.lanes[base + src].value;
        } else {
          x.result = 0;
          readers |= 1ull << l;
          inactive |= 1ull << src;
        }
      });
      if (readers)
        L.report(WK_SIMT_SHFL_OUTSIDE_MASK, w, readers,
                 std::string(wave_op_name(proto.op)) + " at " + site_str(proto.site) +
                     ": lanes " + lane_list(readers) + " read lanes " + lane_list(inactive) +
                     ", which are not active at this instruction (EXEC bit off): the hardware "
                     "returns 0, the shuffle it implements is undefined there");
      break;
    }
    default: {
      // V_READFIRSTLANE_B32: the lowest lane with EXEC set.
      const uint64_t first = L.lanes[base + __builtin_ctzll(group)].value;
      each([&](unsigned l) { L.lanes[base + l].result = first; });
      break;
    }
  }
  release_collective(L, w, group, false);
}

bool holds(int pred, uint64_t a, uint64_t b, unsigned bits) {
  const int64_t sa = bits == 32 ? (int64_t)(int32_t)a : (int64_t)a;
  const int64_t sb = bits == 32 ? (int64_t)(int32_t)b : (int64_t)b;
  switch (pred) {
    case ICMP_EQ: return a == b;
    case ICMP_NE: return a != b;
    case ICMP_UGT: return a > b;
    case ICMP_UGE: return a >= b;
    case ICMP_ULT: return a < b;
    case ICMP_ULE: return a <= b;
    case ICMP_SGT: return sa > sb;
    case ICMP_SGE: return sa >= sb;
    case ICMP_SLT: return sa < sb;
    case ICMP_SLE: return sa <= sb;
  }
  // LLVM lowers an icmp intrinsic with any other predicate to undef; clang only accepts a
  // constant, so no real code gets here.
  return false;
}

}  // namespace

// V_MBCNT_LO_U32_B32 / V_MBCNT_HI_U32_B32 (GCN3/Vega/CDNA ISA, VOP3): "ThreadMask =
// (1 << ThreadPosition) - 1; D.u = CountOneBits(S0.u & ThreadMask[31:0]) + S1.u" (lo), with
// ThreadMask[63:32] for hi. On wave32 ThreadMask[63:32] is zero: mbcnt_hi adds nothing.
unsigned mbcnt_lo(unsigned mask, unsigned base) {
  const uint64_t below = (1ull << lane_id()) - 1;
  return base + (unsigned)__builtin_popcount(mask & (uint32_t)below);
}

unsigned mbcnt_hi(unsigned mask, unsigned base) {
  const uint64_t below = (1ull << lane_id()) - 1;
  return base + (unsigned)__builtin_popcount(mask & (uint32_t)(below >> 32));
}

// The entry points are never inlined into the kernels (another translation unit, and noinline
// for LTO), so the return address is the calling instruction.
__attribute__((noinline)) uint64_t icmp(uint64_t a, uint64_t b, int pred, unsigned bits,
                                        Site site) {
  const uint64_t m = bits == 32 ? 0xFFFFFFFFull : ~0ull;
  return stop(Op::WaveBallot, holds(pred, a & m, b & m, bits), 0, site,
              __builtin_return_address(0), __builtin_dwarf_cfa())
      .value;
}

__attribute__((noinline)) int ds_bpermute(int addr, int data, Site site) {
  return (int)(uint32_t)stop(Op::WavePermute, (uint32_t)data, (unsigned)addr, site,
                             __builtin_return_address(0), __builtin_dwarf_cfa())
      .value;
}

__attribute__((noinline)) int readfirstlane(int v, Site site) {
  return (int)(uint32_t)stop(Op::WaveFirstLane, (uint32_t)v, 0, site,
                             __builtin_return_address(0), __builtin_dwarf_cfa())
      .value;
}

// S_BARRIER: "Synchronize waves within a threadgroup": the executor's block barrier.
void s_barrier(Site site) { sync_block(site); }

void fence() { fence_block(); }

}  // namespace amdgcn

bool resolve_wave(Launch& L) {
  bool progress = false;
  for (unsigned w = 0; w < L.nwarps; ++w) {
    const unsigned base = w * L.W;
    const unsigned live = std::min(L.W, L.n - base);
    // Lanes at a barrier or gone are not part of the wave's steps (see the top of the file).
    uint64_t waiting = 0;
    for (unsigned l = 0; l < live; ++l) {
      const Lane& x = L.lanes[base + l];
      if (x.st == St::Pending && is_wave_op(x.op)) waiting |= 1ull << l;
    }
    if (!waiting) continue;
    // Steps every waiting lane noted alike (all of them, in a wave that did not diverge) move
    // them together: skip them at once.
    const Lane& lead = L.lanes[base + __builtin_ctzll(waiting)];
    size_t common = lead.steps.size() - lead.step_head;
    for (uint64_t m = waiting & (waiting - 1); m && common; m &= m - 1) {
      const Lane& x = L.lanes[base + __builtin_ctzll(m)];
      size_t k = 0;
      const size_t n = std::min(common, x.steps.size() - x.step_head);
      while (k < n && x.steps[x.step_head + k] == lead.steps[lead.step_head + k]) ++k;
      common = k;
    }
    for (uint64_t m = waiting; m && common; m &= m - 1)
      L.lanes[base + __builtin_ctzll(m)].step_head += common;
    for (;;) {
      WavePos first{0, 0};
      bool any = false;
      for (uint64_t m = waiting; m; m &= m - 1) {
        const WavePos p = amdgcn::replay_pos(L.lanes[base + __builtin_ctzll(m)]);
        if (!any || amdgcn::runs_first(p, first)) first = p;
        any = true;
      }
      uint64_t at = 0;
      bool at_op = false;
      for (uint64_t m = waiting; m; m &= m - 1) {
        const unsigned l = (unsigned)__builtin_ctzll(m);
        const Lane& x = L.lanes[base + l];
        if (!(amdgcn::replay_pos(x) == first)) continue;
        at |= 1ull << l;
        at_op = x.step_head == x.steps.size();
      }
      if (!at_op) {
        // A block: its lanes move on to their next position.
        for (uint64_t m = at; m; m &= m - 1) ++L.lanes[base + __builtin_ctzll(m)].step_head;
        continue;
      }
      for (uint64_t m = at; m; m &= m - 1) {
        Lane& x = L.lanes[base + __builtin_ctzll(m)];
        x.steps.clear();
        x.step_head = 0;
      }
      const Lane proto = L.lanes[base + __builtin_ctzll(at)];
      amdgcn::complete_wave(L, w, at, proto);
      progress = true;
      break;
    }
  }
  return progress;
}

}  // namespace wk_simt

// GCC's -fsanitize-coverage=trace-pc hook, called at the start of every basic block of the
// code built with it: the hip flavour's kernels (and its host-side launchers, which run
// outside any lane and pass straight through).
extern "C" void __sanitizer_cov_trace_pc() {
  using namespace wk_simt;
  Launch* L = g_launch;
  if (!L || !L->in_lane) return;
  Lane& x = L->me();
  const WavePos p = amdgcn::pos_of(x.stack_top - (uintptr_t)__builtin_dwarf_cfa(),
                                   __builtin_return_address(0));
  // A block entered again and again, with none other between, replays as once.
  if (x.steps.empty() || !(x.steps.back() == p)) x.steps.push_back(p);
}
