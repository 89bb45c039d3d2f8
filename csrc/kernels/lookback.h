// Tile status words and the deterministic decoupled look-back shared by the single-pass device
// scan and the stable compaction (docs/SEMANTICS.md "Device scan", step 5).
//
// A tile publishes its aggregate A_i, then its inclusive prefix. The exclusive prefix of tile i
// is the left fold from the nearest predecessor's inclusive prefix over the aggregates after it.
// Because every published inclusive prefix is itself that fold, meeting an inclusive prefix
// while folding simply restarts the fold from it: the bits do not depend on which statuses a
// tile happened to see.
#pragma once

#include "dispatch.h"

namespace WK_NS {

// Shared-memory banks of 4 bytes (a memory property, not a lane count).
const unsigned kSharedBanks = 32;

// Shared-memory tile of WK_SCAN_TILE items, padded with one spare element after every
// kSharedBanks words so that thread t touching items 16t .. 16t+15 hits distinct banks.
template <typename T> struct Pad {
  static const unsigned every = kSharedBanks * 4 / sizeof(T);
  static const unsigned size = WK_SCAN_TILE + WK_SCAN_TILE / every;
  static __device__ __forceinline__ unsigned at(unsigned i) { return i + i / every; }
};

const unsigned kStatusEmpty = 0;
const unsigned kStatusAggregate = 1;
const unsigned kStatusInclusive = 2;

// 4-byte values: flag and value share one 64-bit word, published and read whole, so a reader
// needs one load per tile and no fence. `words` is zeroed before the launch.
template <typename T> struct PackedStatus {
  static const unsigned kFlagShift = sizeof(uint32_t) * 8;
  unsigned long long* words;

  static uint64_t bytes(uint64_t tiles) { return tiles * sizeof(unsigned long long); }

  __device__ __forceinline__ void publish(uint64_t tile, unsigned flag, T v) const {
    unsigned long long w = ((unsigned long long)flag << kFlagShift) | (unsigned long long)to_bits(v);
    *(volatile unsigned long long*)(words + tile) = w;
  }
  // Spins until the tile has published something; returns the flag, `*v` its value.
  __device__ __forceinline__ unsigned wait(uint64_t tile, T* v) const {
    unsigned long long w;
    do {
      w = *(const volatile unsigned long long*)(words + tile);
    } while ((w >> kFlagShift) == kStatusEmpty);
    *v = from_bits<T>((typename Elem<T>::U)(uint32_t)w);
    return (unsigned)(w >> kFlagShift);
  }
};

// Counts below 2^62 (compaction offsets): the flag in the top two bits of one 64-bit word.
struct CountStatus {
  unsigned long long* words;

  static uint64_t bytes(uint64_t tiles) { return tiles * sizeof(unsigned long long); }

  __device__ __forceinline__ void publish(uint64_t tile, unsigned flag, uint64_t v) const {
    *(volatile unsigned long long*)(words + tile) = ((unsigned long long)flag << 62) | v;
  }
  __device__ __forceinline__ unsigned wait(uint64_t tile, uint64_t* v) const {
    unsigned long long w;
    do {
      w = *(const volatile unsigned long long*)(words + tile);
    } while ((w >> 62) == kStatusEmpty);
    *v = w & ((1ull << 62) - 1);
    return (unsigned)(w >> 62);
  }
};

// 8-byte values: a flag word per tile and separate aggregate and inclusive arrays (an aggregate
// is never overwritten), ordered by a fence between value and flag.
template <typename T> struct SplitStatus {
  unsigned* flags;
  T* aggs;
  T* incls;

  __device__ __forceinline__ void publish(uint64_t tile, unsigned flag, T v) const {
    T* dst = flag == kStatusInclusive ? incls : aggs;
    *(volatile T*)(dst + tile) = v;
    arch::fence_device();
    *(volatile unsigned*)(flags + tile) = flag;
  }
  __device__ __forceinline__ unsigned wait(uint64_t tile, T* v) const {
    unsigned f;
    do {
      f = *(const volatile unsigned*)(flags + tile);
    } while (f == kStatusEmpty);
    arch::fence_device();
    *v = *(const volatile T*)((f == kStatusInclusive ? incls : aggs) + tile);
    return f;
  }
};

// The exclusive prefix X_tile (tile > 0) for the canonical left fold, called by every lane of
// one full warp; the result is valid in every lane. `stage_v`/`stage_f` are WK_WARP_SIZE
// entries of shared memory owned by that warp.
template <int OP, typename T, typename Status>
__device__ __forceinline__ T look_back(const Status& st, uint64_t tile, T* stage_v,
                                       unsigned* stage_f) {
  typedef Op<OP, T> O;
  const unsigned ln = prims::lane();
  const wk_lanemask_t all = WK_FULL_MASK;
  // Nearest inclusive prefix, one window of WK_WARP_SIZE predecessors at a time; lane l looks
  // at tile j - l.
  int64_t j = (int64_t)tile - 1;
  int64_t found;
  for (;;) {
    const int64_t idx = j - (int64_t)ln;
    T v = O::identity();
    unsigned f = kStatusEmpty;
    if (idx >= 0) f = st.wait((uint64_t)idx, &v);
    const wk_lanemask_t incl = arch::ballot_sync(all, f == kStatusInclusive);
    if (incl != 0) {
      const int lo = arch::lowest_lane(incl);
      if (j == (int64_t)tile - 1) {
        // The common case: the fold's inputs are in this window's registers (lanes lo..0 hold
        // tiles j-lo..j, all aggregates below lane lo).
        stage_v[ln] = v;
        prims::syncwarp(prims::NATIVE, all);
        T acc = stage_v[lo];
#pragma unroll 4
        for (int l = lo - 1; l >= 0; --l) acc = O::combine(acc, stage_v[l]);
        prims::syncwarp(prims::NATIVE, all);
        return acc;
      }
      found = j - lo;
      break;
    }
    j -= WK_WARP_SIZE;
  }
  // The inclusive prefix was further back: fold forward from it over the (now published)
  // statuses, WK_WARP_SIZE at a time.
  T acc = O::identity();
  for (int64_t s = found; s < (int64_t)tile; s += WK_WARP_SIZE) {
    const int64_t idx = s + (int64_t)ln;
    T v = O::identity();
    unsigned f = kStatusEmpty;
    if (idx < (int64_t)tile) f = st.wait((uint64_t)idx, &v);
    stage_v[ln] = v;
    stage_f[ln] = f;
    prims::syncwarp(prims::NATIVE, all);
    const int64_t cnt64 = (int64_t)tile - s;
    const unsigned cnt = cnt64 < WK_WARP_SIZE ? (unsigned)cnt64 : WK_WARP_SIZE;
    for (unsigned l = 0; l < cnt; ++l)
      acc = stage_f[l] == kStatusInclusive ? stage_v[l] : O::combine(acc, stage_v[l]);
    prims::syncwarp(prims::NATIVE, all);
  }
  return acc;
}

}  // namespace WK_NS
