// The SIMT executor's core, seen from device code compiled for the host: thread and block
// indices of the running fiber, warp collectives, block barriers, tracked shared memory and
// launches. Width-agnostic (the width is a launch parameter), so one compiled core serves the
// kernels built at 32 and at 64 lanes; arch_simt.h maps the device layer's interface onto it.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

namespace wk_simt {

struct Dim3 {
  unsigned x, y, z;
};

// Where a collective or barrier was called, from __builtin_FILE/__builtin_LINE at the call.
// `pc`, when set, is the host instruction that made the call: the AMD builtins are all called
// from a few lines of arch_hip.h, so lanes meet at one only if they run the same copy of it
// (the same instruction, as an AMD wave's lanes do).
struct Site {
  const char* file;
  int line;
  const void* pc = nullptr;
};
#define WK_SIMT_HERE \
  ::wk_simt::Site { __builtin_FILE(), __builtin_LINE() }

// What must run without stopping at the hip flavour's basic-block steps (csrc/simt/amdgcn):
// one device instruction, such as an atomic read-modify-write, or a tracked shared-memory
// access from its check to its load or store. That flavour's build requires the attribute.
// Plain CUDA and HIP (csrc/simt/plain) are built with ThreadSanitizer's instrumentation, which
// reports each load and store to raw.cpp: such a piece of code makes its access itself (an
// atomic), so it is left uninstrumented too.
#if defined(__has_attribute) && __has_attribute(no_sanitize_coverage)
#define WK_SIMT_INDIVISIBLE __attribute__((no_sanitize_coverage, no_sanitize("thread")))
#elif defined(__has_attribute) && __has_attribute(no_sanitize)
#define WK_SIMT_INDIVISIBLE __attribute__((no_sanitize("thread")))
#else
#define WK_SIMT_INDIVISIBLE
#endif

enum class Op : uint8_t {
  All,
  Any,
  Uni,
  Ballot,
  ShflIdx,
  ShflUp,
  ShflDown,
  ShflXor,
  MatchAny,
  MatchAll,
  SyncWarp,
  ActiveMask,    // lanes that reach this call together
  BallotActive,  // ballot over the lanes that reach this call together (HIP's __ballot)
  // AMD wave instructions (csrc/simt/amdgcn): over the lanes at the same instruction, which run
  // together under any schedule, as an AMD wave's lanes do under its EXEC mask.
  WaveBallot,     // v_cmp to an SGPR pair: the lanes whose `value` is non-zero
  WavePermute,    // ds_bpermute_b32: `value` from the lane at byte address `arg`
  WaveFirstLane,  // v_readfirstlane_b32: `value` of the lowest lane
};

// ---- the running thread ----
Dim3 thread_idx();
Dim3 block_idx();
Dim3 block_dim();
Dim3 grid_dim();
unsigned lane_id();
unsigned warp_size();

struct WarpResult {
  uint64_t value;
  bool pred;
};

// One lane's part in a warp collective: the fiber waits until every lane `mask` names has
// arrived at the same collective (or reports why they cannot), then gets its result.
// `value` carries a predicate (0/1) or the value's bits; `bytes` is 4 or 8 for shuffles and
// match; `arg`/`width` as in __shfl*_sync.
WarpResult warp_op(Op op, uint64_t mask, uint64_t value, unsigned bytes, unsigned arg,
                   unsigned width, Site site);

// __syncthreads: waits for every thread of the block.
void sync_block(Site site);

// grid.sync() (cooperative groups): in a cooperative launch, waits for every thread of the
// grid, with __syncthreads' checks in each block and across the blocks (cooperative.cpp). In a
// launch that is not cooperative it is reported and the launch abandoned
// (WK_SIMT_ERR_NOT_COOPERATIVE): nothing keeps such a grid's blocks resident together.
void sync_grid(Site site);
// Whether the running launch is cooperative (grid_group::is_valid()).
bool cooperative_launch();

// __threadfence_block and stronger: a collective that every participant reaches after a fence
// orders their memory accesses like __syncwarp (see the emulated syncwarp in emulated.h).
void fence_block();

// ---- value checks (checks.cpp) ----
// A built-in that takes 32 bits (`what`: __popc, __ffs, __clz) given `bits`, a value of `bytes`
// bytes, at `site`: a 64-bit value with bits above 31 set loses them, and a 32-bit value equal
// to the low half of a recent wave64 collective result of this lane (ballot, __activemask,
// match_any) is that mask cut to 32 bits, unless the lane also gives one of these built-ins
// the high half. Either is reported (WK_SIMT_MASK_NARROWED), the second when the lane exits.
void check_narrow(const char* what, uint64_t bits, unsigned bytes, Site site);

// The byte expect_written fills outputs with.
constexpr unsigned char kOutputPoison = 0x5A;  // not shared memory's 0xA5, which kernels copy
// Output coverage: fills `count` elements of `elem_bytes` bytes at `p` with kOutputPoison, and
// the next launch of this OS thread reports, when it ends, the elements that still hold it
// (WK_SIMT_UNWRITTEN_OUTPUT), naming the thread meant to write each: element i is thread
// i * stride of the grid, threads numbered block after block (modulo their number: a thread
// may write several).
void expect_written(void* p, size_t count, size_t elem_bytes, size_t stride, const char* name,
                    Site site);

// ---- launches ----
typedef void (*KernelBody)(const void* ctx);

// Runs `body` once per thread of every block, blocks one after another (all at once, as
// fibers of the OS thread, in a session whose launches are cooperative). Hazards go to the
// session's report list; the return value is a capi.h code: 0, WK_SIMT_HAZARDS when this
// launch reported any, or an error for a launch that could not run (see error_string).
int launch(void* session, const char* kernel, unsigned width, Dim3 grid, Dim3 block,
           size_t dynamic_shared_bytes, KernelBody body, const void* ctx);
const char* error_string(int code);

// The first error of the launches since the last call, then 0 (cudaGetLastError).
int take_launch_error();
void note_launch_error(int code);

// "name<args>" of the kernel F, from the compiler's spelling of the instantiation.
const char* kernel_name_from(const char* pretty);
template <auto F>
const char* kernel_name() {
  static const char* const name = kernel_name_from(__PRETTY_FUNCTION__);
  return name;
}

// What WK_LAUNCH(grid, block, shmem, stream, kernel) builds; calling it with the kernel's
// arguments runs the launch.
template <auto F>
struct KernelLaunch {
  unsigned width;
  void* session;
  Dim3 grid, block;
  size_t shmem;
  KernelLaunch(unsigned w, void* s, Dim3 g, Dim3 b, size_t m)
      : width(w), session(s), grid(g), block(b), shmem(m) {}
  template <class... A>
  void operator()(A... args) const;
};

template <class F>
int launch_fn(void* session, const char* kernel, unsigned width, Dim3 grid, Dim3 block,
              size_t dynamic_shared_bytes, const F& f) {
  return launch(session, kernel, width, grid, block, dynamic_shared_bytes,
                [](const void* c) { (*static_cast<const F*>(c))(); }, &f);
}

template <auto F>
template <class... A>
void KernelLaunch<F>::operator()(A... args) const {
  note_launch_error(launch_fn(session, kernel_name<F>(), width, grid, block, shmem,
                              [=] { F(args...); }));
}

// ---- shared memory ----
// One allocation of a block's shared memory, tracked element by element: every access goes
// through shared_access, which checks bounds and reports accesses by two threads that no
// barrier orders (one a write, not both atomic).
struct SharedAlloc;
enum class Access : uint8_t { Read, Write, Atomic };

// The allocation for declaration `key` in the running block (the same for all its threads).
SharedAlloc* shared_alloc(const void* key, const char* name, size_t elem_bytes, size_t count);
// The block's dynamic shared memory (the launch's dynamic_shared_bytes), as elements of
// `elem_bytes`.
SharedAlloc* shared_dynamic(const char* name, size_t elem_bytes);
size_t shared_count(const SharedAlloc* a);
// Records the access made at `site` (file null when unknown) and returns the element, or
// nullptr when `index` is out of bounds (a report says so; reads then see `poison` and writes
// are dropped).
void* shared_access(SharedAlloc* a, size_t index, Access kind, Site site);

// ---- shared memory addressed directly (plain CUDA and HIP: csrc/simt/plain, raw.cpp) ----
// A `__shared__` declaration of plain source is real memory its kernel reads and writes
// through any pointer; the compiler's ThreadSanitizer instrumentation calls raw_access for
// every load and store, and those that land in a raw allocation are checked like the handles'.
//
// The block's storage for declaration `key` (the same for all its threads): `count` elements
// of `elem` bytes, 64-byte aligned, poisoned at the start of each block.
void* shared_raw(const void* key, const char* name, size_t elem, size_t count);
// The block's dynamic shared memory as elements of `elem` bytes: one allocation every
// `extern __shared__` declaration of a launch shares, as on the GPU.
void* shared_raw_dynamic(const char* name, size_t elem);
// An access of `bytes` bytes at `p` made at `site`: checked and recorded if `p` lies in (or
// near) a raw allocation of the running block; anything else is no shared memory of ours.
void raw_access(const void* p, size_t bytes, Access kind, Site site);

// An index into a shared array that remembers the line it was written on: the subscript's
// implicit conversion evaluates the default arguments where the subscript is, so reports on
// `s[i]` name that line (operator[] takes exactly one argument, so it cannot default them).
struct SharedIndex {
  ptrdiff_t i;
  Site site;
  SharedIndex(ptrdiff_t index, const char* file = __builtin_FILE(), int line = __builtin_LINE())
      : i(index), site{file, line} {}
};

template <class T>
class SharedPtr;

template <class T>
class SharedRef {
 public:
  SharedRef(SharedAlloc* a, size_t i, Site site = Site{nullptr, 0}) : a_(a), i_(i), s_(site) {}
  WK_SIMT_INDIVISIBLE operator T() const {
    T v;
    const void* p = shared_access(a_, i_, Access::Read, s_);
    if (p)
      memcpy(&v, p, sizeof(T));
    else
      memset(&v, 0xA5, sizeof(T));
    return v;
  }
  T load() const { return *this; }
  WK_SIMT_INDIVISIBLE const SharedRef& operator=(const T& v) const {
    void* p = shared_access(a_, i_, Access::Write, s_);
    if (p) memcpy(p, &v, sizeof(T));
    return *this;
  }
  const SharedRef& operator=(const SharedRef& o) const { return *this = o.load(); }
#define WK_SIMT_COMPOUND(OP)                          \
  template <class U>                                  \
  const SharedRef& operator OP##=(const U& v) const { \
    T x = load();                                     \
    return *this = T(x OP v);                         \
  }
  WK_SIMT_COMPOUND(+)
  WK_SIMT_COMPOUND(-)
  WK_SIMT_COMPOUND(*)
  WK_SIMT_COMPOUND(/)
  WK_SIMT_COMPOUND(|)
  WK_SIMT_COMPOUND(&)
  WK_SIMT_COMPOUND(^)
  WK_SIMT_COMPOUND(<<)
  WK_SIMT_COMPOUND(>>)
#undef WK_SIMT_COMPOUND
  SharedPtr<T> operator&() const { return SharedPtr<T>(a_, i_); }
  // For atomics on shared memory: records an atomic access and returns the element.
  T* atomic_target() const {
    return static_cast<T*>(shared_access(a_, i_, Access::Atomic, s_));
  }

 private:
  SharedAlloc* a_;
  size_t i_;
  Site s_;
};

template <class T>
class SharedPtr {
 public:
  SharedPtr() : a_(nullptr), i_(0) {}
  SharedPtr(SharedAlloc* a, size_t i) : a_(a), i_(i) {}
  SharedRef<T> operator*() const { return SharedRef<T>(a_, i_); }
  SharedRef<T> operator[](SharedIndex k) const { return SharedRef<T>(a_, i_ + k.i, k.site); }
  SharedPtr operator+(ptrdiff_t k) const { return SharedPtr(a_, i_ + k); }
  SharedPtr operator-(ptrdiff_t k) const { return SharedPtr(a_, i_ - k); }
  ptrdiff_t operator-(const SharedPtr& o) const { return (ptrdiff_t)i_ - (ptrdiff_t)o.i_; }
  SharedPtr& operator+=(ptrdiff_t k) {
    i_ += k;
    return *this;
  }
  SharedPtr& operator-=(ptrdiff_t k) {
    i_ -= k;
    return *this;
  }
  SharedPtr& operator++() {
    ++i_;
    return *this;
  }
  bool operator==(const SharedPtr& o) const { return a_ == o.a_ && i_ == o.i_; }
  bool operator!=(const SharedPtr& o) const { return !(*this == o); }

 private:
  SharedAlloc* a_;
  size_t i_;
};

// What WK_SHARED(T, name, N) declares on the executor: a handle to the block's array.
template <class T>
class SharedArray {
 public:
  SharedArray(const void* key, const char* name, size_t n)
      : a_(shared_alloc(key, name, sizeof(T), n)) {}
  SharedArray(SharedAlloc* a) : a_(a) {}
  SharedRef<T> operator[](SharedIndex i) const { return SharedRef<T>(a_, i.i, i.site); }
  operator SharedPtr<T>() const { return SharedPtr<T>(a_, 0); }
  SharedPtr<T> operator+(ptrdiff_t k) const { return SharedPtr<T>(a_, k); }
  size_t size() const { return shared_count(a_); }

 private:
  SharedAlloc* a_;
};

}  // namespace wk_simt
