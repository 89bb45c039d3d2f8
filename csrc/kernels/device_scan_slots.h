// The device scan's layouts of a warp's items in shared memory (included by device_scan.cu,
// after its tile constants kItems and kWarpItems).
#pragma once

namespace WK_NS {
namespace {

// A warp's items in its part of shared memory (kSlots of T), in chunks of q = 16 / sizeof(T)
// items; lane l's 16 items are its C chunks. Two layouts, one interface:
//
// SwizzledSlots (4-byte values, and the 16-bit floats' float accumulators): no padding; lane
// l's chunk c is stored at position c ^ (l / R) % C among its own, R lanes to one 128-byte row of
// the 32 banks, so a lane moves its items in C 16-byte accesses and the eight lanes the banks
// serve together in one such access hit distinct banks, whether each takes its own chunk c or
// the lanes take consecutive chunks (the stores' order). Against the padded layout on an H200
// (2026-11-28, 2^28): i32 scan 1.02x, f32 1.005x, 16-bit unchanged.
//
// PaddedSlots (8-byte values): look_back.h's Pad, one spare slot after every 128 bytes, so
// that the lanes' 16 consecutive items hit distinct banks; chunks are not 16-byte aligned and
// move item by item.
// Swizzled, the i64 scan spilled at its five blocks an SM and ran 1.12x slower.
//
// period: at(i + m) = at(i) + advance(m) for every multiple m of it.
template <typename T> struct SwizzledSlots {
  static const unsigned q = 16 / sizeof(T);
  static const unsigned C = kItems / q;
  static const unsigned R = kItems * sizeof(T) >= 128 ? 1 : 128 / (kItems * sizeof(T));
  static const unsigned kSlots = kWarpItems;
  static const unsigned period = kItems * R * C;
  static const bool whole_chunks = true;
  // Chunk c of lane l's items.
  static __device__ __forceinline__ unsigned chunk(unsigned l, unsigned c) {
    return l * kItems + (c ^ (l / R) % C) * q;
  }
  // Item i of the warp's kWarpItems.
  static __device__ __forceinline__ unsigned at(unsigned i) {
    return chunk(i / kItems, i % kItems / q) + i % q;
  }
  static __device__ __forceinline__ unsigned advance(unsigned m) { return m; }
};
template <typename T> struct PaddedSlots : Pad<T> {
  using Pad<T>::at;
  using Pad<T>::every;
  static const unsigned q = 16 / sizeof(T);
  static const unsigned C = kItems / q;
  static const unsigned kSlots = kWarpItems + kWarpItems / every;
  static const unsigned period = every;
  static const bool whole_chunks = false;
  static_assert(every % kItems == 0, "a lane's items lie in one padding period");
  static __device__ __forceinline__ unsigned chunk(unsigned l, unsigned c) {
    return at(l * kItems + c * q);
  }
  static __device__ __forceinline__ unsigned advance(unsigned m) { return m + m / every; }
};
template <typename T>
using SlotsFor = typename std::conditional<sizeof(T) == 4, SwizzledSlots<T>, PaddedSlots<T>>::type;

// Slot of item k * WK_WARP_SIZE + l (the coalesced order), from at(l) where the warp's row is
// a whole number of periods.
template <typename P> __device__ __forceinline__ unsigned row_slot(unsigned k, unsigned l) {
  if constexpr (WK_WARP_SIZE % P::period == 0)
    return P::at(l) + P::advance(k * WK_WARP_SIZE);
  else
    return P::at(k * WK_WARP_SIZE + l);
}

// One chunk of shared memory: a single 16-byte access where the layout keeps chunks whole and
// the pointer is a plain pointer (the compilers' shared memory), item by item otherwise (and on
// the executor).
template <typename L, typename P, typename T>
__device__ __forceinline__ void chunk_load(P p, T* v) {
  if constexpr (L::whole_chunks && std::is_pointer<P>::value) {
    const uint4 r = *reinterpret_cast<const uint4*>(p);
    __builtin_memcpy(v, &r, 16);
  } else {
#pragma unroll
    for (unsigned j = 0; j < L::q; ++j) v[j] = p[j];
  }
}
template <typename L, typename P, typename T>
__device__ __forceinline__ void chunk_store(P p, const T* v) {
  if constexpr (L::whole_chunks && std::is_pointer<P>::value) {
    uint4 r;
    __builtin_memcpy(&r, v, 16);
    *reinterpret_cast<uint4*>(p) = r;
  } else {
#pragma unroll
    for (unsigned j = 0; j < L::q; ++j) p[j] = v[j];
  }
}

}  // namespace
}  // namespace WK_NS
