// Cooperative launches (cudaLaunchCooperativeKernel, hipLaunchCooperativeKernel): every block of
// the grid resident at once, so that grid.sync() can be a barrier across them. Each block keeps
// the state a block of an ordinary launch has (a Launch of its own: its lanes, shared memory,
// barrier count and vector clocks, its reports), its threads fibers of the one OS thread with a
// stack each for the whole launch (hence kMaxCooperativeThreads), and runs as such a block runs
// (advance_block) until every thread of it has exited or waits at a grid.sync(), whose block
// barrier it has then met with __syncthreads' checks (try_barrier). When no block can go on,
// the grid's barrier resolves: blocks that exited before it, or wait at another grid.sync()
// call, are reported (BarrierDivergence: the hardware barrier counts every block's arrival, so
// the grid goes on misaligned or hangs), and every waiting thread is released with its block's
// barrier count advanced, which orders the block's shared-memory accesses before and after as
// __syncthreads does. Global memory is the kernel's own buffers, which the executor does not
// track across threads, cooperative launch or not: what grid.sync() gives it is the order of
// execution, every block's writes before the barrier done before any block reads after it.
#include <algorithm>
#include <numeric>

#include "internal.h"

namespace wk_simt {

namespace {

// The state of block `b` (blocks numbered x fastest) of the cooperative launch `L`.
std::unique_ptr<Launch> block_of(Launch& L, uint64_t b) {
  std::unique_ptr<Launch> B(new Launch());
  B->session = L.session;
  B->kernel = L.kernel;
  B->policy = L.policy;
  B->report_cap = L.report_cap;
  B->W = L.W;
  B->grid = L.grid;
  B->bdim = L.bdim;
  B->n = L.n;
  B->nwarps = L.nwarps;
  B->body = L.body;
  B->ctx = L.ctx;
  B->dyn_bytes = L.dyn_bytes;
  B->rng = L.next_random();
  B->bidx = Dim3{(unsigned)(b % L.grid.x), (unsigned)(b / L.grid.x % L.grid.y),
                 (unsigned)(b / ((uint64_t)L.grid.x * L.grid.y))};
  B->block_serial = b + 1;
  B->cooperative = true;
  B->stack_base = (unsigned)(b * L.n);
  B->lanes.resize(L.n);
  B->vc.resize((size_t)L.n * L.W);
  return B;
}

std::string block_str(Dim3 b) {
  return "(" + std::to_string(b.x) + "," + std::to_string(b.y) + "," + std::to_string(b.z) + ")";
}

// Blocks named for a report: the first few, then how many more.
std::string block_list(const std::vector<Launch*>& blocks) {
  const size_t shown = 8;
  std::string s;
  for (size_t i = 0; i < blocks.size() && i < shown; ++i)
    s += (i ? ", " : "") + block_str(blocks[i]->bidx);
  if (blocks.size() > shown) s += " and " + std::to_string(blocks.size() - shown) + " more";
  return s;
}

// Where the threads of block B wait at the grid barrier: the call of the first one there.
Site grid_site(const Launch& B) {
  for (const Lane& x : B.lanes)
    if (x.st == St::Barrier && x.bgrid) return x.bsite;
  return Site{nullptr, 0};
}

// The grid's barrier, which every block that has not exited waits at: reported when some
// blocks exited before it or wait at another grid.sync() call, then released.
void release_grid(std::vector<std::unique_ptr<Launch>>& blocks) {
  struct Group {
    Site site;
    std::vector<Launch*> blocks;
  };
  std::vector<Group> groups;
  std::vector<Launch*> exited;
  for (auto& b : blocks) {
    Launch* B = b.get();
    if (!B->grid_arrived) {
      exited.push_back(B);
      continue;
    }
    const Site site = grid_site(*B);
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const Group& g) { return same_site(g.site, site); });
    if (g == groups.end()) {
      groups.push_back({site, {}});
      g = groups.end() - 1;
    }
    g->blocks.push_back(B);
  }
  if (groups.size() > 1 || !exited.empty()) {
    std::string d = "not every block of the grid reached this grid.sync():";
    for (const Group& g : groups)
      d += " blocks " + block_list(g.blocks) + " wait at " + site_str(g.site) + ";";
    if (!exited.empty()) d += " blocks " + block_list(exited) + " exited;";
    d += " the barrier of a cooperative launch counts the arrivals of every block, not call "
         "sites, so the grid goes on misaligned or hangs";
    // Reported in a block of the odd ones out: the second group's first, else the first that
    // exited; the lanes of its first warp.
    Launch& odd = groups.size() > 1 ? *groups[1].blocks[0] : *exited[0];
    const unsigned live = std::min(odd.W, odd.n);
    odd.report(WK_SIMT_BARRIER_DIVERGENCE, 0, live >= 64 ? ~0ull : (1ull << live) - 1, d);
  }
  for (const Group& g : groups)
    for (Launch* B : g.blocks) {
      for (Lane& x : B->lanes)
        if (x.st == St::Barrier) {
          x.st = St::Runnable;
          x.bgrid = false;
        }
      ++B->bgen;
      B->grid_arrived = false;
    }
}

// The blocks' reports into L's, in block order, keeping L's cap of each kind over the grid.
void gather(Launch& L, std::vector<std::unique_ptr<Launch>>& blocks) {
  uint32_t kept[WK_SIMT_REPORT_KINDS] = {};
  for (auto& b : blocks) {
    Launch& B = *b;
    for (Report& r : B.reports) {
      if (kept[r.kind] < L.report_cap) {
        ++kept[r.kind];
        L.reports.push_back(std::move(r));
      } else {
        ++L.suppressed;
      }
    }
    for (uint32_t k = 0; k < WK_SIMT_REPORT_KINDS; ++k) L.per_kind[k] += B.per_kind[k];
    L.suppressed += B.suppressed;
    L.switches += B.switches;
    if (B.failed && !L.failed) L.failed = B.failed;
    L.faulted = L.faulted || B.faulted;
    L.aborted = L.aborted || B.aborted;
  }
}

}  // namespace

void run_cooperative(Launch& L) {
  const uint64_t nblocks = (uint64_t)L.grid.x * L.grid.y * L.grid.z;
  std::vector<std::unique_ptr<Launch>> blocks;
  blocks.reserve(nblocks);
  for (uint64_t b = 0; b < nblocks; ++b) blocks.push_back(block_of(L, b));
  // Every fiber's stack, before any lane runs: a launch that cannot have them all fails whole.
  for (auto& B : blocks) start_block(*B, nblocks * L.n);
  std::vector<size_t> order(nblocks);
  std::iota(order.begin(), order.end(), 0);
  // Blocks take turns in the order of the threads of a block under the policy.
  if (L.policy == WK_SIMT_REVERSE) std::reverse(order.begin(), order.end());
  std::vector<bool> done(nblocks, false);
  for (;;) {
    if (L.policy == WK_SIMT_RANDOM)
      for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[L.next_random() % i]);
    bool waiting = false, abandoned = false;
    for (size_t b : order) {
      if (done[b]) continue;
      Launch& B = *blocks[b];
      g_launch = &B;
      advance_block(B);
      g_launch = &L;
      if (B.aborted) {
        abandoned = true;  // a fault or a stalled block stops the launch, as without grid.sync
        break;
      }
      if (B.grid_arrived)
        waiting = true;
      else
        done[b] = true;
    }
    if (abandoned || !waiting) break;
    release_grid(blocks);
  }
  gather(L, blocks);
}

}  // namespace wk_simt
