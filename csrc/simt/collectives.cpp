// The warp collectives: an op's lanes gathered, its result computed or the misuse reported
// (lanes missing from a mask, lanes at different calls, a source lane out of range), and the
// mask-free collectives' groups formed as the schedule brought the lanes together. The scheduler
// (executor.cpp) calls resolve_ops and resolve_active between phases.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <initializer_list>

#include "internal.h"

namespace wk_simt {

namespace {

// Mask-free collectives: their lanes are those that reach the call together.
bool is_active_op(Op op) {
  return op == Op::ActiveMask || op == Op::BallotActive || is_wave_op(op);
}

uint64_t bytes_mask(unsigned bytes) { return bytes >= 8 ? ~0ull : ((1ull << (bytes * 8)) - 1); }

uint64_t poison(unsigned bytes) { return 0xBAADF00DBAADF00Dull & bytes_mask(bytes); }

// CUDA's source lane for any argument: shfl.sync reads only its low log2(W) bits (b[4:0]).
// A width above the warp is undefined in CUDA (and reads missing lanes on a 64-lane port run at
// 32): W, past the warp, so that it is reported rather than folded into a defined argument.
unsigned shfl_source(Op op, unsigned lane, unsigned arg, unsigned width, unsigned W) {
  if (width > W) return W;
  const unsigned base = lane & ~(width - 1);
  arg &= W - 1;
  switch (op) {
    case Op::ShflIdx: return base + (arg & (width - 1));
    case Op::ShflUp: return lane - base >= arg ? lane - arg : lane;
    case Op::ShflDown: return lane - base + arg < width ? lane + arg : lane;
    default: {
      const unsigned j = lane ^ arg;
      return j >= base + width ? lane : j;
    }
  }
}

bool compatible(const Lane& a, const Lane& b) {
  if (a.op != b.op || a.mask != b.mask || a.bytes != b.bytes) return false;
  // Divergent branches may meet at different __syncwarp calls (Volta+); every other
  // collective must be the same call.
  return a.op == Op::SyncWarp || same_site(a.site, b.site);
}

// Where lane `t` is, for a report about a collective it did not join.
std::string whereabouts(Launch& L, unsigned t) {
  const Lane& x = L.lanes[t];
  switch (x.st) {
    case St::Exited: return "exited";
    case St::Barrier:
      return (x.bgrid ? "waits at grid.sync() at " : "waits at __syncthreads at ") +
             site_str(x.bsite);
    case St::Pending:
      return std::string("waits at ") + op_name(x.op) + "(mask " + hex(x.mask) + ") at " +
             site_str(x.site);
    default: return "is running";
  }
}

void complete(Launch& L, unsigned w, uint64_t group, const Lane& proto) {
  const unsigned base = w * L.W;
  const Op op = proto.op;
  auto each = [&](auto f) {
    for (uint64_t g = group; g; g &= g - 1) f((unsigned)__builtin_ctzll(g));
  };
  switch (op) {
    case Op::All:
    case Op::Any:
    case Op::Uni:
    case Op::Ballot: {
      uint64_t ballot = 0;
      each([&](unsigned l) {
        if (L.lanes[base + l].value) ballot |= 1ull << l;
      });
      const bool all = ballot == group, any = ballot != 0;
      const uint64_t r = op == Op::All   ? all
                         : op == Op::Any ? any
                         : op == Op::Uni ? (all || !any)
                                         : ballot;
      each([&](unsigned l) { L.lanes[base + l].result = r; });
      break;
    }
    case Op::ShflIdx:
    case Op::ShflUp:
    case Op::ShflDown:
    case Op::ShflXor: {
      uint64_t outside = 0, sources = 0, beyond = 0;
      each([&](unsigned l) {
        Lane& x = L.lanes[base + l];
        const unsigned src = shfl_source(op, l, x.arg, x.width, L.W);
        if (src < L.W && (group >> src & 1)) {
          x.result = L.lanes[base + src].value & bytes_mask(x.bytes);
        } else {
          x.result = poison(x.bytes);
          if (src >= L.W || !(x.mask >> src & 1)) {
            outside |= 1ull << l;
            if (src < L.W)
              sources |= 1ull << src;
            else
              beyond |= 1ull << l;
          }
        }
      });
      if (outside) {
        std::string d = std::string(op_name(op)) + " at " + site_str(proto.site) + ":";
        if (outside & ~beyond)
          d += " lanes " + lane_list(outside & ~beyond) + " read lanes " + lane_list(sources) +
               ", which are not in the mask " + hex(proto.mask) + " (undefined value);";
        if (beyond)
          d += " lanes " + lane_list(beyond) + " read past the warp's " + std::to_string(L.W) +
               " lanes (width " + std::to_string(proto.width) + " is wider than the warp);";
        d.pop_back();
        const unsigned first = (unsigned)__builtin_ctzll(outside);
        const Lane& f = L.lanes[base + first];
        if (f.am_valid && f.am_value == f.mask)
          d += "; the mask is the __activemask() result from " + site_str(f.am_site) +
               ", which under independent thread scheduling may hold fewer lanes than took the "
               "branch: compute the mask with a ballot before the branch";
        L.report(WK_SIMT_SHFL_OUTSIDE_MASK, w, outside, d);
      }
      break;
    }
    case Op::MatchAny:
      each([&](unsigned l) {
        const uint64_t mine = L.lanes[base + l].value;
        uint64_t same = 0;
        each([&](unsigned m) {
          if (L.lanes[base + m].value == mine) same |= 1ull << m;
        });
        L.lanes[base + l].result = same;
      });
      break;
    case Op::MatchAll: {
      const uint64_t first = L.lanes[base + __builtin_ctzll(group)].value;
      bool all = true;
      each([&](unsigned l) { all = all && L.lanes[base + l].value == first; });
      each([&](unsigned l) {
        L.lanes[base + l].result = all ? proto.mask : 0;
        L.lanes[base + l].pred = all;
      });
      break;
    }
    default:
      break;
  }
  release_collective(L, w, group, op == Op::SyncWarp);
}

}  // namespace

// Resolves the warp collectives whose lanes have all arrived. With `force`, also those whose
// lanes can never arrive (the block is otherwise stuck): they are reported and resolved with
// the lanes that did arrive.
bool resolve_ops(Launch& L, bool force) {
  bool progress = false;
  for (unsigned w = 0; w < L.nwarps; ++w) {
    const unsigned base = w * L.W;
    const unsigned live = std::min(L.W, L.n - base);
    const uint64_t live_bits = live >= 64 ? ~0ull : (1ull << live) - 1;
    uint64_t grouped = 0;
    for (unsigned l = 0; l < live; ++l) {
      Lane& x = L.lanes[base + l];
      if (x.st != St::Pending || is_active_op(x.op) || (grouped >> l & 1)) continue;
      if (!(x.mask >> l & 1)) {
        // The mask leaves out its caller (0xffffffff on 64 lanes): the callers it leaves out
        // go together as one group, and one report names them all.
        uint64_t outsiders = 0;
        for (unsigned k = l; k < live; ++k) {
          const Lane& y = L.lanes[base + k];
          if (y.st == St::Pending && !(grouped >> k & 1) && !(x.mask >> k & 1) && compatible(x, y))
            outsiders |= 1ull << k;
        }
        L.report(WK_SIMT_MISMATCHED_COLLECTIVE, w, outsiders,
                 std::string(op_name(x.op)) + "(mask " + hex(x.mask) + ") at " +
                     site_str(x.site) + ": the mask leaves out its calling lanes " +
                     lane_list(outsiders) +
                     (L.W == 64 && x.mask == 0xffffffffull ? " (a 32-bit full mask on 64 lanes?)"
                                                           : ""));
        complete(L, w, outsiders, x);
        grouped |= outsiders;
        progress = true;
        continue;
      }
      const uint64_t named = x.mask & live_bits;
      uint64_t group = 0, exited = 0, elsewhere = 0, mismatched = 0;
      for (uint64_t m = named; m; m &= m - 1) {
        const unsigned k = (unsigned)__builtin_ctzll(m);
        const Lane& y = L.lanes[base + k];
        if (y.st == St::Pending && !(grouped >> k & 1) && compatible(x, y))
          group |= 1ull << k;
        else if (y.st == St::Exited)
          exited |= 1ull << k;
        else if (y.st == St::Pending && !is_active_op(y.op))
          mismatched |= 1ull << k;
        else
          elsewhere |= 1ull << k;
      }
      const bool waits = (elsewhere | mismatched) != 0;
      if (waits && !force) continue;
      const Site site = x.site;
      const std::string what = std::string(op_name(x.op)) + "(mask " + hex(x.mask) + ") at " +
                               site_str(site);
      const uint64_t missing = x.mask & ~live_bits;
      if (missing || exited || elsewhere) {
        std::string d = what + ": the mask names lanes that cannot take part:";
        if (missing) d += " lanes " + lane_list(missing) + " do not exist in this block;";
        if (exited) d += " lanes " + lane_list(exited) + " exited;";
        for (uint64_t m = elsewhere; m; m &= m - 1) {
          const unsigned k = (unsigned)__builtin_ctzll(m);
          d += " lane " + std::to_string(k) + " " + whereabouts(L, base + k) + ";";
        }
        d += " on hardware this hangs or reads undefined values";
        L.report(WK_SIMT_INACTIVE_MASK_LANE, w, missing | exited | elsewhere, d);
      }
      if (mismatched) {
        std::string d = what + ": lanes named in the mask wait at another collective:";
        for (uint64_t m = mismatched; m; m &= m - 1) {
          const unsigned k = (unsigned)__builtin_ctzll(m);
          d += " lane " + std::to_string(k) + " " + whereabouts(L, base + k) + ";";
        }
        L.report(WK_SIMT_MISMATCHED_COLLECTIVE, w, mismatched, d);
      }
      if (force) ++L.forced;
      complete(L, w, group, x);
      grouped |= group;
      progress = true;
    }
  }
  return progress;
}

// __activemask() and the mask-free ballot: the lanes of a warp that reached the same call
// form the result. Lockstep keeps them together; independent scheduling splits them at
// random into smaller groups, as Volta may.
bool resolve_active(Launch& L) {
  bool progress = false;
  for (unsigned w = 0; w < L.nwarps; ++w) {
    const unsigned base = w * L.W;
    const unsigned live = std::min(L.W, L.n - base);
    uint64_t done = 0;
    for (unsigned l = 0; l < live; ++l) {
      Lane& x = L.lanes[base + l];
      if (x.st != St::Pending || !is_active_op(x.op) || is_wave_op(x.op) || (done >> l & 1))
        continue;
      uint64_t set = 0;
      for (unsigned k = l; k < live; ++k) {
        const Lane& y = L.lanes[base + k];
        if (y.st == St::Pending && y.op == x.op && same_site(y.site, x.site) && !(done >> k & 1))
          set |= 1ull << k;
      }
      done |= set;
      uint64_t parts[2] = {set, 0};
      if (L.policy != WK_SIMT_LOCKSTEP && __builtin_popcountll(set) >= 2) {
        parts[0] = 0;
        for (uint64_t m = set; m; m &= m - 1) {
          const uint64_t bit = m & -m;
          parts[L.next_random() & 1] |= bit;
        }
        if (!parts[0] || !parts[1]) {
          const uint64_t all = parts[0] | parts[1];
          const uint64_t top = 1ull << (63 - __builtin_clzll(all));
          parts[0] = all & ~top;
          parts[1] = top;
        }
      }
      for (uint64_t part : parts) {
        if (!part) continue;
        uint64_t ballot = 0;
        for (uint64_t m = part; m; m &= m - 1) {
          const unsigned k = (unsigned)__builtin_ctzll(m);
          if (L.lanes[base + k].value) ballot |= 1ull << k;
        }
        for (uint64_t m = part; m; m &= m - 1) {
          const unsigned k = (unsigned)__builtin_ctzll(m);
          Lane& y = L.lanes[base + k];
          y.result = y.op == Op::ActiveMask ? part : ballot;
          if (y.op == Op::ActiveMask) {
            y.am_valid = true;
            y.am_value = part;
            y.am_site = y.site;
          }
          y.st = St::Runnable;
        }
      }
      progress = true;
    }
  }
  return progress;
}

void release_collective(Launch& L, unsigned w, uint64_t group, bool orders) {
  const unsigned base = w * L.W;
  auto each = [&](auto f) {
    for (uint64_t g = group; g; g &= g - 1) f((unsigned)__builtin_ctzll(g));
  };
  // __syncwarp orders the participants' memory accesses; so does any collective that every
  // participant reached after a fence (the emulated syncwarp: fence, ballot, fence).
  bool fenced = true;
  each([&](unsigned l) { fenced = fenced && L.lanes[base + l].fenced; });
  if (orders || fenced) {
    // Join the warp-local vector clocks of the participants, then start a new epoch for each.
    std::vector<uint32_t> join(L.W, 0);
    each([&](unsigned l) {
      const uint32_t* v = &L.vc[(size_t)(base + l) * L.W];
      for (unsigned k = 0; k < L.W; ++k) join[k] = std::max(join[k], v[k]);
      join[l] = std::max(join[l], L.lanes[base + l].clock);
    });
    each([&](unsigned l) {
      uint32_t* v = &L.vc[(size_t)(base + l) * L.W];
      std::copy(join.begin(), join.end(), v);
      Lane& x = L.lanes[base + l];
      v[l] = ++x.clock;
    });
  }
  each([&](unsigned l) {
    L.lanes[base + l].fenced = false;
    L.lanes[base + l].st = St::Runnable;
  });
}

WarpResult warp_op(Op op, uint64_t mask, uint64_t value, unsigned bytes, unsigned arg,
                   unsigned width, Site site) {
  Launch& L = *g_launch;
  Lane& x = L.me();
  check_collective(L, x, op, mask, arg, width, site);
  x.st = St::Pending;
  x.op = op;
  x.mask = mask;
  x.value = bytes ? value & bytes_mask(bytes) : value;
  x.bytes = (uint8_t)bytes;
  x.arg = arg;
  x.width = width;
  x.site = site;
  L.yield_to_scheduler();
  note_collective_result(x, op, x.result);
  return WarpResult{x.result, x.pred};
}

}  // namespace wk_simt
