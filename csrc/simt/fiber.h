// Cooperative fibers for the SIMT executor: one per GPU thread of the running block, all on the
// OS thread that runs the launch, switched only at the executor's synchronising points.
#pragma once

#include <stddef.h>

namespace wk_simt {

// A fiber's saved machine state. On x86-64 a hand-written switch saves the callee-saved
// registers on the fiber's own stack (no signal-mask syscall, unlike swapcontext); elsewhere
// ucontext does the same job more slowly.
struct FiberContext {
  void* sp = nullptr;
#if !defined(__x86_64__)
  void* uc = nullptr;  // ucontext_t*, owned by the stack pool
#endif
};

typedef void (*FiberEntry)(void* arg);

// A stack of `bytes` usable bytes below a guard page that turns an overflow into a fault
// instead of silent corruption of the neighbouring fiber.
struct FiberStack {
  void* base = nullptr;  // lowest mapped address (the guard page)
  size_t mapped = 0;
  void* top = nullptr;   // one past the highest usable byte
#if !defined(__x86_64__)
  void* uc = nullptr;
#endif
};

// Maps a stack of at least `bytes` usable bytes into `out`; false (and `out` untouched) when
// the system refuses the mapping or its guard page.
bool fiber_stack_alloc(size_t bytes, FiberStack& out);
// The bytes fiber_stack_alloc maps for `bytes` usable ones (the guard page included).
size_t fiber_stack_mapped(size_t bytes);
void fiber_stack_free(FiberStack& s);

// Prepares `ctx` to run entry(arg) on `stack` the first time it is switched to. The entry must
// never return: it ends by switching away for good.
void fiber_prepare(FiberContext& ctx, FiberStack& stack, FiberEntry entry, void* arg);

// Saves the running context into `from` and resumes `to`.
void fiber_switch(FiberContext& from, FiberContext& to);

}  // namespace wk_simt
