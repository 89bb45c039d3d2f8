// Shared memory that plain CUDA and HIP address directly (csrc/simt/plain): a `__shared__`
// declaration is real storage, reached through any pointer the kernel makes to it, and the
// kernel is compiled with ThreadSanitizer's instrumentation (-fsanitize=thread, no runtime
// linked): the compiler calls the __tsan_* hooks (tsan.cpp) before each load and store, with the
// address, and they check and record the ones that land in a raw allocation of the running
// block exactly as the dialect's SharedRef does (shared.cpp). The hooks see an address and the
// instruction that made the access, not a line: the report carries the instruction, which
// symbolize.cpp turns into the user's file and line once the launch is over. tsan.cpp holds
// the hooks.
#include <string.h>

#include <algorithm>

#include "internal.h"

namespace wk_simt {

namespace {

// Room on each side of a raw allocation's elements: an index out of bounds by up to this many
// bytes (its size, at least 1 KB) lands in the allocation's own margin and is reported against
// it; the margins of two allocations never overlap, so nothing is blamed on a neighbour.
size_t margin_for(size_t bytes) {
  const size_t m = std::max<size_t>(bytes, 1024);
  return (m + 63) & ~size_t(63);
}

SharedAlloc* raw_get(Launch& L, const void* key, const char* name, size_t elem, size_t count) {
  const size_t before = L.allocs.size();
  SharedAlloc* a = shared_get(L, key, name, elem ? elem : 1, count, margin_for(elem * count));
  if (L.allocs.size() != before) {
    // New this launch: its window joins the ranges the hooks look in.
    const uintptr_t lo = (uintptr_t)a->storage.data();
    const uintptr_t hi = lo + a->storage.size() * sizeof(uint64_t);
    L.raw.push_back(a);
    L.raw_lo = std::min(L.raw_lo, lo);
    L.raw_hi = std::max(L.raw_hi, hi);
  }
  return a;
}

SharedAlloc* window_of(const Launch& L, uintptr_t p) {
  for (SharedAlloc* a : L.raw) {
    const uintptr_t lo = (uintptr_t)a->storage.data();
    if (p >= lo && p < lo + a->storage.size() * sizeof(uint64_t)) return a;
  }
  return nullptr;
}

// The key all `extern __shared__` declarations of a launch share.
const char kDynamicKey = 0;

}  // namespace

void* shared_raw(const void* key, const char* name, size_t elem, size_t count) {
  return raw_get(*g_launch, key, name, elem, count)->data();
}

void* shared_raw_dynamic(const char* name, size_t elem) {
  Launch& L = *g_launch;
  const size_t e = elem ? elem : 1;
  return raw_get(L, &kDynamicKey, name, e, L.dyn_bytes / e)->data();
}

void raw_access(const void* p, size_t bytes, Access kind, Site site) {
  Launch* L = g_launch;
  const uintptr_t at = (uintptr_t)p;
  // Anything but a lane's access to a raw allocation: global memory, the stack, the executor.
  if (!L || !L->in_lane || at >= L->raw_hi || at + bytes <= L->raw_lo || !bytes) return;
  SharedAlloc* a = window_of(*L, at);
  if (!a) return;
  if (L->policy == WK_SIMT_LOCKSTEP) L->yield_to_scheduler();  // as shared_access
  // The elements the access covers, which may be several (a float4 over floats), part of one
  // (a byte of an int), or outside the array.
  const int64_t off = (int64_t)(at - (uintptr_t)a->data());
  const int64_t elem = (int64_t)a->elem;
  const int64_t first = off >= 0 ? off / elem : -((-off + elem - 1) / elem);
  const int64_t last_byte = off + (int64_t)bytes - 1;
  const int64_t last = last_byte >= 0 ? last_byte / elem : -((-last_byte + elem - 1) / elem);
  for (int64_t i = first; i <= last; ++i) {
    if (i < 0 || i >= (int64_t)a->count) {
      report_out_of_bounds(*L, a->name, a->count, i, L->cur, site);
      return;
    }
    shared_track(*L, *a, (size_t)i, kind, site);
  }
}

}  // namespace wk_simt
