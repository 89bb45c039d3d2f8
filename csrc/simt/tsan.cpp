// ThreadSanitizer's instrumentation ABI (GCC's and clang's), without its runtime: what plain
// CUDA and HIP compiled with -fsanitize=thread call before each memory access (raw.cpp checks
// those that land in raw shared memory), at function entry and exit, and for the atomics the
// C++ runtime itself uses (a function-local static's guard). Each access hook is called just
// before the access it names; the caller's return address, one byte back, lies in the
// instructions that make it, which is all a report on it knows of its line (symbolize.cpp).
#include <string.h>

#include "internal.h"

namespace {

using wk_simt::Access;

inline wk_simt::Site caller_site(void* ret) {
  return wk_simt::Site{nullptr, 0, static_cast<const char*>(ret) - 1};
}

}  // namespace

#define WK_RAW_HOOKS(n)                                                                      \
  extern "C" void __tsan_read##n(void* p) {                                                  \
    wk_simt::raw_access(p, n, Access::Read, caller_site(__builtin_return_address(0)));        \
  }                                                                                          \
  extern "C" void __tsan_write##n(void* p) {                                                 \
    wk_simt::raw_access(p, n, Access::Write, caller_site(__builtin_return_address(0)));       \
  }                                                                                          \
  extern "C" void __tsan_unaligned_read##n(void* p) {                                        \
    wk_simt::raw_access(p, n, Access::Read, caller_site(__builtin_return_address(0)));        \
  }                                                                                          \
  extern "C" void __tsan_unaligned_write##n(void* p) {                                       \
    wk_simt::raw_access(p, n, Access::Write, caller_site(__builtin_return_address(0)));       \
  }                                                                                          \
  extern "C" void __tsan_volatile_read##n(void* p) {                                         \
    wk_simt::raw_access(p, n, Access::Read, caller_site(__builtin_return_address(0)));        \
  }                                                                                          \
  extern "C" void __tsan_volatile_write##n(void* p) {                                        \
    wk_simt::raw_access(p, n, Access::Write, caller_site(__builtin_return_address(0)));       \
  }
WK_RAW_HOOKS(1)
WK_RAW_HOOKS(2)
WK_RAW_HOOKS(4)
WK_RAW_HOOKS(8)
WK_RAW_HOOKS(16)
#undef WK_RAW_HOOKS

extern "C" void __tsan_read_range(void* p, unsigned long bytes) {
  wk_simt::raw_access(p, bytes, Access::Read, caller_site(__builtin_return_address(0)));
}
extern "C" void __tsan_write_range(void* p, unsigned long bytes) {
  wk_simt::raw_access(p, bytes, Access::Write, caller_site(__builtin_return_address(0)));
}
// clang's memory intrinsics under -fsanitize=thread.
extern "C" void* __tsan_memcpy(void* d, const void* s, unsigned long n) {
  const wk_simt::Site at = caller_site(__builtin_return_address(0));
  wk_simt::raw_access(s, n, Access::Read, at);
  wk_simt::raw_access(d, n, Access::Write, at);
  return memcpy(d, s, n);
}
extern "C" void* __tsan_memmove(void* d, const void* s, unsigned long n) {
  const wk_simt::Site at = caller_site(__builtin_return_address(0));
  wk_simt::raw_access(s, n, Access::Read, at);
  wk_simt::raw_access(d, n, Access::Write, at);
  return memmove(d, s, n);
}
extern "C" void* __tsan_memset(void* d, int c, unsigned long n) {
  wk_simt::raw_access(d, n, Access::Write, caller_site(__builtin_return_address(0)));
  return memset(d, c, n);
}
// What the instrumentation also calls, with nothing for the executor to do.
extern "C" void __tsan_init() {}
extern "C" void __tsan_func_entry(void*) {}
extern "C" void __tsan_func_exit() {}
extern "C" void __tsan_vptr_update(void**, void*) {}
extern "C" void __tsan_vptr_read(void**) {}

// The atomics of the C++ runtime and of std::atomic: done here (this file is not instrumented),
// an atomic access where they touch raw shared memory. `mo` is the memory order, which fibers
// that switch only at synchronising points need not honour beyond doing the operation.
#define WK_TSAN_ATOMICS(n, T)                                                                \
  extern "C" T __tsan_atomic##n##_load(const volatile T* a, int) {                          \
    wk_simt::raw_access((const void*)a, sizeof(T), Access::Atomic,                          \
                        caller_site(__builtin_return_address(0)));                          \
    return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                            \
  }                                                                                         \
  extern "C" void __tsan_atomic##n##_store(volatile T* a, T v, int) {                       \
    wk_simt::raw_access((const void*)a, sizeof(T), Access::Atomic,                          \
                        caller_site(__builtin_return_address(0)));                          \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                               \
  }                                                                                         \
  WK_TSAN_RMW(n, T, exchange, __atomic_exchange_n)                                          \
  WK_TSAN_RMW(n, T, fetch_add, __atomic_fetch_add)                                          \
  WK_TSAN_RMW(n, T, fetch_sub, __atomic_fetch_sub)                                          \
  WK_TSAN_RMW(n, T, fetch_and, __atomic_fetch_and)                                          \
  WK_TSAN_RMW(n, T, fetch_or, __atomic_fetch_or)                                            \
  WK_TSAN_RMW(n, T, fetch_xor, __atomic_fetch_xor)                                          \
  WK_TSAN_RMW(n, T, fetch_nand, __atomic_fetch_nand)                                        \
  extern "C" int __tsan_atomic##n##_compare_exchange_strong(volatile T* a, T* c, T v, int,  \
                                                           int) {                           \
    wk_simt::raw_access((const void*)a, sizeof(T), Access::Atomic,                          \
                        caller_site(__builtin_return_address(0)));                          \
    return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);  \
  }                                                                                         \
  extern "C" int __tsan_atomic##n##_compare_exchange_weak(volatile T* a, T* c, T v, int,    \
                                                         int) {                             \
    wk_simt::raw_access((const void*)a, sizeof(T), Access::Atomic,                          \
                        caller_site(__builtin_return_address(0)));                          \
    return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);  \
  }                                                                                         \
  extern "C" T __tsan_atomic##n##_compare_exchange_val(volatile T* a, T c, T v, int, int) { \
    wk_simt::raw_access((const void*)a, sizeof(T), Access::Atomic,                          \
                        caller_site(__builtin_return_address(0)));                          \
    __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);        \
    return c;                                                                               \
  }
#define WK_TSAN_RMW(n, T, name, builtin)                                  \
  extern "C" T __tsan_atomic##n##_##name(volatile T* a, T v, int) {       \
    wk_simt::raw_access((const void*)a, sizeof(T), Access::Atomic,        \
                        caller_site(__builtin_return_address(0)));        \
    return builtin(a, v, __ATOMIC_SEQ_CST);                               \
  }
WK_TSAN_ATOMICS(8, unsigned char)
WK_TSAN_ATOMICS(16, unsigned short)
WK_TSAN_ATOMICS(32, unsigned)
WK_TSAN_ATOMICS(64, unsigned long long)
#undef WK_TSAN_RMW
#undef WK_TSAN_ATOMICS
extern "C" void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
extern "C" void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
