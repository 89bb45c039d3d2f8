// State shared by the executor's translation units (not seen by device code).
#pragma once

#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "capi.h"
#include "checks.h"
#include "executor.h"
#include "fiber.h"

namespace wk_simt {

enum class St : uint8_t { Runnable, Pending, Barrier, Exited };

struct Report {
  uint32_t kind;
  std::string kernel;
  Dim3 block;
  uint32_t warp;
  uint32_t width;
  uint64_t lanes;
  std::string detail;
};

struct Session {
  std::mutex mu;
  uint32_t policy = WK_SIMT_FORWARD;
  uint64_t seed = 0;
  uint64_t launches = 0;
  uint64_t suppressed = 0;
  // Reports a launch keeps of each kind; the rest are counted in `suppressed`.
  uint32_t report_cap = 16;
  // Launches are cooperative (cudaLaunchCooperativeKernel): the grid's blocks co-resident,
  // grid.sync() a barrier across them (cooperative.cpp).
  bool cooperative = false;
  std::vector<Report> reports;
};

// Where a lane of the hip flavour was: a basic block it entered, or the wave instruction it
// waits at (csrc/simt/amdgcn/wave.cpp). Eight bytes, as lanes note one per block.
struct WavePos {
  uint32_t depth;  // bytes of its fiber stack in use there
  int32_t pc;      // the code address, from that of the hook that noted it
  bool operator==(const WavePos& o) const { return depth == o.depth && pc == o.pc; }
};

struct Lane {
  St st = St::Runnable;
  // The pending warp collective.
  Op op = Op::All;
  uint8_t bytes = 0;
  uint64_t mask = 0;
  uint64_t value = 0;
  unsigned arg = 0;
  unsigned width = 0;
  Site site{nullptr, 0};
  uint64_t result = 0;
  bool pred = false;
  // The pending block barrier and how many this thread has passed; `bgrid` when it is a
  // grid.sync() of a cooperative launch (cooperative.cpp).
  Site bsite{nullptr, 0};
  uint32_t bcount = 0;
  bool bgrid = false;
  FiberContext ctx;
  // Happens-before: this lane's clock, advanced at each __syncwarp it passes.
  uint32_t clock = 1;
  // A fence since this lane's last collective (see complete()).
  bool fenced = false;
  // The hip flavour (csrc/simt/amdgcn/wave.cpp): the top of this lane's fiber stack, the stack
  // depth at the wave instruction it waits at, and the basic blocks it entered since its last
  // one that its warp has not yet replayed, from `step_head` on.
  uintptr_t stack_top = 0;
  uintptr_t depth = 0;
  std::vector<WavePos> steps;
  size_t step_head = 0;
  // The last __activemask() result, to say where a bad collective mask came from.
  bool am_valid = false;
  uint64_t am_value = 0;
  Site am_site{nullptr, 0};
  // State of the value checks (checks.h).
  LaneChecks checks;
};

// A previous shared-memory access: by thread `tid` at its clock, in barrier interval `bgen`.
struct Epoch {
  uint32_t tid;
  uint32_t clock;
  uint32_t bgen;
  bool atomic;
  Site site;  // where it was made (file null when unknown)
};

struct Cell {
  bool has_write = false;
  Epoch write{};
  // The reads since the write, all of one barrier interval; a thread's older read may still be
  // there beside its latest until shared.cpp compacts the list (latest_reads).
  std::vector<Epoch> reads;
};

struct SharedAlloc {
  const void* key = nullptr;
  std::string name;
  size_t elem = 0;
  size_t count = 0;
  std::vector<uint64_t> storage;  // 8-byte aligned backing store
  // Bytes of margin before (and after) the elements: zero for the handles of the dialect, whose
  // every access is checked before it is made; for raw allocations (raw.cpp), the room in which
  // an out-of-bounds access still lands in this allocation, so it is reported against it.
  size_t margin = 0;
  std::vector<Cell> cells;
  uint64_t block_serial = ~0ull;  // the block it was last reset for
  uint32_t race_reported_bgen = ~0u;
  unsigned char* data() { return reinterpret_cast<unsigned char*>(storage.data()) + margin; }
};

struct Launch {
  Session* session = nullptr;
  const char* kernel = "";
  uint32_t policy = WK_SIMT_FORWARD;
  unsigned W = 32;
  Dim3 grid{1, 1, 1}, bdim{1, 1, 1}, bidx{0, 0, 0};
  unsigned n = 0, nwarps = 0;
  KernelBody body = nullptr;
  const void* ctx = nullptr;
  size_t dyn_bytes = 0;
  std::vector<Lane> lanes;
  std::vector<uint32_t> vc;  // warp-local vector clocks: vc[t * W + lane]
  uint32_t bgen = 0;          // block barriers passed by the block
  uint64_t rng = 0;
  uint64_t block_serial = 0;
  FiberContext sched;
  unsigned cur = 0;
  bool in_lane = false;  // a lane's fiber runs (not the scheduler)
  uint64_t switches = 0;
  uint32_t forced = 0;
  bool aborted = false;
  bool faulted = false;  // aborted by a lane's memory fault (fault.cpp)
  int failed = 0;        // aborted by an exception on a lane (an error code, executor.cpp)
  uint32_t per_kind[WK_SIMT_REPORT_KINDS] = {};
  uint32_t report_cap = 16;  // the session's, when the launch began
  std::vector<Report> reports;
  uint64_t suppressed = 0;
  std::unordered_map<const void*, std::unique_ptr<SharedAlloc>> allocs;
  // The raw allocations (raw.cpp), and the address range their storage (margins included)
  // spans, which every instrumented access is first compared with.
  std::vector<SharedAlloc*> raw;
  uintptr_t raw_lo = UINTPTR_MAX, raw_hi = 0;
  LaunchChecks checks;
  // A block of a cooperative launch (cooperative.cpp), whether its threads all wait at a
  // grid.sync() for the other blocks, and where its fibers' stacks start in the stack pool:
  // false, false and 0 in a launch that runs its blocks one after another.
  bool cooperative = false;
  bool grid_arrived = false;
  unsigned stack_base = 0;

  Lane& me() { return lanes[cur]; }
  uint32_t per_kind_total() const {
    uint32_t n = 0;
    for (uint32_t k : per_kind) n += k;
    return n;
  }
  unsigned warp_of(unsigned t) const { return t / W; }
  unsigned lane_of(unsigned t) const { return t % W; }
  uint64_t next_random();
  void report(uint32_t kind, unsigned warp, uint64_t lanes, std::string detail);
  // Gives control back to the scheduler; returns when this lane is resumed.
  void yield_to_scheduler();
};

extern thread_local Launch* g_launch;

// ---- failures of the executor's own resources (executor.cpp) ----
// Records that `bytes` could not be had (0: unknown) for wk_simt_take_oom_bytes.
void note_oom(uint64_t bytes);
uint64_t take_oom_bytes();

// The guard of every C entry point: a C++ exception must never cross into the Rust caller
// (undefined behaviour, in practice an abort). `body` returns the entry point's result;
// std::bad_alloc gives `on_oom`, any other exception `on_other`. Used once per entry point,
// around its whole body: a try block costs nothing until something throws.
template <class R, class F>
R guarded(R on_oom, R on_other, F&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return on_oom;
  } catch (...) {
    return on_other;
  }
}

// For an entry point with no result: a failure becomes the error of this thread's next launch
// (what its launcher returns), so it is not lost.
template <class F>
void guarded_void(F&& body) noexcept {
  try {
    body();
  } catch (const std::bad_alloc&) {
    note_launch_error(WK_SIMT_ERR_OUT_OF_MEMORY);
  } catch (...) {
    note_launch_error(WK_SIMT_ERR_INTERNAL);
  }
}

inline bool is_wave_op(Op op) {
  return op == Op::WaveBallot || op == Op::WavePermute || op == Op::WaveFirstLane;
}

// Ends a collective for the lanes of warp `w` in `group`: they become runnable again, and their
// vector clocks join if the collective orders memory (`orders`, or every one of them fenced
// before it).
void release_collective(Launch& L, unsigned w, uint64_t group, bool orders);

// ---- running blocks (executor.cpp), for cooperative.cpp ----
// Prepares the fibers of the block L.bidx (stacks from L.stack_base on in this thread's pool,
// which holds at least `stacks`: throws std::bad_alloc before any lane runs if it cannot).
void start_block(Launch& L, size_t stacks);
// Runs the block until every thread exited, it was abandoned (L.aborted), or, in a
// cooperative launch, every thread that has not exited waits at a grid.sync()
// (L.grid_arrived).
void advance_block(Launch& L);
// Runs every block of the cooperative launch `L` (its grid and shape set) co-resident, their
// fibers at once, up to each grid.sync(); their reports go to L (cooperative.cpp).
void run_cooperative(Launch& L);
// The most threads a cooperative launch may have: every one is a fiber with its own stack for
// the whole launch.
constexpr uint64_t kMaxCooperativeThreads = 16384;

// collectives.cpp: resolves the warp collectives whose lanes have all arrived; with `force`, also
// those whose lanes can never arrive (the block is otherwise stuck), reported and resolved with
// the lanes that did. False if none was resolved.
bool resolve_ops(Launch& L, bool force);
// collectives.cpp: __activemask() and the mask-free ballot, their groups formed from the lanes
// that reached the same call together. False if none was resolved.
bool resolve_active(Launch& L);

// Resolves, in each warp whose lanes wait at AMD wave instructions, the one the wave reaches
// first (csrc/simt/amdgcn/wave.cpp). False if no lane waits at one.
bool resolve_wave(Launch& L);

// names.cpp: a collective's name, and how reports write values, lanes, threads and sites.
const char* op_name(Op op);
std::string hex(uint64_t v);
std::string lane_list(uint64_t bits);
std::string thread_list(const std::vector<unsigned>& threads);
std::string site_str(Site s);
bool same_site(Site a, Site b);
// Catches the memory faults of lanes on this thread (fault.cpp): installed once per process,
// an alternate signal stack once per thread.
void guard_faults();

// Whether `s` says where (a file and line, or an instruction symbolize.cpp resolves).
inline bool has_site(Site s) { return s.file || s.pc; }

// ---- shared memory (shared.cpp), for raw.cpp ----
// The allocation for `key` in the running block, reset on its first use in a block; `margin`
// bytes of room on each side of its elements (see SharedAlloc::margin).
SharedAlloc* shared_get(Launch& L, const void* key, const char* name, size_t elem, size_t count,
                        size_t margin);
// Checks and records thread `t`'s access to element `i` of `a` (in bounds).
void shared_track(Launch& L, SharedAlloc& a, size_t i, Access kind, Site site);

// ---- instructions to source lines (symbolize.cpp) ----
// What site_str writes for a site known only by its instruction: a token that
// resolve_sites replaces with the file and line once the launch is over.
std::string pc_token(const void* pc);
// Replaces the tokens in `text` with the file:line of their instructions (addr2line on the
// object holding each; `object+0xOFFSET` where it cannot say).
void resolve_sites(std::string& text);

}  // namespace wk_simt
