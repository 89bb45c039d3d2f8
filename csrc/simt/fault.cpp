// A lane that faults: plain CUDA and HIP address memory directly (raw shared arrays, the
// buffers they are given), so an index far out of bounds, which the dialect's checked handles
// would have reported and dropped, reaches memory no one mapped. Rather than take the program
// down, the fault is reported with the lane, the address and the instruction (its line, by
// symbolize.cpp), and the launch is abandoned: the faulting fiber is left for good and the
// scheduler returns from the block. A fault with no lane running is not the executor's: it goes
// to the handler that was there before (the Rust runtime's stack-overflow guard, or the
// default action).
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include <mutex>

#include "internal.h"

namespace wk_simt {

namespace {

struct sigaction g_previous[2];  // SIGSEGV's, SIGBUS's

// Room for the handler when the fault is a fiber's stack overflow (its guard page): a thread
// without an alternate signal stack gets this one.
constexpr size_t kAltStack = size_t(1) << 16;
thread_local bool t_alt_ready = false;

const void* fault_pc(void* uctx) {
#if defined(__x86_64__)
  return reinterpret_cast<const void*>(static_cast<ucontext_t*>(uctx)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return reinterpret_cast<const void*>(static_cast<ucontext_t*>(uctx)->uc_mcontext.pc);
#else
  (void)uctx;
  return nullptr;
#endif
}

void pass_on(int sig, siginfo_t* info, void* uctx) {
  const struct sigaction& prev = g_previous[sig == SIGBUS ? 1 : 0];
  if (prev.sa_flags & SA_SIGINFO) {
    prev.sa_sigaction(sig, info, uctx);
  } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
    prev.sa_handler(sig);
  } else {
    // The default action: returning re-runs the faulting instruction, which now kills.
    signal(sig, SIG_DFL);
  }
}

void on_fault(int sig, siginfo_t* info, void* uctx) {
  Launch* L = g_launch;
  if (!L || !L->in_lane) {
    pass_on(sig, info, uctx);
    return;
  }
  const unsigned t = L->cur;
  char addr[40];
  snprintf(addr, sizeof addr, "%p", info->si_addr);
  const void* pc = fault_pc(uctx);
  L->report(WK_SIMT_INVALID_ACCESS, L->warp_of(t), 1ull << L->lane_of(t),
            "thread " + std::to_string(t) + " (warp " + std::to_string(L->warp_of(t)) +
                " lane " + std::to_string(L->lane_of(t)) + ") touched address " + addr +
                (pc ? " at " + site_str(Site{nullptr, 0, pc}) : std::string()) +
                ", which no buffer, shared array or stack of the launch holds (an index out of "
                "bounds of what the kernel was given); the executor abandoned the launch");
  L->aborted = true;
  L->faulted = true;
  Lane& x = L->me();
  x.st = St::Exited;
  // Back to the scheduler for good: this fiber is never resumed (SA_NODEFER left the signal
  // unblocked, so a later fault is caught too).
  fiber_switch(x.ctx, L->sched);
}

}  // namespace

void guard_faults() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_previous[0]);
    sigaction(SIGBUS, &sa, &g_previous[1]);
  });
  if (!t_alt_ready) {
    t_alt_ready = true;
    stack_t ss;
    if (sigaltstack(nullptr, &ss) == 0 && (ss.ss_flags & SS_DISABLE)) {
      stack_t mine;
      mine.ss_sp = malloc(kAltStack);  // kept for the thread's life
      mine.ss_size = kAltStack;
      mine.ss_flags = 0;
      if (mine.ss_sp) sigaltstack(&mine, nullptr);
    }
  }
}

}  // namespace wk_simt
