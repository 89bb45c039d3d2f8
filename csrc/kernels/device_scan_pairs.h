// The 16-bit floats' device scan (included by device_scan.cu, after its tile constants): the
// canonical tile (docs/SEMANTICS.md "device_scan"), each thread carrying two of its 256 logical
// threads, t and t + 128, and their 32 items as loaded, 16 bits each, until the tile prefix is
// known. Why: the scan of 4-byte values parks its tile in shared memory through the look-back,
// which for the 16-bit floats means their float accumulators, and then an SM holds 8 tiles
// (2048 threads of 16 items); it spent as long waiting per tile as the f32 scan on half the
// bytes (benches/history/2026-11.md, 2026-11-29: 53-64% of copy). Here the registers hold the items
// in half the space, a thread scans them twice (once for its totals, once for its outputs: the same
// combines, so the same bits) and an SM holds 16 tiles.
#pragma once

namespace WK_NS {
namespace {
using namespace prims;

// Tiles per block (WK_SCAN_PAIRS_TILES: the executor's build takes two, so that its blocks start
// inside groups of four tiles and the suite's inputs of ten tiles run a look-back over groups)
// and blocks per SM: 2048 threads, 16 tiles an SM.
// Eight tiles a block (one look-back per 64 KB, as the f32 scan's four tiles) ran 1.02x / 1.00x
// as fast as four at 2^28 (f16 / bf16) and 0.98x / 0.92x at 2^24 (H200, 2026-11-30).
// The stash holds 80 windows of predecessors, groups of four tiles since the grouped order
// (tile_groups.h): far more than the 132-148 SMs of an H100, H200 or B200 hold at 16 tiles (the
// look-back past the stash is the slow one).
// logical: logical threads a thread carries (two: 128 threads a tile).
struct PairShape {
  static const int logical = 2;
  static const int tiles = WK_SCAN_PAIRS_TILES;
  static const int blocks = 2048 / (kThreads / logical * WK_SCAN_PAIRS_TILES);
  static const unsigned windows = 80;
};

// Sixteen bytes (eight 16-bit values) to or from shared memory: one access where shared memory
// is a plain pointer (the compilers'), item by item on the executor.
template <typename IO, typename S> __device__ __forceinline__ void put16(S p, const void* v) {
  if constexpr (std::is_pointer<S>::value) {
    uint4 r;
    __builtin_memcpy(&r, v, 16);
    *reinterpret_cast<uint4*>(p) = r;
  } else {
    IO e[8];
    __builtin_memcpy(e, v, 16);
#pragma unroll
    for (unsigned j = 0; j < 8; ++j) p[j] = e[j];
  }
}
template <typename IO, typename S> __device__ __forceinline__ void get16(S p, void* v) {
  if constexpr (std::is_pointer<S>::value) {
    const uint4 r = *reinterpret_cast<const uint4*>(p);
    __builtin_memcpy(v, &r, 16);
  } else {
    IO e[8];
#pragma unroll
    for (unsigned j = 0; j < 8; ++j) e[j] = p[j];
    __builtin_memcpy(v, e, 16);
  }
}

// TICKET: blocks numbered by a ticket taken as they start (every target); without, by
// blockIdx.x, which needs blocks started in index order (NVIDIA's hardware does; CUB's
// look-back relies on it) and spares each block the ticket's atomic round trip before its loads.
// L: logical threads a thread carries (t, t + 256 / L, ...). Four hold more of an SM's bytes in
// registers (64 threads a tile, 32 registers of items a thread), but 20 or 18 tiles an SM ran
// 0.95x / 1.00x as fast as the default's 16 at 2^28 (bench variants 7 and 8, H200, 2026-12-02).
template <int OP, typename T, typename Status, typename IO, int BLOCKS = PairShape::blocks,
          int K = PairShape::tiles, bool TICKET = true, int L = PairShape::logical>
__global__ void __launch_bounds__(kThreads / L * K, BLOCKS)
    scan_pairs_kernel(const IO* in, uint64_t n, uint32_t exclusive, unsigned* counter,
                      Status status, IO* out) {
  typedef Op<OP, T> O;
  const unsigned kPairThreads = kThreads / L;
  static_assert(kThreads % L == 0 && kThreads / L % WK_WARP_SIZE == 0 &&
                    kThreads / L % WK_LOGICAL_GROUP == 0,
                "a warp carries logical threads of one tile, t and t + 256 / L the same lane");
  static_assert(sizeof(IO) == 2 && kItems == 16, "16 items of 16 bits: two 16-byte chunks");
  typedef StashFor<T, PairShape::windows> Stash;
  // The grouped order of the 16-bit floats (tile_groups.h).
  const unsigned G = TileGroup<IO>::size;
  static_assert(G > 1, "the 16-bit floats' tiles advance in groups");
  // The tiles' outputs, at their positions in the output, before the coalesced stores.
  WK_SHARED_ALIGNED(IO, stage, K * WK_SCAN_TILE, 16);
  WK_SHARED(T, group_tot, K * kGroups);
  WK_SHARED(T, group_incl, K * kGroups);
  WK_SHARED(T, stash, Stash::size);
  WK_SHARED(unsigned, stash_flags, Stash::flags);
  WK_SHARED(T, last_w_prev, K);
  WK_SHARED(T, last_local, K);
  WK_SHARED(T, s_prefix, K);
  WK_SHARED_VAR(unsigned, s_first);
  const unsigned bt = threadIdx.x;
  const unsigned h = bt / kPairThreads;  // which of the block's tiles
  const unsigned pt = bt % kPairThreads;
  const unsigned ln = lane();
  // Blocks are numbered in the order they start (the look-back's progress, as in scan_kernel).
  if constexpr (TICKET) {
    if (bt == 0) {
      s_first = take_ticket(counter);
      status.prefetch((uint64_t)s_first * K);
    }
    __syncthreads();
  } else if (bt == 0) {
    status.prefetch((uint64_t)blockIdx.x * K);
  }
  const uint64_t first = (uint64_t)(TICKET ? s_first : blockIdx.x) * K;
  const uint64_t tile = first + h;
  const uint64_t tbase = tile * WK_SCAN_TILE;
  const wk_lanemask_t mask = block_warp_lanes();

  // The 16 items of logical thread pt + j * kPairThreads: two 16-byte loads where the tile is
  // whole and the input 16-byte aligned (a warp's loads cover its 1 KB slice), else one by one;
  // a tile past the input (the last block's fourth, say) and the last tile's padding hold the
  // identity.
  IO x[L][kItems];
  const bool vec_in = tbase + WK_SCAN_TILE <= n && ((uintptr_t)in % 16) == 0;
#pragma unroll
  for (unsigned j = 0; j < L; ++j) {
    const uint64_t b = tbase + (uint64_t)(pt + j * kPairThreads) * kItems;
    if (vec_in) {
      const uint4* p = reinterpret_cast<const uint4*>(in + b);
      uint4 r[2] = {p[0], p[1]};
      __builtin_memcpy(x[j], r, sizeof(r));
    } else {
#pragma unroll
      for (unsigned k = 0; k < kItems; ++k)
        x[j][k] = b + k < n ? in[b + k] : from_acc<IO>(O::identity());
    }
  }

  // 1. Each logical thread's total s_15; 2. Kogge-Stone in its logical group, then over the
  // group totals (the first warp of each tile).
  T w[L], w_prev[L];
  T last_total = O::identity();
#pragma unroll
  for (unsigned j = 0; j < L; ++j) {
    T s = to_acc(x[j][0]);
#pragma unroll
    for (unsigned k = 1; k < kItems; ++k) s = O::combine(s, to_acc(x[j][k]));
    last_total = s;
    w[j] = kogge_stone<OP, T>(mask, s, WK_LOGICAL_GROUP);
    w_prev[j] = shfl_up(mask, w[j], 1, WK_LOGICAL_GROUP);
  }
  const unsigned gl = pt % WK_LOGICAL_GROUP;
  const auto tot = group_tot + h * kGroups;
  const auto incl = group_incl + h * kGroups;
#pragma unroll
  for (unsigned j = 0; j < L; ++j)
    if (gl == WK_LOGICAL_GROUP - 1) tot[(pt + j * kPairThreads) / WK_LOGICAL_GROUP] = w[j];
  if (pt == kPairThreads - 1) {
    last_w_prev[h] = w_prev[L - 1];
    last_local[h] = last_total;
  }
  __syncthreads();
  if (pt < WK_LOGICAL_GROUP) {
    T v = pt < kGroups ? tot[pt] : O::identity();
    T u = kogge_stone<OP, T>(mask & low_lanes(WK_LOGICAL_GROUP), v, kGroups);
    if (pt < kGroups) incl[pt] = u;
  }
  __syncthreads();
  // 3. Thread prefixes P_t.
  T p[L];
#pragma unroll
  for (unsigned j = 0; j < L; ++j) {
    const unsigned g = (pt + j * kPairThreads) / WK_LOGICAL_GROUP;
    const T e_g = g == 0 ? O::identity() : incl[g - 1];
    p[j] = gl == 0 ? e_g : O::combine(e_g, w_prev[j]);
  }

  // 5. Tile prefixes in groups (tile_groups.h), as scan_kernel makes them. The looking warp
  // parks its items in the stage (their inputs' slots, nobody else's until the barrier below)
  // and takes them back after:
  // kept in its registers through the look-back, they spilled (ptxas: 84-250 bytes at the 32
  // registers of 2048 threads an SM).
  const auto park = stage + h * WK_SCAN_TILE + pt * kItems;
  if (bt < WK_WARP_SIZE) {
#pragma unroll
    for (unsigned j = 0; j < L; ++j) {
      put16<IO>(park + j * kPairThreads * kItems, x[j]);
      put16<IO>(park + j * kPairThreads * kItems + 8, x[j] + 8);
    }
    // Tile j's aggregate A = L_last, read again where needed (held in K registers through
    // the look-back, they spilled).
    auto agg = [&](int j) {
      return O::combine(O::combine(group_incl[j * kGroups + kGroups - 2], last_w_prev[j]),
                        last_local[j]);
    };
    const uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
    grouped_prefixes<OP, T, G, K, PairShape::windows>(status, first, tiles, agg, s_prefix, stash,
                                                      stash_flags);
#pragma unroll
    for (unsigned j = 0; j < L; ++j) {
      get16<IO>(park + j * kPairThreads * kItems, x[j]);
      get16<IO>(park + j * kPairThreads * kItems + 8, x[j] + 8);
    }
  }
  __syncthreads();
  const bool has_x = !Elem<T>::is_float || tile != 0;
  const T xp = tile != 0 ? s_prefix[h] : O::identity();

  // 4 and 5 again: each item's L_e = op(P_t, s_k) and op(X, L_e), from the items kept, rounded
  // once and packed in pairs, into the stage at its output position (an exclusive scan's one
  // further on).
  const auto st = stage + h * WK_SCAN_TILE;
#pragma unroll
  for (unsigned j = 0; j < L; ++j) {
    const unsigned t0 = (pt + j * kPairThreads) * kItems;
    uint32_t y[2][4];
    T s = O::identity();
#pragma unroll
    for (unsigned k = 0; k < kItems; k += 2) {
      T v[2];
#pragma unroll
      for (unsigned e = 0; e < 2; ++e) {
        s = k + e == 0 ? to_acc(x[j][0]) : O::combine(s, to_acc(x[j][k + e]));
        const T l = O::combine(p[j], s);
        v[e] = has_x ? O::combine(xp, l) : l;
      }
      y[k / 8][k % 8 / 2] = pack_from_acc<IO>(v[0], v[1]);
    }
    if (!exclusive) {
      // Lanes 4-7 of each eight write their second half first: the eight lanes a 16-byte
      // access serves then cover all 32 banks.
      // Values selected, not pointers: a pointer into y put y in local memory (ncu: three
      // times the L2 write sectors of the output).
      const unsigned c = (ln >> 2) & 1;
      uint32_t a[4], b[4];
#pragma unroll
      for (unsigned m = 0; m < 4; ++m) {
        a[m] = c ? y[1][m] : y[0][m];
        b[m] = c ? y[0][m] : y[1][m];
      }
      put16<IO>(st + t0 + 8 * c, a);
      put16<IO>(st + t0 + 8 * (c ^ 1), b);
    } else {
      if (t0 == 0) st[0] = from_acc<IO>(xp);
#pragma unroll
      for (unsigned k = 0; k < kItems; ++k)
        if (t0 + k + 1 < WK_SCAN_TILE)
          st[t0 + k + 1] = from_bits<IO>((uint16_t)(y[k / 8][k % 8 / 2] >> (16 * (k % 2))));
    }
  }
  // An inclusive scan's warp staged exactly the slices it stores; an exclusive one's first
  // items came from the warp before.
  if (exclusive)
    __syncthreads();
  else
    syncwarp(NATIVE, mask);

  // The warp's two slices of WK_WARP_SIZE x 16 outputs, 16 bytes a lane where whole and
  // aligned, else item by item (coalesced either way).
  const bool vec_out = ((uintptr_t)out % 16) == 0;
#pragma unroll
  for (unsigned j = 0; j < L; ++j) {
    const unsigned s0 = (pt - ln + j * kPairThreads) * kItems;
    const uint64_t ob = tbase + s0;
    if (vec_out && ob + kWarpItems <= n) {
      uint4* q = reinterpret_cast<uint4*>(out + ob);
#pragma unroll
      for (unsigned r = 0; r < kWarpItems / 8 / WK_WARP_SIZE; ++r) {
        const unsigned i = r * WK_WARP_SIZE + ln;
        uint4 u;
        get16<IO>(st + s0 + 8 * i, &u);
        q[i] = u;
      }
    } else {
#pragma unroll
      for (unsigned k = 0; k < kItems; ++k) {
        const unsigned i = k * WK_WARP_SIZE + ln;
        if (ob + i < n) out[ob + i] = st[s0 + i];
      }
    }
  }
}

}  // namespace
}  // namespace WK_NS
