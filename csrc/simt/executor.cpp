// The scheduler: runs the fibers of one block until each reaches a synchronising point, then
// resolves warp collectives and block barriers, reporting whatever hardware would hang on or
// leave undefined instead of hanging.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <initializer_list>

#include "internal.h"

namespace wk_simt {

thread_local Launch* g_launch = nullptr;
static thread_local int t_launch_error = 0;
static thread_local uint64_t t_oom_bytes = 0;

void note_oom(uint64_t bytes) { t_oom_bytes = bytes; }

uint64_t take_oom_bytes() {
  const uint64_t b = t_oom_bytes;
  t_oom_bytes = 0;
  return b;
}


namespace {

constexpr size_t kStackBytes = 64 * 1024;
constexpr unsigned kMaxBlock = 1024;
constexpr uint32_t kMaxForced = 4096;
constexpr uint64_t kMaxSwitches = 400ull * 1000 * 1000;

// Stacks are kept per OS thread and reused by every launch it runs.
struct StackPool {
  std::vector<FiberStack> stacks;
  ~StackPool() {
    for (auto& s : stacks) fiber_stack_free(s);
  }
  // Throws std::bad_alloc (the bytes noted) when a stack cannot be mapped: before any lane of
  // the block runs, so launch() fails with nothing of the block done. The stacks mapped so far
  // stay in the pool.
  void ensure(size_t n) {
    if (stacks.size() >= n) return;
    stacks.reserve(n);
    while (stacks.size() < n) {
      FiberStack s;
      if (!fiber_stack_alloc(kStackBytes, s)) {
        note_oom(fiber_stack_mapped(kStackBytes));
        throw std::bad_alloc();
      }
      stacks.push_back(s);  // room reserved above: does not throw
    }
  }
};
thread_local StackPool t_pool;

uint64_t splitmix(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void lane_entry(void* arg) {
  Launch* L = static_cast<Launch*>(arg);
  // An exception must not unwind past the fiber's first frame (nothing above it to unwind to:
  // std::terminate). One that a lane throws (std::bad_alloc from a report, shared memory or a
  // check's bookkeeping) abandons the launch, which returns its code.
  try {
    L->body(L->ctx);
    lane_exit_checks(*L);
  } catch (const std::bad_alloc&) {
    if (!L->failed) L->failed = WK_SIMT_ERR_OUT_OF_MEMORY;
    L->aborted = true;
  } catch (...) {
    if (!L->failed) L->failed = WK_SIMT_ERR_INTERNAL;
    L->aborted = true;
  }
  L->me().st = St::Exited;
  fiber_switch(L->me().ctx, L->sched);
  abort();  // an exited fiber is never resumed
}

void run_lane(Launch& L, unsigned t) {
  if (L.aborted) return;  // a lane faulted (fault.cpp): no other runs on
  L.cur = t;
  ++L.switches;
  L.in_lane = true;
  fiber_switch(L.sched, L.lanes[t].ctx);
  L.in_lane = false;
}

void run_phase(Launch& L) {
  const unsigned n = L.n;
  switch (L.policy) {
    case WK_SIMT_LOCKSTEP:
      // A warp advances one shared-memory access (or synchronising point) per lane per step.
      for (unsigned w = 0; w < L.nwarps; ++w) {
        const unsigned lo = w * L.W, hi = std::min(n, lo + L.W);
        bool any = true;
        while (any && !L.aborted) {
          any = false;
          for (unsigned t = lo; t < hi; ++t)
            if (L.lanes[t].st == St::Runnable) {
              run_lane(L, t);
              any = true;
            }
        }
      }
      break;
    case WK_SIMT_REVERSE:
      for (unsigned t = n; t-- > 0;)
        if (L.lanes[t].st == St::Runnable) run_lane(L, t);
      break;
    case WK_SIMT_RANDOM: {
      std::vector<unsigned> order;
      for (unsigned t = 0; t < n; ++t)
        if (L.lanes[t].st == St::Runnable) order.push_back(t);
      for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[L.next_random() % i]);
      for (unsigned t : order)
        if (L.lanes[t].st == St::Runnable) run_lane(L, t);
      break;
    }
    default:
      for (unsigned t = 0; t < n; ++t)
        if (L.lanes[t].st == St::Runnable) run_lane(L, t);
  }
}

bool try_barrier(Launch& L) {
  std::vector<unsigned> exited;
  struct Group {
    Site site;
    uint32_t count;
    std::vector<unsigned> threads;
  };
  std::vector<Group> groups;
  // Some thread waits at a grid.sync() of a cooperative launch (cooperative.cpp).
  bool grid = false;
  for (unsigned t = 0; t < L.n; ++t) {
    const Lane& x = L.lanes[t];
    if (x.st == St::Exited) {
      exited.push_back(t);
      continue;
    }
    if (x.st != St::Barrier) return false;
    grid = grid || x.bgrid;
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return same_site(g.site, x.bsite) && g.count == x.bcount;
    });
    if (g == groups.end()) {
      groups.push_back({x.bsite, x.bcount, {}});
      g = groups.end() - 1;
    }
    g->threads.push_back(t);
  }
  if (groups.empty()) return false;
  if (groups.size() > 1 || !exited.empty()) {
    std::string d = std::string("not every thread of the block reached this ") +
                    (grid ? "grid.sync()" : "__syncthreads") + ":";
    for (const Group& g : groups)
      d += " threads " + thread_list(g.threads) + " wait at " + site_str(g.site) +
           " (their barrier #" + std::to_string(g.count) + ");";
    if (!exited.empty()) d += " threads " + thread_list(exited) + " exited;";
    d += grid ? " grid.sync() is a barrier of every thread of the grid (a block barrier, then "
                "the blocks'), which counts arrivals, not call sites: the grid goes on "
                "misaligned or hangs"
              : " hardware counts arrivals, not call sites, so the block goes on misaligned or "
                "hangs";
    // Name the first warp of the odd ones out: the second group, else the exited threads.
    const std::vector<unsigned>& odd = groups.size() > 1 ? groups[1].threads : exited;
    const unsigned w = L.warp_of(odd[0]);
    uint64_t lanes = 0;
    for (unsigned t : odd)
      if (L.warp_of(t) == w) lanes |= 1ull << L.lane_of(t);
    L.report(WK_SIMT_BARRIER_DIVERGENCE, w, lanes, d);
  }
  if (grid) {
    // The block's part of grid.sync() is done: it waits for the other blocks, which release
    // it (cooperative.cpp).
    L.grid_arrived = true;
    return true;
  }
  // Release everyone, as the hardware barrier would once the arrival count is met.
  for (const Group& g : groups)
    for (unsigned t : g.threads) L.lanes[t].st = St::Runnable;
  ++L.bgen;
  return true;
}

}  // namespace

void start_block(Launch& L, size_t stacks) {
  t_pool.ensure(stacks);
  for (unsigned t = 0; t < L.n; ++t) {
    Lane& x = L.lanes[t];
    std::vector<WavePos> steps = std::move(x.steps);  // keeps its capacity
    x = Lane();
    x.steps = std::move(steps);
    x.steps.clear();
    FiberStack& stack = t_pool.stacks[L.stack_base + t];
    x.stack_top = (uintptr_t)stack.top;
    fiber_prepare(x.ctx, stack, lane_entry, &L);
  }
  std::fill(L.vc.begin(), L.vc.end(), 0);
  L.bgen = 0;
  L.forced = 0;
}

void advance_block(Launch& L) {
  for (;;) {
    run_phase(L);
    if (L.aborted) return;
    bool all_exited = true;
    for (unsigned t = 0; t < L.n && all_exited; ++t) all_exited = L.lanes[t].st == St::Exited;
    if (all_exited) return;
    // Cooperative: the block waits at grid.sync() until every block is there (cooperative.cpp).
    if (L.grid_arrived) return;
    if (resolve_ops(L, false) || resolve_active(L) || resolve_wave(L) || try_barrier(L))
      continue;
    if (resolve_ops(L, true) && L.forced < kMaxForced && L.switches < kMaxSwitches) continue;
    L.report(WK_SIMT_STALLED, 0, 0,
             "the block made no progress (" + std::to_string(L.forced) +
                 " collectives resolved by force); the executor abandoned it");
    L.aborted = true;
    return;
  }
}

uint64_t Launch::next_random() { return splitmix(rng); }

void Launch::report(uint32_t kind, unsigned warp, uint64_t lane_bits, std::string detail) {
  if (per_kind[kind]++ >= report_cap) {
    ++suppressed;
    return;
  }
  reports.push_back(Report{kind, kernel, bidx, warp, W, lane_bits, std::move(detail)});
}

void Launch::yield_to_scheduler() {
  Lane& x = me();
  fiber_switch(x.ctx, sched);
}

Dim3 thread_idx() {
  const Launch& L = *g_launch;
  const unsigned t = L.cur;
  return Dim3{t % L.bdim.x, t / L.bdim.x % L.bdim.y, t / (L.bdim.x * L.bdim.y)};
}
Dim3 block_idx() { return g_launch->bidx; }
Dim3 block_dim() { return g_launch->bdim; }
Dim3 grid_dim() { return g_launch->grid; }
unsigned lane_id() { return g_launch->cur % g_launch->W; }
unsigned warp_size() { return g_launch->W; }

void sync_block(Site site) {
  Launch& L = *g_launch;
  Lane& x = L.me();
  x.st = St::Barrier;
  x.bsite = site;
  // The whole block meets here: what the hip flavour noted before is done with.
  x.steps.clear();
  x.step_head = 0;
  ++x.bcount;
  L.yield_to_scheduler();
}

void sync_grid(Site site) {
  Launch& L = *g_launch;
  Lane& x = L.me();
  if (!L.cooperative) {
    // On a GPU grid.sync() in a launch that is not cooperative hangs or fails: its blocks need
    // not be resident together. The launch is abandoned, this fiber never resumed.
    const unsigned t = L.cur;
    L.report(WK_SIMT_BARRIER_DIVERGENCE, L.warp_of(t), 1ull << L.lane_of(t),
             "grid.sync() at " + site_str(site) + " by thread " + std::to_string(t) +
                 " in a launch that is not cooperative: its blocks are not resident together, "
                 "so no grid barrier can hold (CUDA requires cudaLaunchCooperativeKernel, HIP "
                 "hipLaunchCooperativeKernel; `wavekit check --cooperative`); the executor "
                 "abandoned the launch");
    if (!L.failed) L.failed = WK_SIMT_ERR_NOT_COOPERATIVE;
    L.aborted = true;
    x.st = St::Exited;
    fiber_switch(x.ctx, L.sched);
    abort();  // never resumed
  }
  // First the block's barrier, with __syncthreads' checks (try_barrier), then the blocks'.
  x.st = St::Barrier;
  x.bsite = site;
  x.bgrid = true;
  x.steps.clear();
  x.step_head = 0;
  ++x.bcount;
  L.yield_to_scheduler();
}

bool cooperative_launch() { return g_launch && g_launch->cooperative; }

void fence_block() { g_launch->me().fenced = true; }

int take_launch_error() {
  const int e = t_launch_error;
  t_launch_error = 0;
  return e;
}

void note_launch_error(int code) {
  if (code && !t_launch_error) t_launch_error = code;
}

namespace {

// Whether `threads` a block times the grid's blocks (each dimension non-zero) is more than a
// cooperative launch may hold, without overflowing.
bool cooperative_too_large(uint64_t threads, Dim3 grid) {
  uint64_t n = threads;
  for (const unsigned d : {grid.x, grid.y, grid.z}) {
    if (d != 0 && n > kMaxCooperativeThreads / d) return true;
    n *= d;
  }
  return n > kMaxCooperativeThreads;
}

int run_launch(void* session, const char* kernel, unsigned width, Dim3 grid, Dim3 block,
               size_t dyn_bytes, KernelBody body, const void* ctx) {
  Session* s = static_cast<Session*>(session);
  const uint64_t threads = (uint64_t)block.x * block.y * block.z;
  if (!s || (width != 32 && width != 64) || threads == 0 || threads > kMaxBlock ||
      (uint64_t)grid.x * grid.y * grid.z == 0 || g_launch) {
    discard_outputs();
    return WK_SIMT_ERR_CONFIG;
  }
  guard_faults();
  Launch L;
  {
    std::lock_guard<std::mutex> g(s->mu);
    if (s->cooperative && cooperative_too_large(threads, grid)) {
      discard_outputs();
      return WK_SIMT_ERR_COOPERATIVE_TOO_LARGE;
    }
    L.cooperative = s->cooperative;
    L.policy = s->policy;
    L.report_cap = s->report_cap;
    L.rng = s->seed ^ (++s->launches * 0xD1B54A32D192ED03ull);
  }
  L.session = s;
  L.kernel = kernel;
  L.W = width;
  L.grid = grid;
  L.bdim = block;
  L.n = (unsigned)threads;
  L.nwarps = (L.n + width - 1) / width;
  L.body = body;
  L.ctx = ctx;
  L.dyn_bytes = dyn_bytes;
  L.lanes.resize(L.n);
  L.vc.resize((size_t)L.n * width);
  g_launch = &L;
  if (L.cooperative) {
    run_cooperative(L);
  } else {
    for (unsigned z = 0; z < grid.z && !L.aborted; ++z)
      for (unsigned y = 0; y < grid.y && !L.aborted; ++y)
        for (unsigned x = 0; x < grid.x && !L.aborted; ++x) {
          L.bidx = Dim3{x, y, z};
          ++L.block_serial;
          start_block(L, L.n);
          advance_block(L);
        }
  }
  g_launch = nullptr;
  check_outputs(L);
  // Where the instrumented accesses were, now that no fiber runs (symbolize.cpp may start a
  // process for it).
  for (Report& r : L.reports) resolve_sites(r.detail);
  {
    std::lock_guard<std::mutex> g(s->mu);
    for (Report& r : L.reports) s->reports.push_back(std::move(r));
    s->suppressed += L.suppressed;
  }
  if (L.failed) return L.failed;
  if (L.faulted) return WK_SIMT_ERR_FAULT;
  if (L.aborted) return WK_SIMT_ERR_ABORTED;
  return L.per_kind_total() ? WK_SIMT_HAZARDS : WK_SIMT_OK;
}

// What a launch that threw leaves: no launch running on this thread and no expected outputs.
int launch_failed(int code) {
  g_launch = nullptr;
  discard_outputs();
  return code;
}

}  // namespace

// The launchers call this from device code compiled for the host, and they are called from
// Rust: nothing may throw out of it (see guarded in internal.h). A std::bad_alloc of the
// scheduler's own (the lanes, vector clocks, a fiber stack, a report) fails the launch with
// WK_SIMT_ERR_OUT_OF_MEMORY; the Launch unwinds with it.
int launch(void* session, const char* kernel, unsigned width, Dim3 grid, Dim3 block,
           size_t dyn_bytes, KernelBody body, const void* ctx) {
  try {
    return run_launch(session, kernel, width, grid, block, dyn_bytes, body, ctx);
  } catch (const std::bad_alloc&) {
    return launch_failed(WK_SIMT_ERR_OUT_OF_MEMORY);
  } catch (...) {
    return launch_failed(WK_SIMT_ERR_INTERNAL);
  }
}

}  // namespace wk_simt
