// The portable primitives API every kernel calls: element-typed shuffles, votes with a
// native/emulated switch, sub-width segments, tiles, and the canonical butterfly and
// Kogge-Stone trees of docs/SEMANTICS.md.
#pragma once

#include "canonical.h"
#include "emulated.h"
#include "launch.h"
#include "ops.h"
#include "width.h"

namespace WK_NS {
namespace prims {

enum Impl { NATIVE = 0, EMULATED = 1 };

__device__ __forceinline__ unsigned lane() { return arch::lane_id(); }

// The low `n` lanes (n <= WK_WARP_SIZE).
__device__ __forceinline__ wk_lanemask_t low_lanes(unsigned n) {
  return n >= WK_WARP_SIZE ? WK_FULL_MASK : (((wk_lanemask_t)1 << n) - 1);
}

// Lanes of the caller's warp that exist, for a launch of `threads` threads numbered from 0 in
// blocks whose size is a multiple of the warp width.
__device__ __forceinline__ wk_lanemask_t live_lanes(uint64_t warp, uint64_t threads) {
  uint64_t first = warp * WK_WARP_SIZE;
  uint64_t live = threads > first ? threads - first : 0;
  return low_lanes(live > WK_WARP_SIZE ? WK_WARP_SIZE : (unsigned)live);
}

// Lanes of the caller's warp inside its block (blocks of any multiple of the logical group).
__device__ __forceinline__ wk_lanemask_t block_warp_lanes() {
  unsigned first = threadIdx.x - threadIdx.x % WK_WARP_SIZE;
  unsigned live = blockDim.x - first;
  return low_lanes(live > WK_WARP_SIZE ? WK_WARP_SIZE : live);
}

// The segment of `width` lanes holding the caller (a tile, or a shuffle's width segment).
__device__ __forceinline__ wk_lanemask_t segment_lanes(unsigned width) {
  unsigned base = lane() & ~(width - 1);
  return low_lanes(width) << base;
}

__device__ __forceinline__ bool contains(wk_lanemask_t m, unsigned l) { return (m >> l) & 1; }

// ---- shuffles of any element type ----
// The arch layers shuffle 32 and 64 bits; a 16-bit float's bits travel widened to 32.
template <typename U> struct ShflWord { typedef U type; };
template <> struct ShflWord<uint16_t> { typedef uint32_t type; };
template <typename T> struct ShflBits { typedef typename ShflWord<typename Elem<T>::U>::type type; };
template <typename T>
__device__ __forceinline__ T shfl_idx(wk_lanemask_t mask, T v, unsigned src, unsigned width) {
  typedef typename ShflBits<T>::type W;
  return from_bits<T>((typename Elem<T>::U)arch::shfl_idx_sync(mask, (W)to_bits(v), src, width));
}
template <typename T>
__device__ __forceinline__ T shfl_up(wk_lanemask_t mask, T v, unsigned d, unsigned width) {
  typedef typename ShflBits<T>::type W;
  return from_bits<T>((typename Elem<T>::U)arch::shfl_up_sync(mask, (W)to_bits(v), d, width));
}
template <typename T>
__device__ __forceinline__ T shfl_down(wk_lanemask_t mask, T v, unsigned d, unsigned width) {
  typedef typename ShflBits<T>::type W;
  return from_bits<T>((typename Elem<T>::U)arch::shfl_down_sync(mask, (W)to_bits(v), d, width));
}
template <typename T>
__device__ __forceinline__ T shfl_xor(wk_lanemask_t mask, T v, unsigned m, unsigned width) {
  typedef typename ShflBits<T>::type W;
  return from_bits<T>((typename Elem<T>::U)arch::shfl_xor_sync(mask, (W)to_bits(v), m, width));
}
// A user's shuffle argument (CUDA's int srcLane / unsigned delta / int laneMask) as shfl.sync
// reads it: its low log2(WK_WARP_SIZE) bits, two's complement for a negative int. Applied here,
// before any arch sees it, so CUDA, HIP and the executor agree for every argument
// (docs/SEMANTICS.md "shfl"; crates/core lanes.rs hw_shfl_arg).
__device__ __forceinline__ unsigned shfl_arg(int32_t arg) {
  return (unsigned)arg & (WK_WARP_SIZE - 1u);
}

// Shuffle kind as wavekit-core's Shfl: Idx, Up, Down, Xor; `user_arg` any int (shfl_arg).
template <typename T>
__device__ __forceinline__ T shfl(uint32_t kind, wk_lanemask_t mask, T v, int32_t user_arg,
                                  unsigned width) {
  const unsigned arg = shfl_arg(user_arg);
  switch (kind) {
    case 0: return shfl_idx(mask, v, arg, width);
    case 1: return shfl_up(mask, v, arg, width);
    case 2: return shfl_down(mask, v, arg, width);
    default: return shfl_xor(mask, v, arg, width);
  }
}

// ---- votes, match, sync: native where the arch has it unless the emulation is asked for ----
__device__ __forceinline__ bool uni_sync(int impl, wk_lanemask_t mask, bool p) {
#if WK_NATIVE_UNI
  if (impl == NATIVE) return arch::uni_sync(mask, p);
#endif
  (void)impl;
  return emu::uni_sync(mask, p);
}

template <typename U>
__device__ __forceinline__ wk_lanemask_t match_any_sync(int impl, wk_lanemask_t mask, U v) {
#if WK_NATIVE_MATCH
  if (impl == NATIVE) return arch::match_any_sync(mask, v);
#endif
  (void)impl;
  return emu::match_any_sync(mask, v);
}

template <typename U>
__device__ __forceinline__ wk_lanemask_t match_all_sync(int impl, wk_lanemask_t mask, U v,
                                                        bool* pred) {
#if WK_NATIVE_MATCH
  if (impl == NATIVE) return arch::match_all_sync(mask, v, pred);
#endif
  (void)impl;
  return emu::match_all_sync(mask, v, pred);
}

__device__ __forceinline__ void syncwarp(int impl, wk_lanemask_t mask) {
#if WK_NATIVE_SYNCWARP
  if (impl == NATIVE) {
    arch::syncwarp(mask);
    return;
  }
#endif
  (void)impl;
  emu::syncwarp(mask);
}

__device__ __forceinline__ wk_lanemask_t activemask(int impl) {
#if WK_NATIVE_ACTIVEMASK
  if (impl == NATIVE) return arch::activemask();
#endif
  (void)impl;
  return emu::activemask();
}

// Vote kind as wavekit-core's Vote: All, Any, Uni, Ballot. Ballot bits are relative to
// `shift` (a tile's base lane) and limited to `width` lanes.
__device__ __forceinline__ uint64_t vote(int impl, uint32_t kind, wk_lanemask_t mask, bool p,
                                         unsigned shift, unsigned width) {
  switch (kind) {
    case 0: return arch::all_sync(mask, p);
    case 1: return arch::any_sync(mask, p);
    case 2: return uni_sync(impl, mask, p);
    default: return (uint64_t)((arch::ballot_sync(mask, p) >> shift) & low_lanes(width));
  }
}

// ---- canonical trees ----
// bfly over segments of `width` lanes: for d = width/2 .. 1, v = op(v, v[lane ^ d]), with
// shuffles.
template <int OP, typename T>
__device__ __forceinline__ T bfly_shuffle(wk_lanemask_t mask, T v, unsigned width) {
  for (unsigned d = width >> 1; d >= 1; d >>= 1) v = Op<OP, T>::combine(v, shfl_xor(mask, v, d, width));
  return v;
}

// Ops the hardware warp reduce (redux.sync) computes for 32-bit integers: every one but
// Product. Integer ops are associative and commutative bit for bit, so its result over a whole
// warp is the butterfly's.
template <int OP, typename T> struct HasRedux {
  static const bool value = sizeof(T) == 4 && !Elem<T>::is_float && OP != OP_PRODUCT;
};

#if WK_NATIVE_WARP_REDUX
template <int OP, typename T> __device__ __forceinline__ T redux(wk_lanemask_t mask, T v) {
  typedef typename Elem<T>::U U;
  switch (OP) {
    case OP_SUM: return arch::redux_add_sync(mask, v);
    case OP_MIN: return arch::redux_min_sync(mask, v);
    case OP_MAX: return arch::redux_max_sync(mask, v);
    case OP_AND: return (T)arch::redux_and_sync(mask, (U)v);
    case OP_OR: return (T)arch::redux_or_sync(mask, (U)v);
    default: return (T)arch::redux_xor_sync(mask, (U)v);
  }
}
#endif

// The canonical butterfly; over a whole warp of 32-bit integers, the hardware reduce where the
// arch has one (the same value, one instruction instead of five shuffles and combines).
template <int OP, typename T>
__device__ __forceinline__ T bfly(wk_lanemask_t mask, T v, unsigned width) {
#if WK_NATIVE_WARP_REDUX
  if constexpr (HasRedux<OP, T>::value) {
    if (width == WK_WARP_SIZE && mask == WK_FULL_MASK) return redux<OP, T>(mask, v);
  }
#endif
  return bfly_shuffle<OP, T>(mask, v, width);
}

// Kogge-Stone inclusive scan within segments of `width` lanes.
template <int OP, typename T>
__device__ __forceinline__ T kogge_stone(wk_lanemask_t mask, T v, unsigned width) {
  unsigned rank = lane() & (width - 1);
  for (unsigned d = 1; d < width; d <<= 1) {
    T y = shfl_up(mask, v, d, width);
    if (rank >= d) v = Op<OP, T>::combine(y, v);
  }
  return v;
}

// ---- the masked warp reduce, __reduce_*_sync(mask, v) (docs/SEMANTICS.md "warp_reduce_sync") ----
// The canonical order: bfly over the warp's WK_WARP_SIZE lanes with every non-member holding the
// op's identity. Only members run it, and none reads a non-member: once the steps of distance
// above d are done, every lane of a class of lanes equal modulo 2d holds the same bits (each
// step combines two values of one class, and the op is commutative bit for bit), so lane l
// takes class (l ^ d)'s value from that class's lowest member, or the identity if it has none.
template <int OP, typename T>
__device__ __forceinline__ T bfly_members(wk_lanemask_t mask, T v) {
  const unsigned me = lane();
  wk_lanemask_t every = 1;  // lanes 0, 2d, 4d, ...: one class modulo 2d, shifted below
  for (unsigned d = WK_WARP_SIZE >> 1; d >= 1; d >>= 1) {
    const wk_lanemask_t cls = mask & (every << ((me ^ d) & (2 * d - 1)));
    const bool some = cls != 0;
    const T y = shfl_idx(mask, v, some ? (unsigned)arch::lowest_lane(cls) : me, WK_WARP_SIZE);
    v = Op<OP, T>::combine(v, some ? y : Op<OP, T>::identity());
    every |= every << d;
  }
  return v;
}

// Every member gets the reduction over `mask`: the hardware reduce (redux.sync) for 32-bit
// integers where the arch has one and the native path is asked for (integers do not depend on
// the order), the canonical tree otherwise.
template <int OP, typename T>
__device__ __forceinline__ T reduce_sync(int impl, wk_lanemask_t mask, T v) {
#if WK_NATIVE_WARP_REDUX
  if constexpr (HasRedux<OP, T>::value) {
    if (impl == NATIVE) return redux<OP, T>(mask, v);
  }
#endif
  (void)impl;
  return bfly_members<OP, T>(mask, v);
}

// Group reduce of one value per thread of the block (blockDim a multiple of the logical group,
// at most WK_MAX_BLOCK): bfly in each logical group of 32, then bfly over the group results
// padded with the identity. The result is valid in thread 0. `groups` is shared scratch of
// WK_MAX_GROUPS elements (a T* on GPUs, a tracked array on the SIMT executor); the call ends
// with the block synchronised.
template <int OP, typename T, typename G>
__device__ __forceinline__ T group_reduce(T v, G groups) {
  wk_lanemask_t mask = block_warp_lanes();
  T g = bfly<OP, T>(mask, v, WK_LOGICAL_GROUP);
  unsigned group = threadIdx.x / WK_LOGICAL_GROUP;
  if (threadIdx.x % WK_LOGICAL_GROUP == 0) groups[group] = g;
  __syncthreads();
  T r = g;
  if (threadIdx.x < WK_LOGICAL_GROUP) {
    unsigned ngroups = blockDim.x / WK_LOGICAL_GROUP;
    T x = threadIdx.x < ngroups ? groups[threadIdx.x] : Op<OP, T>::identity();
    r = bfly<OP, T>(mask & low_lanes(WK_LOGICAL_GROUP), x, WK_LOGICAL_GROUP);
  }
  __syncthreads();
  return r;
}

// ---- arg reduce (docs/SEMANTICS.md "arg_reduce") ----
// argmin / argmax select the (key, index) pair of the smallest key, ties to the lower index: a
// total order, so every tree of the selection below picks the same element and no canonical
// order is needed. The key of v (OP is OP_MIN or OP_MAX): 0 for any NaN (the first NaN wins,
// numpy's and torch's rule); otherwise the rank of the sort's total order (wavekit-core's
// Element::order_bits: -0.0 below +0.0), bit-complemented for OP_MAX. No number has key 0.
// A 16-bit float is ranked from its bits, in the order of its exact widening to float (both
// zeros included); the key type is its accumulator's.
template <typename T> using ArgU = typename Elem<typename Elem<T>::Acc>::U;

template <int OP, typename T>
__device__ __forceinline__ ArgU<T> arg_key(T value) {
  typedef typename Elem<T>::Acc A;
  typedef ArgU<T> U;
  if constexpr (sizeof(T) == 2) {
    // The 16-bit floats straight from their bits (no conversion): the same order as their
    // widening, in the low 16 bits of the key.
    const uint32_t b = to_bits(value);
    if ((b & 0x7fffu) > HalfBits<T>::kInf) return 0;
    const uint32_t rank = (b & 0x8000u) ? (~b & 0xffffu) : (b | 0x8000u);
    return OP == OP_MAX ? (0xffffu ^ rank) : rank;
  }
  const A v = to_acc(value);
  const unsigned top = sizeof(U) * 8 - 1;
  const U b = to_bits(v);
  U rank;
  if constexpr (Elem<A>::is_float) {
    if (v != v) return 0;
    rank = (b >> top) ? (U)~b : (U)(b | ((U)1 << top));
  } else {
    rank = A(-1) < A(0) ? (U)(b ^ ((U)1 << top)) : b;
  }
  return OP == OP_MAX ? (U)~rank : rank;
}

// The element whose arg_key<OP, T> is k: the key is one to one but for a float's NaNs, which
// all have key 0 (the caller reads those from the input).
template <int OP, typename T>
__device__ __forceinline__ T arg_value(ArgU<T> k) {
  typedef typename Elem<T>::Acc A;
  typedef ArgU<T> U;
  if constexpr (sizeof(T) == 2) {
    const uint32_t rank = OP == OP_MAX ? (0xffffu ^ (uint32_t)k) : (uint32_t)k;
    return from_bits<T>((uint16_t)((rank & 0x8000u) ? (rank & 0x7fffu) : (~rank & 0xffffu)));
  } else {
    const unsigned top = sizeof(U) * 8 - 1;
    const U rank = OP == OP_MAX ? (U)~k : k;
    U b;
    if constexpr (Elem<A>::is_float)
      b = (rank >> top) ? (U)(rank ^ ((U)1 << top)) : (U)~rank;
    else
      b = A(-1) < A(0) ? (U)(rank ^ ((U)1 << top)) : rank;
    return from_bits<T>(b);
  }
}

// True when (k, i) is selected over (key, index).
template <typename U, typename I>
__device__ __forceinline__ bool arg_better(U k, I i, U key, I index) {
  return k < key || (k == key && i < index);
}

// The selected (key, index) pair of each segment of `width` lanes, in every lane of it.
template <typename U, typename I>
__device__ __forceinline__ void arg_bfly(wk_lanemask_t mask, U& key, I& index, unsigned width) {
  for (unsigned d = width >> 1; d >= 1; d >>= 1) {
    const U k = shfl_xor(mask, key, d, width);
    const I i = shfl_xor(mask, index, d, width);
    if (arg_better(k, i, key, index)) {
      key = k;
      index = i;
    }
  }
}

// The lane (within its segment of `width` lanes) of the segment's first smallest (OP_MIN) or
// largest (OP_MAX) value; a lane that is not `live` (past the input) takes no part.
template <int OP, typename T>
__device__ __forceinline__ unsigned arg_lane(wk_lanemask_t mask, T v, bool live, unsigned width) {
  typedef ArgU<T> U;
  // A dead lane's key is the largest; its lane is above every live lane of its segment.
  U key = live ? arg_key<OP, T>(v) : (U)~(U)0;
  unsigned at = lane() & (width - 1);
  arg_bfly(mask, key, at, width);
  return at;
}

// Records the first kernel-found error; for WK_ERR_INDEX the lowest (thread, value) wins.
__device__ __forceinline__ void report(wk_status* st, int code, uint64_t detail) {
  atomicCAS((int*)&st->code, 0, code);
  if (detail != WK_DETAIL_NONE) atomicMin((unsigned long long*)&st->detail, (unsigned long long)detail);
}

// Kernels compiled for one width refuse a launch that was planned for another.
__device__ __forceinline__ bool width_ok(wk_status* st, uint32_t warp_size) {
  if (warp_size == WK_WARP_SIZE) return true;
  if (threadIdx.x == 0 && blockIdx.x == 0) report(st, WK_ERR_WARP_SIZE, WK_DETAIL_NONE);
  return false;
}

}  // namespace prims
}  // namespace WK_NS
