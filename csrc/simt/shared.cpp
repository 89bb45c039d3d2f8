// Tracked shared memory: per element, the last write and the reads since, each stamped with the
// accessing thread, its warp-local clock and the block's barrier count. Two accesses race when
// they come from different threads, one writes, not both are atomic, and neither a
// __syncthreads nor a __syncwarp both threads took part in lies between them.
#include <string.h>

#include <algorithm>

#include "internal.h"

namespace wk_simt {

namespace {

const unsigned char kPoison = 0xA5;  // what uninitialised shared memory holds here

bool ordered(const Launch& L, const Epoch& e, unsigned t) {
  if (e.tid == t || e.bgen != L.bgen) return true;
  if (L.warp_of(e.tid) != L.warp_of(t)) return false;
  return L.vc[(size_t)t * L.W + L.lane_of(e.tid)] >= e.clock;
}

std::string who(const Launch& L, unsigned t) {
  return "thread " + std::to_string(t) + " (warp " + std::to_string(L.warp_of(t)) + " lane " +
         std::to_string(L.lane_of(t)) + ")";
}

void reset(SharedAlloc& a, uint64_t serial) {
  memset(a.storage.data(), kPoison, a.storage.size() * sizeof(uint64_t));
  for (Cell& c : a.cells) {
    c.has_write = false;
    c.reads.clear();
  }
  a.block_serial = serial;
  a.race_reported_bgen = ~0u;
}

SharedAlloc* get(Launch& L, const void* key, const char* name, size_t elem, size_t count) {
  return shared_get(L, key, name, elem, count, 0);
}

std::string at(Site s) { return has_site(s) ? " at " + site_str(s) : std::string(); }

void race(Launch& L, SharedAlloc& a, size_t i, const Epoch& prev, bool prev_write, unsigned t,
          Access now, Site site) {
  if (a.race_reported_bgen == L.bgen) return;  // one report per array per barrier interval
  a.race_reported_bgen = L.bgen;
  const char* now_what = now == Access::Read ? "read" : now == Access::Atomic ? "atomic" : "write";
  const char* prev_what = prev_write ? (prev.atomic ? "atomic" : "write") : "read";
  const std::string d = "shared '" + a.name + "'[" + std::to_string(i) + "]: " + now_what +
                        at(site) + " by " + who(L, t) + " races with the earlier " + prev_what +
                        at(prev.site) + " by " + who(L, prev.tid) +
                        ": no __syncthreads or __syncwarp both threads took part in orders them";
  uint64_t lanes = 1ull << L.lane_of(t);
  if (L.warp_of(prev.tid) == L.warp_of(t)) lanes |= 1ull << L.lane_of(prev.tid);
  L.report(WK_SIMT_SHARED_RACE, L.warp_of(t), lanes, d);
}

// A read list's length from which it is compacted, at each power of two: amortised O(1) a read.
const size_t kCompactFrom = 64;

// Keeps each thread's latest read only, in the order those reads were made: the list the write
// check walks (a thread's latest read is ordered before a write whenever its earlier ones are).
// Why lazily: a value every thread of a block reads (a block total, a tile's offset) took the
// eager filter O(threads) a read, O(threads^2) a barrier interval, two thirds of the executor's
// time in the partition's conformance case.
void latest_reads(Launch& L, Cell& c) {
  if (c.reads.size() < 2) return;
  thread_local std::vector<uint32_t> seen;
  thread_local uint32_t stamp = 0;
  if (seen.size() < L.n) seen.assign(L.n, 0);
  if (++stamp == 0) {
    std::fill(seen.begin(), seen.end(), 0);
    stamp = 1;
  }
  size_t keep = c.reads.size();
  for (size_t r = c.reads.size(); r-- > 0;) {
    const uint32_t tid = c.reads[r].tid;
    if (seen[tid] == stamp) continue;
    seen[tid] = stamp;
    c.reads[--keep] = c.reads[r];
  }
  c.reads.erase(c.reads.begin(), c.reads.begin() + keep);
}

}  // namespace

// The allocation for `key`, reset (poisoned, no accesses recorded) on its first use in a block.
SharedAlloc* shared_get(Launch& L, const void* key, const char* name, size_t elem, size_t count,
                        size_t margin) {
  auto& slot = L.allocs[key];
  if (!slot) {
    slot.reset(new SharedAlloc());
    slot->key = key;
    slot->name = name;
    slot->elem = elem;
    slot->count = count;
    slot->margin = margin;
    slot->storage.assign((2 * margin + elem * count + 7) / 8 + 1, 0);
    slot->cells.resize(count);
  }
  if (slot->block_serial != L.block_serial) reset(*slot, L.block_serial);
  return slot.get();
}

SharedAlloc* shared_alloc(const void* key, const char* name, size_t elem, size_t count) {
  return get(*g_launch, key, name, elem, count);
}

SharedAlloc* shared_dynamic(const char* name, size_t elem) {
  Launch& L = *g_launch;
  // One view per element size: the key only has to be unique and stable within the launch.
  static const char keys[17] = {};
  const size_t k = elem <= 16 ? elem : 0;
  return get(L, &keys[k], name, elem, elem ? L.dyn_bytes / elem : 0);
}

size_t shared_count(const SharedAlloc* a) { return a->count; }

void* shared_access(SharedAlloc* a, size_t i, Access kind, Site site) {
  Launch& L = *g_launch;
  if (L.policy == WK_SIMT_LOCKSTEP) {
    // Lockstep: every lane of the warp makes its access before any makes its next one.
    L.yield_to_scheduler();
  }
  if (i >= a->count) {
    report_out_of_bounds(L, a->name, a->count, (int64_t)i, L.cur, site);
    return nullptr;
  }
  shared_track(L, *a, i, kind, site);
  return a->data() + i * a->elem;
}

void shared_track(Launch& L, SharedAlloc& a, size_t i, Access kind, Site site) {
  const unsigned t = L.cur;
  Cell& c = a.cells[i];
  const Epoch now{t, L.lanes[t].clock, L.bgen, kind == Access::Atomic, site};
  if (!c.has_write && kind != Access::Write) report_uninit_read(L, a.name, i, t, site);
  if (c.has_write && !ordered(L, c.write, t) && !(c.write.atomic && now.atomic))
    race(L, a, i, c.write, true, t, kind, site);
  if (kind == Access::Read) {
    // Reads of an earlier barrier interval are ordered before anything now: the list restarts.
    if (!c.reads.empty() && c.reads.back().bgen != L.bgen) c.reads.clear();
    if (!c.reads.empty() && c.reads.back().tid == t) {
      c.reads.back() = now;
    } else {
      c.reads.push_back(now);
      const size_t m = c.reads.size();
      if (m >= kCompactFrom && (m & (m - 1)) == 0) latest_reads(L, c);
    }
  } else {
    latest_reads(L, c);
    for (const Epoch& r : c.reads)
      if (!ordered(L, r, t)) {
        race(L, a, i, r, false, t, kind, site);
        break;
      }
    c.reads.clear();
    c.write = now;
    c.has_write = true;
  }
}

}  // namespace wk_simt
