// Tile status words and the deterministic decoupled look-back shared by the single-pass device
// scan and the stable compaction (docs/SEMANTICS.md "device_scan", step 5).
//
// A tile publishes its aggregate A_i, then its inclusive prefix. The exclusive prefix of tile i
// is the left fold from the nearest predecessor's inclusive prefix over the aggregates after it.
// Because every published inclusive prefix is itself that fold, meeting an inclusive prefix
// while folding simply restarts the fold from it: the bits do not depend on which statuses a
// tile happened to see.
#pragma once

#include "device.h"

#include <type_traits>

namespace WK_NS {

// Shared-memory banks of 4 bytes (a memory property, not a lane count).
const unsigned kSharedBanks = 32;

// Shared-memory tile of WK_SCAN_TILE items, padded with one spare element after every
// kSharedBanks words so that thread t touching items 16t .. 16t+15 hits distinct banks.
template <typename T> struct Pad {
  static const unsigned every = kSharedBanks * 4 / sizeof(T);
  static const unsigned size = WK_SCAN_TILE + WK_SCAN_TILE / every;
  static __device__ __forceinline__ unsigned at(unsigned i) { return i + i / every; }
  // at(k * WK_WARP_SIZE + l) = rows(k) + at(l): a warp's rows span whole padding periods. The
  // compiler, not knowing l < WK_WARP_SIZE, computes at() afresh per item (four instructions a
  // shared access in the scan's SASS); a base slot plus constant offsets costs none.
  static __device__ __forceinline__ unsigned rows(unsigned k) {
    static_assert(WK_WARP_SIZE % every == 0, "a warp's row spans whole padding periods");
    return k * (WK_WARP_SIZE + WK_WARP_SIZE / every);
  }
  // Items i .. i + len - 1 with i a multiple of len and len dividing every lie in one period:
  // item i + j is at slot at(i) + j.
};

// Items of one warp's part of a tile: WK_WARP_SIZE lanes x WK_SCAN_ITEMS_PER_THREAD.
const unsigned kWarpTileItems = WK_WARP_SIZE * WK_SCAN_ITEMS_PER_THREAD;

// One warp's kWarpTileItems consecutive items from src[wbase..] into its part `wsm` of a padded
// shared tile (kWarpTileItems + kWarpTileItems / Pad<T>::every slots), read coalesced, so that
// lane l can then take items 16l .. 16l+15 from shared memory. Slots past n stay unwritten (the
// caller must not read them); the caller syncs the warp before reading another lane's slots.
template <typename T, typename S>
__device__ __forceinline__ void load_warp_tile(S wsm, const T* src, uint64_t wbase, uint64_t n) {
  const unsigned ln = prims::lane();
  const unsigned kItems = WK_SCAN_ITEMS_PER_THREAD;
  if (wbase + kWarpTileItems <= n) {
    T x[kItems];
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) x[k] = src[wbase + k * WK_WARP_SIZE + ln];
    if constexpr (WK_WARP_SIZE % Pad<T>::every == 0) {
      const auto w = wsm + Pad<T>::at(ln);
#pragma unroll
      for (unsigned k = 0; k < kItems; ++k) w[Pad<T>::rows(k)] = x[k];
    } else {
#pragma unroll
      for (unsigned k = 0; k < kItems; ++k) wsm[Pad<T>::at(k * WK_WARP_SIZE + ln)] = x[k];
    }
  } else {
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) {
      const unsigned idx = k * WK_WARP_SIZE + ln;
      if (wbase + idx < n) wsm[Pad<T>::at(idx)] = src[wbase + idx];
    }
  }
}

// Thread t's items kItems * t .. kItems * t + kItems - 1 of the tile at `base`, into x: straight
// into registers with 16-byte loads for a whole tile of an aligned input of 4-byte or smaller
// elements (when DIRECT), else each warp its part coalesced through its part of the padded shared
// tile `items` (load_warp_tile; the caller's next block barrier must come before anything is
// staged there). The partition kernels and runs.cu load their tiles so.
template <bool DIRECT, typename T, typename S>
__device__ __forceinline__ void load_tile_items(T (&x)[WK_SCAN_ITEMS_PER_THREAD], S items,
                                                const T* in, uint64_t base, uint64_t n, bool full) {
  const unsigned kItems = WK_SCAN_ITEMS_PER_THREAD;
  const unsigned t = threadIdx.x, ln = prims::lane(), w = t / WK_WARP_SIZE;
  if (DIRECT && sizeof(T) <= 4 && ((uintptr_t)in % 16) == 0 && full) {
    const uint4* p = reinterpret_cast<const uint4*>(in + base + (uint64_t)t * kItems);
    uint4 r[kItems * sizeof(T) / 16];
#pragma unroll
    for (unsigned v = 0; v < kItems * sizeof(T) / 16; ++v) r[v] = p[v];
    __builtin_memcpy(x, r, sizeof(x));
  } else {
    const unsigned kWarpSlots = kWarpTileItems + kWarpTileItems / Pad<T>::every;
    const auto wsm = items + w * kWarpSlots;
    load_warp_tile(wsm, in, base + (uint64_t)w * kWarpTileItems, n);
    prims::syncwarp(prims::NATIVE, prims::block_warp_lanes());
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) {
      // Slots past n were never stored: not read (the SIMT executor reports such reads).
      const bool live = full || base + t * kItems + k < n;
      x[k] = live ? (T)wsm[Pad<T>::at(ln * kItems + k)] : T();
    }
  }
}

const unsigned kStatusEmpty = 0;
const unsigned kStatusAggregate = 1;
const unsigned kStatusInclusive = 2;

// Tagged statuses (Packed, Wide, Split): a tile publishes its flag with the call's tag above it,
// (tag << 2) | flag, and a reader takes any other tag for "nothing published yet". Scratch zeroed
// once therefore serves calls with tags 1, 2, 3, ... without being zeroed again: what an earlier
// call left holds an older tag (device_scan_tagged in launchers.def). Zeroed scratch and tag 1
// are the untagged use.
__host__ __device__ constexpr unsigned tagged(unsigned tag, unsigned flag) {
  return (tag << 2) | flag;
}

// Whether a launcher may take `tag`: 0 is "no call yet", and above WK_MAX_STATUS_TAG the tag no
// longer fits beside a 40-bit count in one word (CountStatus).
inline bool tag_ok(unsigned tag) { return tag != 0 && tag <= WK_MAX_STATUS_TAG; }

// The ticket of a block that looks back: blocks take them in the order they start. The block
// that takes the last one puts the counter back to zero (every other block has taken its own),
// so the next call on the same scratch starts from zero without a memset.
// Statuses a call did not zero are cold: an earlier call wrote them, and the data that streamed
// through L2 since has pushed them out, so a look-back reading one a tile has not yet published
// would wait a DRAM round trip. So each block, once it has its ticket, asks for its own tile's
// status line (`prefetch`, a hint), well before its successors look back at it.
__device__ __forceinline__ unsigned take_ticket(unsigned* counter) {
  const unsigned t = atomicAdd(counter, 1u);
  if (t == gridDim.x - 1) *(volatile unsigned*)counter = 0;
  return t;
}

// 4-byte values: the tagged flag and the value share one 64-bit word, published and read whole,
// so a reader needs one load per tile and no fence.
template <typename T> struct PackedStatus {
  static const unsigned kFlagShift = sizeof(uint32_t) * 8;
  unsigned long long* words;
  unsigned tag = 1;

  static uint64_t bytes(uint64_t tiles) { return tiles * sizeof(unsigned long long); }
  __device__ __forceinline__ void prefetch(uint64_t tile) const { arch::prefetch_l2(words + tile); }

  __device__ __forceinline__ void publish(uint64_t tile, unsigned flag, T v) const {
    unsigned long long w = ((unsigned long long)tagged(tag, flag) << kFlagShift) |
                           (unsigned long long)to_bits(v);
    *(volatile unsigned long long*)(words + tile) = w;
  }
  // Spins until the tile has published something in this call; returns the flag, `*v` its
  // value.
  __device__ __forceinline__ unsigned wait(uint64_t tile, T* v) const {
    unsigned long long w;
    do {
      w = *(const volatile unsigned long long*)(words + tile);
    } while ((unsigned)(w >> (kFlagShift + 2)) != tag);
    *v = from_bits<T>((typename Elem<T>::U)(uint32_t)w);
    return (unsigned)(w >> kFlagShift) & 3u;
  }
};

// Counts and positions below 2^40 (kCountLimit; compaction offsets, run heads): the tagged flag
// in the top 24 bits of one 64-bit word (tags up to WK_MAX_STATUS_TAG = 2^22 - 1 fit).
const uint64_t kCountLimit = 1ull << 40;
struct CountStatus {
  static const unsigned kValueBits = 40;
  unsigned long long* words;
  unsigned tag = 1;

  static uint64_t bytes(uint64_t tiles) { return tiles * sizeof(unsigned long long); }
  __device__ __forceinline__ void prefetch(uint64_t tile) const { arch::prefetch_l2(words + tile); }

  __device__ __forceinline__ void publish(uint64_t tile, unsigned flag, uint64_t v) const {
    *(volatile unsigned long long*)(words + tile) =
        ((unsigned long long)tagged(tag, flag) << kValueBits) | v;
  }
  __device__ __forceinline__ unsigned wait(uint64_t tile, uint64_t* v) const {
    unsigned long long w;
    do {
      w = *(const volatile unsigned long long*)(words + tile);
    } while ((unsigned)(w >> (kValueBits + 2)) != tag);
    *v = w & (kCountLimit - 1);
    return (unsigned)(w >> kValueBits) & 3u;
  }
};

// 8-byte values: a flag word per tile and separate aggregate and inclusive arrays (an aggregate
// is never overwritten), ordered by a fence between value and flag. Used where no 16-byte
// status word is available (HIP).
template <typename T> struct SplitStatus {
  unsigned* flags;  // tagged
  T* aggs;
  T* incls;
  unsigned tag = 1;

  __device__ __forceinline__ void prefetch(uint64_t tile) const { arch::prefetch_l2(flags + tile); }

  __device__ __forceinline__ void publish(uint64_t tile, unsigned flag, T v) const {
    T* dst = flag == kStatusInclusive ? incls : aggs;
    *(volatile T*)(dst + tile) = v;
    arch::fence_device();
    *(volatile unsigned*)(flags + tile) = tagged(tag, flag);
  }
  __device__ __forceinline__ unsigned wait(uint64_t tile, T* v) const {
    unsigned f;
    do {
      f = *(const volatile unsigned*)(flags + tile);
    } while ((f >> 2) != tag);
    f &= 3u;
    arch::fence_device();
    *v = *(const volatile T*)((f == kStatusInclusive ? incls : aggs) + tile);
    return f;
  }
};

#if defined(WK_VENDOR_CUDA)
// 8-byte values on CUDA: flag and value in one aligned 16-byte word, stored and loaded with one
// vector access each (as CUB's tile status does), so a reader needs one load and no fence.
template <typename T> struct WideStatus {
  unsigned long long* words;  // two per tile: tagged flag, value bits
  unsigned tag = 1;

  static uint64_t bytes(uint64_t tiles) { return tiles * 2 * sizeof(unsigned long long); }
  __device__ __forceinline__ void prefetch(uint64_t tile) const {
    arch::prefetch_l2(words + 2 * tile);
  }

  __device__ __forceinline__ void publish(uint64_t tile, unsigned flag, T v) const {
    unsigned long long f = tagged(tag, flag), b = to_bits(v);
    asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(words + 2 * tile), "l"(f),
                 "l"(b)
                 : "memory");
  }
  __device__ __forceinline__ unsigned wait(uint64_t tile, T* v) const {
    unsigned long long f, b;
    do {
      asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];"
                   : "=l"(f), "=l"(b)
                   : "l"(words + 2 * tile)
                   : "memory");
    } while ((f >> 2) != tag);
    *v = from_bits<T>((typename Elem<T>::U)b);
    return (unsigned)f & 3u;
  }
};
#endif

#if defined(WK_VENDOR_CUDA)
template <typename T> struct StatusFor {
  typedef typename std::conditional<sizeof(T) == 4, PackedStatus<T>, WideStatus<T>>::type type;
};
const bool kWideStatus = true;
#else
template <typename T> struct StatusFor {
  typedef typename std::conditional<sizeof(T) == 4, PackedStatus<T>, SplitStatus<T>>::type type;
};
const bool kWideStatus = false;
#endif

// Scratch of a look-back over `tiles` tiles: a tile counter (256 bytes), then one status word
// per tile: 8 bytes (4-byte values), 16 bytes (8-byte values, CUDA), or a flag and separate
// aggregate and inclusive arrays.
inline uint64_t status_bytes(uint32_t elem_size, uint64_t tiles) {
  if (elem_size == 4) return 256 + round_up(tiles * 8);
  if (kWideStatus) return 256 + round_up(tiles * 16);
  return 256 + round_up(tiles * 4) + 2 * round_up(tiles * elem_size);
}

// Points `st` into scratch `s` laid out as status_bytes says; returns the bytes from `s` that
// must be zeroed before the launch (the counter and the flags).
template <typename T>
uint64_t status_layout(char* s, uint64_t tiles, typename StatusFor<T>::type* st) {
  if constexpr (sizeof(T) == 4 || kWideStatus) {
    st->words = (unsigned long long*)(s + 256);
    return status_bytes(sizeof(T), tiles);
  } else {
    st->flags = (unsigned*)(s + 256);
    st->aggs = (T*)(s + 256 + round_up(tiles * 4));
    st->incls = (T*)((char*)st->aggs + round_up(tiles * sizeof(T)));
    return 256 + round_up(tiles * 4);
  }
}

// Windows of predecessors a float look-back keeps in shared memory before it falls back to
// reading statuses again from global memory: 32 windows cover every tile an H100 holds at once
// (132 SMs x 6 tiles). With 8 (256 tiles) the float scan sometimes fell into the slow fold past
// the stash and stayed there, every look-back longer than the one before: 2.5 ms instead of
// 0.9 ms at 2^28 f32 in some runs.
const unsigned kStashWindows = 32;
// Elements of the stash and of its flags a look-back over T needs: integers use neither, so
// their kernels keep one element instead of 4-8 KB of shared memory they never touch.
// WINDOWS: a kernel that holds more tiles at once than 32 windows cover asks for more.
template <typename T, unsigned WINDOWS = kStashWindows> struct StashFor {
  static const unsigned size = Elem<T>::is_float ? WINDOWS * WK_WARP_SIZE : 1;
  static const unsigned flags = Elem<T>::is_float ? WK_WARP_SIZE : 1;
};
// Stash loads in flight per step of the float fold: eight left f32 Min/Max spilling at seven
// blocks per SM (ptxas -v, sm_90: 36 bytes), four fit in the registers and still hide most of the
// shared-memory latency behind the dependent combines.
const unsigned kFoldBatch = 4;

// How long the look-back warp sleeps before it reads its first window: a look-back that starts
// at once finds its nearest predecessors unpublished and spins on them, and on a large grid the
// spinning warps of every resident block slow the blocks they wait for. Measured on the H200
// (benches/history/2026-12.md, "Look-back: a delay before the first window", 2026-12-01, sweeping
// 200 to 1800 ns): at 2^28 the stable compaction 0.95x -> 1.05x CUB, unique 0.99x -> 1.10x,
// reduce_by_key 1.04x -> 1.10x, the i64 scan 1.08x -> 1.14x; on grids of a few hundred blocks
// (2^20 elements) the long delay cost the scans up to 8%, so they wait less. CUB's look-back
// sleeps before its first window too (its delay constructors), on grids of 500 blocks and more.
// A warp that runs a second look-back right after a first (run_length_encode's run heads, then
// its last head; reduce_by_key's values, then its counts) passes `delay = false` to the second:
// the predecessors published both statuses together, and sleeping twice made run_length_encode
// 3-6% slower than no delay at all at 2^24-2^28.
const unsigned kLookBackDelayGrid = 1024;
const unsigned kLookBackDelayNs = 1800;
const unsigned kLookBackDelaySmallNs = 450;

// The exclusive prefix X_tile (tile > 0) for the canonical left fold, called by every lane of
// one full warp; the result is valid in every lane. `stash` is StashFor<T>::size elements and
// `flags` StashFor<T>::flags words of shared memory owned by that warp (both unused for integers); they are
// the kernel's tracked arrays (plain pointers on GPUs), hence the template parameters.
//
// Lane l of a window looks at tile j - l; windows go back WK_WARP_SIZE tiles at a time until one
// holds an inclusive prefix.
// - Integers: every op is associative and commutative bit for bit, so each window's statuses
//   are warp-reduced and accumulated as the windows go back (the order does not matter).
// - Floats: the fold must run left to right from the inclusive prefix, one combine per tile.
//   The windows' values go to shared memory on the way back, then every lane folds them forward
//   kFoldBatch at a time (those loads in flight together), so each tile costs about one add.
// WINDOWS is the stash's size in windows (StashFor<T, WINDOWS>). `delay`: sleep before the first
// window (kLookBackDelayNs); false for a second look-back right after a first.
template <int OP, typename T, unsigned WINDOWS = kStashWindows, typename Status, typename S,
          typename F>
__device__ __forceinline__ T look_back(const Status& st, uint64_t tile, S stash, F flags,
                                       bool delay = true) {
  typedef Op<OP, T> O;
  const unsigned ln = prims::lane();
  const wk_lanemask_t all = WK_FULL_MASK;
  int64_t j = (int64_t)tile - 1;
  if (delay)
    arch::sleep_ns(gridDim.x >= kLookBackDelayGrid ? kLookBackDelayNs : kLookBackDelaySmallNs);
  if (!Elem<T>::is_float) {
    T acc = O::identity();
    for (;;) {
      const int64_t idx = j - (int64_t)ln;
      T v = O::identity();
      unsigned f = kStatusEmpty;
      if (idx >= 0) f = st.wait((uint64_t)idx, &v);
      const wk_lanemask_t incl = arch::ballot_sync(all, f == kStatusInclusive);
      const unsigned lo = incl ? (unsigned)arch::lowest_lane(incl) : WK_WARP_SIZE;
      const T w = prims::bfly<OP, T>(all, ln <= lo ? v : O::identity(), WK_WARP_SIZE);
      acc = O::combine(w, acc);
      if (incl != 0) return acc;
      j -= WK_WARP_SIZE;
    }
  }
  unsigned windows = 0;
  int64_t found;
  unsigned lo;
  for (;;) {
    const int64_t idx = j - (int64_t)ln;
    T v = O::identity();
    unsigned f = kStatusEmpty;
    if (idx >= 0) f = st.wait((uint64_t)idx, &v);
    const wk_lanemask_t incl = arch::ballot_sync(all, f == kStatusInclusive);
    if (windows < WINDOWS) stash[windows * WK_WARP_SIZE + ln] = v;
    if (incl != 0) {
      lo = (unsigned)arch::lowest_lane(incl);
      found = j - lo;
      break;
    }
    ++windows;
    j -= WK_WARP_SIZE;
  }
  prims::syncwarp(prims::NATIVE, all);
  T acc;
  if (windows < WINDOWS) {
    // stash[p] holds tile (tile - 1 - p); the inclusive prefix is at p = top.
    const int top = (int)(windows * WK_WARP_SIZE + lo);
    acc = stash[top];
    int p = top - 1;
    for (; p >= (int)kFoldBatch - 1; p -= kFoldBatch) {
      T b[kFoldBatch];
#pragma unroll
      for (int k = 0; k < (int)kFoldBatch; ++k) b[k] = stash[p - k];
#pragma unroll
      for (int k = 0; k < (int)kFoldBatch; ++k) acc = O::combine(acc, b[k]);
    }
    for (; p >= 0; --p) acc = O::combine(acc, stash[p]);
    prims::syncwarp(prims::NATIVE, all);
    return acc;
  }
  // Further back than the stash holds: fold forward from `found` over the (now published)
  // statuses, a window at a time; an inclusive prefix met on the way restarts the fold.
  acc = O::identity();
  for (int64_t s = found; s < (int64_t)tile; s += WK_WARP_SIZE) {
    const int64_t idx = s + (int64_t)ln;
    T v = O::identity();
    unsigned f = kStatusEmpty;
    if (idx < (int64_t)tile) f = st.wait((uint64_t)idx, &v);
    stash[ln] = v;
    flags[ln] = f;
    prims::syncwarp(prims::NATIVE, all);
    const int64_t cnt64 = (int64_t)tile - s;
    const unsigned cnt = cnt64 < WK_WARP_SIZE ? (unsigned)cnt64 : WK_WARP_SIZE;
    for (unsigned l = 0; l < cnt; ++l)
      acc = flags[l] == kStatusInclusive ? stash[l] : O::combine(acc, stash[l]);
    prims::syncwarp(prims::NATIVE, all);
  }
  return acc;
}

}  // namespace WK_NS
