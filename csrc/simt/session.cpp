// The C interface: sessions hold the scheduling policy and collect the hazard reports of the
// launches that name them (a session is the "stream" the launchers are given).
#include <stdlib.h>
#include <string.h>

#include <algorithm>

#include "internal.h"

using wk_simt::Session;

// Plain CUDA and HIP, built as shared libraries the program loads (`wavekit check`), call the
// raw shared memory of raw.cpp and the instrumentation hooks of tsan.cpp, which nothing in the
// program itself calls: these references keep both in every program that makes sessions.
extern "C" void __tsan_read4(void*);
__attribute__((used)) void* const wk_simt_plain_hooks[] = {
    reinterpret_cast<void*>(&__tsan_read4), reinterpret_cast<void*>(&wk_simt::shared_raw)};

struct wk_simt_session : Session {};

// Each entry point's body runs under guarded / guarded_void (internal.h): no C++ exception
// reaches the Rust caller. A null session from wk_simt_session_new means no memory for it.
extern "C" {

wk_simt_session* wk_simt_session_new(uint32_t policy, uint64_t seed) {
  return wk_simt::guarded<wk_simt_session*>(nullptr, nullptr, [&] {
    wk_simt_session* s = new wk_simt_session();
    s->policy = policy;
    s->seed = seed;
    return s;
  });
}

void wk_simt_session_free(wk_simt_session* s) { delete s; }

void wk_simt_session_configure(wk_simt_session* s, uint32_t policy, uint64_t seed) {
  wk_simt::guarded_void([&] {
    std::lock_guard<std::mutex> g(s->mu);
    s->policy = policy;
    s->seed = seed;
  });
}

size_t wk_simt_session_report_count(wk_simt_session* s) {
  return wk_simt::guarded<size_t>(0, 0, [&] {
    std::lock_guard<std::mutex> g(s->mu);
    return s->reports.size();
  });
}

int wk_simt_session_report(wk_simt_session* s, size_t i, wk_simt_report* out) {
  return wk_simt::guarded(-1, -1, [&] {
    std::lock_guard<std::mutex> g(s->mu);
    if (i >= s->reports.size()) return -1;
    const wk_simt::Report& r = s->reports[i];
    out->kind = r.kind;
    out->block[0] = r.block.x;
    out->block[1] = r.block.y;
    out->block[2] = r.block.z;
    out->warp = r.warp;
    out->width = r.width;
    out->lanes = r.lanes;
    out->kernel = r.kernel.c_str();
    out->detail = r.detail.c_str();
    return 0;
  });
}

uint64_t wk_simt_session_suppressed(wk_simt_session* s) {
  return wk_simt::guarded<uint64_t>(0, 0, [&] {
    std::lock_guard<std::mutex> g(s->mu);
    return s->suppressed;
  });
}

void wk_simt_session_set_report_cap(wk_simt_session* s, uint32_t cap) {
  std::lock_guard<std::mutex> g(s->mu);
  s->report_cap = cap;
}

void wk_simt_session_set_cooperative(wk_simt_session* s, int on) {
  wk_simt::guarded_void([&] {
    std::lock_guard<std::mutex> g(s->mu);
    s->cooperative = on != 0;
  });
}

uint64_t wk_simt_cooperative_max_threads(void) { return wk_simt::kMaxCooperativeThreads; }

void wk_simt_session_clear(wk_simt_session* s) {
  wk_simt::guarded_void([&] {
    std::lock_guard<std::mutex> g(s->mu);
    s->reports.clear();
    s->suppressed = 0;
  });
}

void wk_simt_session_drop(wk_simt_session* s, size_t n) {
  wk_simt::guarded_void([&] {
    std::lock_guard<std::mutex> g(s->mu);
    s->reports.erase(s->reports.begin(), s->reports.begin() + std::min(n, s->reports.size()));
  });
}

uint64_t wk_simt_session_launches(wk_simt_session* s) {
  return wk_simt::guarded<uint64_t>(0, 0, [&] {
    std::lock_guard<std::mutex> g(s->mu);
    return s->launches;
  });
}

const char* wk_simt_error_string(int code) { return wk_simt::error_string(code); }

uint64_t wk_simt_take_oom_bytes(void) { return wk_simt::take_oom_bytes(); }

void wk_simt_expect_written(void* p, size_t count, size_t elem_bytes, size_t stride,
                            const char* name, const char* file, int line) {
  // Without memory for the record, the next launch of this thread fails with
  // WK_SIMT_ERR_OUT_OF_MEMORY (guarded_void) rather than going unchecked.
  wk_simt::guarded_void([&] {
    // Kept for good: a report may name them after the caller's strings are gone.
    char* n = strdup(name);
    char* f = strdup(file);
    if (!n || !f) {
      free(n);
      free(f);
      throw std::bad_alloc();
    }
    wk_simt::expect_written(p, count, elem_bytes, stride, n, wk_simt::Site{f, line});
  });
}
}
