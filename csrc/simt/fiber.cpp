#include "fiber.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace wk_simt {

static size_t page_size() {
  static const size_t p = (size_t)sysconf(_SC_PAGESIZE);
  return p;
}

size_t fiber_stack_mapped(size_t bytes) {
  const size_t page = page_size();
  return (bytes + page - 1) / page * page + page;
}

bool fiber_stack_alloc(size_t bytes, FiberStack& out) {
  const size_t page = page_size();
  FiberStack s;
  s.mapped = fiber_stack_mapped(bytes);
  // A process at its address-space limit (RLIMIT_AS) or map count gets MAP_FAILED here, and
  // the guard page's mprotect may fail the same way (it splits the mapping): the launch then
  // fails with WK_SIMT_ERR_OUT_OF_MEMORY instead of the process aborting.
  void* p = mmap(nullptr, s.mapped, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  if (mprotect(p, page, PROT_NONE) != 0) {
    munmap(p, s.mapped);
    return false;
  }
  s.base = p;
  s.top = (char*)p + s.mapped;
#if !defined(__x86_64__)
  s.uc = calloc(1, sizeof(ucontext_t));
  if (!s.uc) {
    munmap(p, s.mapped);
    return false;
  }
#endif
  out = s;
  return true;
}

void fiber_stack_free(FiberStack& s) {
  if (s.base) munmap(s.base, s.mapped);
#if !defined(__x86_64__)
  free(s.uc);
  s.uc = nullptr;
#endif
  s.base = nullptr;
  s.top = nullptr;
}

#if defined(__x86_64__)

extern "C" void wk_simt_ctx_switch(void** save_sp, void* load_sp);
extern "C" void wk_simt_ctx_trampoline();

// System V callee-saved state: rbp rbx r12-r15, the SSE control word and the x87 control word.
// The trampoline starts a fresh fiber with r12 = entry, r13 = argument.
asm(R"(
  .text
  .p2align 4
  .globl wk_simt_ctx_switch
  .hidden wk_simt_ctx_switch
  .type wk_simt_ctx_switch,@function
wk_simt_ctx_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size wk_simt_ctx_switch, .-wk_simt_ctx_switch

  .p2align 4
  .globl wk_simt_ctx_trampoline
  .hidden wk_simt_ctx_trampoline
  .type wk_simt_ctx_trampoline,@function
wk_simt_ctx_trampoline:
  movq %r13, %rdi
  callq *%r12
  ud2
  .size wk_simt_ctx_trampoline, .-wk_simt_ctx_trampoline
)");

void fiber_prepare(FiberContext& ctx, FiberStack& stack, FiberEntry entry, void* arg) {
  // Frame popped by wk_simt_ctx_switch: control words, r15, r14, r13, r12, rbx, rbp, return
  // address. The trampoline then starts with rsp 16-byte aligned, as a call site requires.
  uintptr_t top = (uintptr_t)stack.top & ~(uintptr_t)15;
  uint64_t* sp = (uint64_t*)(top - 16 - 8 * 8);
  uint32_t mxcsr;
  uint16_t fpucw;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(fpucw));
  sp[0] = (uint64_t)mxcsr | ((uint64_t)fpucw << 32);
  sp[1] = 0;                                // r15
  sp[2] = 0;                                // r14
  sp[3] = (uint64_t)(uintptr_t)arg;         // r13
  sp[4] = (uint64_t)(uintptr_t)entry;       // r12
  sp[5] = 0;                                // rbx
  sp[6] = 0;                                // rbp
  sp[7] = (uint64_t)(uintptr_t)&wk_simt_ctx_trampoline;
  ctx.sp = sp;
}

void fiber_switch(FiberContext& from, FiberContext& to) { wk_simt_ctx_switch(&from.sp, to.sp); }

#else

struct UcStart {
  FiberEntry entry;
  void* arg;
};

static void uc_start(unsigned hi, unsigned lo) {
  UcStart* s = (UcStart*)(((uintptr_t)hi << 32) | (uintptr_t)lo);
  s->entry(s->arg);
  abort();
}

void fiber_prepare(FiberContext& ctx, FiberStack& stack, FiberEntry entry, void* arg) {
  ucontext_t* uc = (ucontext_t*)stack.uc;
  getcontext(uc);
  // The start record lives at the top of the fiber's own stack.
  UcStart* start = (UcStart*)(((uintptr_t)stack.top - sizeof(UcStart)) & ~(uintptr_t)15);
  start->entry = entry;
  start->arg = arg;
  uc->uc_stack.ss_sp = (char*)stack.base + page_size();
  uc->uc_stack.ss_size = (size_t)((char*)start - (char*)uc->uc_stack.ss_sp) & ~(size_t)15;
  uc->uc_link = nullptr;
  makecontext(uc, (void (*)())uc_start, 2, (unsigned)((uintptr_t)start >> 32),
              (unsigned)(uintptr_t)start);
  ctx.uc = uc;
}

void fiber_switch(FiberContext& from, FiberContext& to) {
  static thread_local ucontext_t sched_uc;
  if (!from.uc) from.uc = &sched_uc;
  swapcontext((ucontext_t*)from.uc, (ucontext_t*)to.uc);
}

#endif

}  // namespace wk_simt
