// Grouped tile prefixes of the 16-bit floats' device scan (docs/SEMANTICS.md "device_scan",
// step 5): tiles advance G = WK_SCAN_HALF_GROUP at a time, Y_1 = S_0, Y_{q+1} = op(Y_q, S_q)
// with S_q the left fold of group q's aggregates, and inside a group X_{qG+r} = op(Y_q, P_r),
// P_r the left fold of its first r aggregates. Why: a float look-back reads one status and
// chains one combine for every element it passes, and with one a tile the 16-bit scan's
// look-backs went 300 tiles back (benches/history/2026-12.md, 2026-12-04: 68% of copy); over
// groups it reads and chains a quarter as many.
//
// Statuses stay one a tile, so a block may start or end inside a group: a tile inside a group
// publishes its aggregate A_i (read only by later blocks of the same group), a group's last tile
// S_q as its aggregate and then Y_{q+1} as its inclusive prefix. S_q needs the aggregates of
// the group's tiles in earlier blocks, which those publish before they look back, so the
// statuses a look-back waits on are always published.
#pragma once

#include "look_back.h"

namespace WK_NS {

// Tiles a group: the 16-bit floats group WK_SCAN_HALF_GROUP tiles; every other type one (the
// plain left fold over tiles, look_back).
template <typename IO> struct TileGroup {
  static const unsigned size =
      Elem<IO>::is_float && sizeof(IO) == 2 ? WK_SCAN_HALF_GROUP : 1;
};

// The statuses of the groups' last tiles, numbered by group: look_back over them is the left
// fold over groups (S_q aggregates, Y_{q+1} inclusive prefixes).
template <typename Status, unsigned G> struct GroupEnds {
  Status st;
  template <typename T> __device__ __forceinline__ unsigned wait(uint64_t g, T* v) const {
    return st.wait(g * G + G - 1, v);
  }
};

// P of the block whose first tile is `first`, called by every lane of one full warp (valid in
// every lane): the aggregates of tiles qG .. first - 1, left to right.
template <typename O, unsigned G, typename T, typename Status>
__device__ __forceinline__ T group_partial(const Status& st, uint64_t first) {
  const unsigned rem = (unsigned)(first % G);
  const unsigned ln = prims::lane();
  T v = O::identity();
  if (ln < rem) st.wait(first - rem + ln, &v);
  T p = prims::shfl_idx(WK_FULL_MASK, v, 0, WK_WARP_SIZE);
  for (unsigned k = 1; k < rem; ++k)
    p = O::combine(p, prims::shfl_idx(WK_FULL_MASK, v, k, WK_WARP_SIZE));
  return p;
}

// A block's step 5 in the grouped order, called by every lane of the block's looking warp once
// its aggregates agg(0 .. K-1) are known: publishes the aggregates (S_q at a group's last tile),
// looks back over the groups, and (lane 0) writes the tiles' prefixes X into x[0 .. K-1] (tile
// 0's left undefined: it has none) and publishes Y_{q+1} at each group's last tile it holds.
template <int OP, typename T, unsigned G, int K, unsigned WINDOWS, typename Status, typename A,
          typename X, typename S, typename F>
__device__ __forceinline__ void grouped_prefixes(const Status& st, uint64_t first, uint64_t tiles,
                                                 A agg, X x, S stash, F flags) {
  typedef Op<OP, T> O;
  const unsigned ln = prims::lane();
  const bool has_p0 = first % G != 0;
  // Tiles inside a group publish at once; a group's last tile waits for P when its group
  // began in an earlier block.
  if (ln == 0) {
#pragma unroll
    for (int j = 0; j < K; ++j)
      if ((first + j) % G != G - 1 && first + j < tiles)
        st.publish(first + j, kStatusAggregate, agg(j));
  }
  const T p0 = has_p0 ? group_partial<O, G, T>(st, first) : O::identity();
  if (ln == 0) {
    T s = p0;
    bool has_s = has_p0;
#pragma unroll
    for (int j = 0; j < K; ++j) {
      s = has_s ? O::combine(s, agg(j)) : agg(j);
      has_s = true;
      if ((first + j) % G == G - 1) {
        // Group 0's S is Y_1, its inclusive prefix at once: look_back stops only at one, and
        // nothing precedes group 0 (as tile 0 publishes its inclusive prefix in the plain fold).
        if (first + j < tiles)
          st.publish(first + j, first + j < G ? kStatusInclusive : kStatusAggregate, s);
        has_s = false;
      }
    }
  }
  const uint64_t q = first / G;
  T y = O::identity();
  if (q != 0) y = look_back<OP, T, WINDOWS>(GroupEnds<Status, G>{st}, q, stash, flags);
  if (ln == 0) {
    T p = p0;
    bool has_y = q != 0, has_p = has_p0;
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const uint64_t i = first + j;
      x[j] = has_y ? (has_p ? O::combine(y, p) : y) : p;
      p = has_p ? O::combine(p, agg(j)) : agg(j);
      has_p = true;
      if (i % G == G - 1) {
        y = has_y ? O::combine(y, p) : p;
        has_y = true;
        has_p = false;
        if (i < tiles) st.publish(i, kStatusInclusive, y);
      }
    }
  }
}

}  // namespace WK_NS
