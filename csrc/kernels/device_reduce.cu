// Canonical device reduce (docs/SEMANTICS.md "device_reduce"), in one launch up to
// WK_REDUCE_TWO_LAUNCH_TILES tiles (two past it, see there): blocks of 256
// threads fold K consecutive 4096-element tiles each (16-byte vector loads, each lane folding its
// 16 elements in (chunk, slot) order, the next tile's loads issued before the current tile is
// reduced), one group-reduced partial per tile. The partials are then reduced level by level in
// the same tile rule without a second launch: for every group of 4096 partials, the block that
// arrives last at the group's ticket reduces it, so the levels above the first run in parallel
// with the streaming of other groups and only the top of the tree is serial.
//
// The 16-bit floats load as IO and reduce in float (Elem<IO>::Acc): every partial is a float,
// and only the value written to `out` as the reduce's result is rounded (half.h).
//
// The tickets live at the start of the scratch, which must be zero on the first call; every
// ticket is reset by the block that empties it, so a finished launch leaves them zero again and
// no memset is queued (below the two-launch size one launch a reduce, CUB's DeviceReduce takes
// two).
#include "shapes.h"

namespace WK_NS {
using namespace prims;

namespace {

const unsigned kLanes = WK_REDUCE_TILE_LANES;
const uint64_t kTile = WK_REDUCE_TILE;
// Levels of partials: tiles <= 2^31 gives at most 2^31, 2^19, 2^7, then one value.
const unsigned kMaxLevels = 5;

template <typename T> struct ReducePlan {
  uint64_t m[kMaxLevels];     // m[0] = n elements, m[l] = items at level l (partials)
  unsigned top;               // the level written to `out`: m[top] values (1 for a reduce)
  bool out_acc;               // `out` takes partials (T) rather than the result (IO)
  T* part[kMaxLevels];        // part[l]: the m[l] partials of level l (l >= 1)
  unsigned* tick[kMaxLevels]; // tick[l]: one ticket per group of 4096 level-l partials
};

template <unsigned BYTES> struct LoadWord;
template <> struct LoadWord<16> { typedef uint4 type; };
template <> struct LoadWord<8> { typedef uint2 type; };

// The canonical layout's vector of the input type IO: V = 16 / sizeof(T) elements of the type
// the reduce runs in (4 or 2), so a lane folds the same elements for f16 as for f32; the
// 16-bit floats load them as 8 bytes.
template <typename IO> struct Vec {
  typedef typename Elem<IO>::Acc T;
  static const unsigned V = WK_REDUCE_VECTOR_BYTES / sizeof(T);
  static const unsigned chunks = WK_REDUCE_ITEMS_PER_LANE / V;
  static const unsigned bytes = V * sizeof(IO);
  typedef typename LoadWord<bytes>::type W;
};

// The vectors lane `threadIdx.x` folds from a full, aligned tile.
template <typename IO>
__device__ __forceinline__ void load_tile(const IO* src, uint64_t tile, typename Vec<IO>::W* buf) {
  typedef typename Vec<IO>::W W;
  const W* p = reinterpret_cast<const W*>(src + tile * kTile);
#pragma unroll
  for (unsigned c = 0; c < Vec<IO>::chunks; ++c) buf[c] = p[c * kLanes + threadIdx.x];
}

}  // namespace
}  // namespace WK_NS

#include "device_reduce_minmax.h"

namespace WK_NS {
namespace {

// A tile's (or a group's of partials) reduction of one value per thread, the result in thread
// 0. The canonical tree for every op; float Min and Max are order-free, so they reduce the
// threads' integer keys instead (a NaN anywhere becomes the key that wins, which no number
// has: the bits it maps back to are a NaN), with the integer butterfly, one redux.sync per warp
// for f32 keys where the arch has it, and no NaN- and signed-zero-aware compare chain.
template <int OP, typename T, typename G>
__device__ __forceinline__ T tile_partial(T v, G groups) {
  if constexpr (Elem<T>::is_float && (OP == OP_MIN || OP == OP_MAX)) {
    typedef FloatKey<T> K;
    typedef typename K::S S;
    const S win = OP == OP_MIN ? int_min<S>() : int_max<S>();
    const typename K::U b = to_bits(v);
    S k = (b & K::kAbs) > K::kInf ? win : float_key<T>(b);
    const wk_lanemask_t mask = block_warp_lanes();
    k = bfly<OP, S>(mask, k, WK_WARP_SIZE);
    const unsigned warps = (blockDim.x + WK_WARP_SIZE - 1) / WK_WARP_SIZE;
    if (lane() == 0) groups[threadIdx.x / WK_WARP_SIZE] = from_bits<T>((typename K::U)k);
    __syncthreads();
    if (threadIdx.x < WK_WARP_SIZE) {
      S x = threadIdx.x < warps ? (S)to_bits((T)groups[threadIdx.x]) : Op<OP, S>::identity();
      k = bfly<OP, S>(mask, x, WK_WARP_SIZE);
    }
    __syncthreads();
    if (k == win) return from_bits<T>(K::kQuietNan);
    return from_bits<T>((typename K::U)float_key<T>((typename K::U)k));
  } else {
    return group_reduce<OP, T>(v, groups);
  }
}

// The tile partials of K tiles at once (K <= 4, a power of two; not float Min / Max, which
// tile_partial reduces as keys), v[k] being this thread's lane accumulator of tile k: the same
// bits as K calls of tile_partial, in 9 shuffles instead of 40 for four tiles and one pair of
// barriers instead of four. In the
// group reduce's first butterfly (step 3 of SEMANTICS "device_reduce": levels 16 .. 1 over each
// logical group of 32), the level-d partners combine every tile's pair of values, but only half
// of them is needed past it by each of the two: so each keeps half its tiles (the lower lane the
// lower half), sends the other half and combines what it gets with what it kept, as `bfly`
// would have (own value first). After log2 K levels a lane holds one tile, the one of the class
// of lanes that agree in those high bits, and the lower levels run as before. In the second
// butterfly, over the 8 group partials padded to 32 lanes with the identity, levels 16 and 8
// only ever combine a partial with the identity, which gives it back exactly; so tile t's eight
// run levels 4 .. 1 in lanes 8t .. 8t + 7 side by side. Tile t's partial ends in thread 8t (with
// K <= 4 the four tiles' 32 group partials fill one logical group).
template <unsigned M, int OP, typename T, unsigned K>
__device__ __forceinline__ void keep_half(wk_lanemask_t mask, T (&v)[K], unsigned d) {
  if constexpr (M > 1) {
    const bool upper = (lane() & d) != 0;
#pragma unroll
    for (unsigned i = 0; i < M / 2; ++i) {
      const T keep = upper ? v[i + M / 2] : v[i];
      const T send = upper ? v[i] : v[i + M / 2];
      v[i] = Op<OP, T>::combine(keep, shfl_xor(mask, send, d, WK_LOGICAL_GROUP));
    }
    keep_half<M / 2, OP, T, K>(mask, v, d >> 1);
  }
}

template <int OP, typename T, unsigned K, typename G>
__device__ __forceinline__ T tile_partials(T (&v)[K], G groups) {
  static_assert(K >= 1 && K <= 4 && (K & (K - 1)) == 0, "one logical group holds 4 tiles' partials");
  const unsigned W = WK_LOGICAL_GROUP;
  const unsigned kGroups = WK_REDUCE_TILE_LANES / WK_LOGICAL_GROUP;
  const wk_lanemask_t mask = block_warp_lanes();
  keep_half<K, OP, T, K>(mask, v, W / 2);
  T g = v[0];
#pragma unroll
  for (unsigned d = W / (2 * K); d >= 1; d >>= 1)
    g = Op<OP, T>::combine(g, shfl_xor(mask, g, d, W));
  // Lane l of group q holds tile l / (W / K): the class's lowest lane stores it.
  const unsigned l = threadIdx.x % W, q = threadIdx.x / W;
  if (l % (W / K) == 0) groups[(l / (W / K)) * kGroups + q] = g;
  __syncthreads();
  T r = g;
  if (threadIdx.x < W) {
    // Lane 8t + j: group j's partial of tile t (the identity past the K tiles).
    const unsigned t = threadIdx.x / kGroups;
    T x = t < K ? groups[threadIdx.x] : Op<OP, T>::identity();
#pragma unroll
    for (unsigned d = kGroups / 2; d >= 1; d >>= 1)
      x = Op<OP, T>::combine(x, shfl_xor(mask & low_lanes(W), x, d, W));
    r = x;
  }
  __syncthreads();
  return r;
}

// tile_partials for float Min / Max: the K tiles' lane values as tile_partial's integer keys
// (a NaN the key that wins), reduced together, each tile's winner mapped back: tile_partial's
// bits for each tile.
template <int OP, typename T, unsigned K>
__device__ __forceinline__ T tile_key_partials(const T (&v)[K]) {
  typedef FloatKey<T> FK;
  typedef typename FK::S S;
  WK_SHARED(S, key_groups, K * (WK_REDUCE_TILE_LANES / WK_LOGICAL_GROUP));
  const S win = OP == OP_MIN ? int_min<S>() : int_max<S>();
  S k[K];
#pragma unroll
  for (unsigned i = 0; i < K; ++i) {
    const typename FK::U b = to_bits(v[i]);
    k[i] = (b & FK::kAbs) > FK::kInf ? win : float_key<T>(b);
  }
  const S r = tile_partials<OP, S, K>(k, key_groups);
  if (r == win) return from_bits<T>(FK::kQuietNan);
  return from_bits<T>((typename FK::U)float_key<T>((typename FK::U)r));
}

// The lane's fold of its 16 elements, in (chunk, slot) order. The canonical order is
// sequential; for order-free ops a pairwise tree gives the same bits with a chain four combines
// deep instead of sixteen.
template <int OP, typename T> __device__ __forceinline__ T fold_values(T* vals) {
  const unsigned kItems = WK_REDUCE_ITEMS_PER_LANE;
  if constexpr (Elem<T>::is_float && (OP == OP_MIN || OP == OP_MAX)) {
    return fold_float_minmax<OP, T>(vals);
  } else if (OrderFree<OP, T>::value) {
#pragma unroll
    for (unsigned w = 1; w < kItems; w *= 2) {
#pragma unroll
      for (unsigned i = 0; i + w < kItems; i += 2 * w) vals[i] = Op<OP, T>::combine(vals[i], vals[i + w]);
    }
    return vals[0];
  }
  T acc = Op<OP, T>::identity();
#pragma unroll
  for (unsigned i = 0; i < kItems; ++i) acc = Op<OP, T>::combine(acc, vals[i]);
  return acc;
}

// WIDE: the 16-bit floats' Min / Max widened first (the kernel before fold_half_minmax, kept
// for the bench's comparison).
template <int OP, typename T, typename IO, bool WIDE = false>
__device__ __forceinline__ T fold_vectors(const typename Vec<IO>::W* buf) {
  if constexpr (sizeof(IO) == 2 && !WIDE && (OP == OP_MIN || OP == OP_MAX))
    return fold_half_minmax<OP, T, IO>(buf);
  IO raw[WK_REDUCE_ITEMS_PER_LANE];
#pragma unroll
  for (unsigned c = 0; c < Vec<IO>::chunks; ++c)
    __builtin_memcpy(raw + c * Vec<IO>::V, &buf[c], sizeof(buf[c]));
  T vals[WK_REDUCE_ITEMS_PER_LANE];
#pragma unroll
  for (unsigned i = 0; i < WK_REDUCE_ITEMS_PER_LANE; ++i) vals[i] = to_acc(raw[i]);
  return fold_values<OP, T>(vals);
}

// The lane's fold of whole tile `tile` of `src` from its loaded words `buf` (fold_vectors). f64
// Min / Max by comparisons first (fold_f64_compared), the keys on the tile loaded again (from
// L2, just read) only when they cannot decide.
template <int OP, typename T, typename IO, bool WIDE>
__device__ __forceinline__ T fold_loaded(typename Vec<IO>::W* buf, const IO* src, uint64_t tile) {
  if constexpr (Elem<T>::is_float && sizeof(IO) == 8 && (OP == OP_MIN || OP == OP_MAX)) {
    T r;
    if (fold_f64_compared<OP>(buf, r)) return r;
    load_tile(src, tile, buf);
  }
  return fold_vectors<OP, T, IO, WIDE>(buf);
}

// Lane fold of a tile element by element: the short last tile, misaligned input, and the
// partials other blocks wrote during this launch (VOLATILE: read from L2, never a stale L1).
// Every load is issued before the first combine (padding past n with the identity, which is
// exact), so an op with branches (float Min/Max) does not serialise the loads behind them.
// Partials (VOLATILE) are always T; the input is IO.
template <int OP, typename T, bool VOLATILE, typename IO = T>
__device__ __forceinline__ T fold_scalar(const IO* src, uint64_t n, uint64_t tile) {
  const unsigned V = Vec<IO>::V;
  const uint64_t base = tile * kTile;
  T vals[WK_REDUCE_ITEMS_PER_LANE];
#pragma unroll
  for (unsigned c = 0; c < Vec<IO>::chunks; ++c) {
#pragma unroll
    for (unsigned s = 0; s < V; ++s) {
      const uint64_t e = base + (uint64_t)c * kLanes * V + (uint64_t)threadIdx.x * V + s;
      if constexpr (VOLATILE)
        vals[c * V + s] = e < n ? *(const volatile T*)(src + e) : Op<OP, T>::identity();
      else
        vals[c * V + s] = e < n ? to_acc(src[e]) : Op<OP, T>::identity();
    }
  }
  return fold_values<OP, T>(vals);
}

// A value of level `plan.top` into `out`: a partial as it is, the reduce's result rounded.
template <typename T, typename IO>
__device__ __forceinline__ void put_out(const ReducePlan<T>& plan, void* out, uint64_t i, T r) {
  if (plan.out_acc)
    ((T*)out)[i] = r;
  else
    ((IO*)out)[i] = from_acc<IO>(r);
}

// Occupancy floor (blocks per SM) the compiler must fit in registers without spilling: every
// thread slot for K = 1; with the prefetch buffer of larger K fewer blocks, each with twice the
// bytes in flight (an 8-byte tile is 8 vectors a lane, so 8-byte types get fewer still).
// The 16-bit floats' prefetch buffers are half as large (8-byte vectors), so K > 1 keeps six.
template <typename T, unsigned K, typename IO = T> struct ReduceOccupancy {
  static const int blocks = sizeof(IO) == 2 ? (K == 1 ? 8 : 6)
                            : sizeof(T) == 4 ? (K == 1 ? 8 : 5)
                                             : (K == 1 ? 6 : 3);
};

// OUT: the type the result is written in (IO, but the 16-bit floats' second launch reads
// float partials and writes the 16-bit result).
// BATCH: the K tiles' partials reduced together (tile_partials, tile_key_partials), for the
// 16-bit floats' four tiles a block, whose instructions bound them (benches/history/2026-11.md "The
// 16-bit reduce: four tiles' partials at once"). WIDE: fold_vectors' (the bench's old 16-bit Min /
// Max).
template <int OP, typename T, unsigned K, typename IO = T, typename OUT = IO, bool BATCH = false,
          bool WIDE = false>
__global__ void __launch_bounds__(WK_REDUCE_TILE_LANES, (ReduceOccupancy<T, K, IO>::blocks))
    reduce_kernel(const IO* in, ReducePlan<T> plan, void* out) {
  WK_SHARED(T, groups, WK_MAX_GROUPS);
  WK_SHARED_VAR(bool, last);
  const uint64_t n = plan.m[0];
  const uint64_t tiles = plan.m[1];
  const uint64_t first = (uint64_t)blockIdx.x * K;
  const bool vec_ok = ((uintptr_t)in % Vec<IO>::bytes) == 0;
  // Tiles [first, full_end) are whole and aligned; the block's others go element by element.
  const uint64_t full_end = vec_ok ? n / kTile : 0;

  typename Vec<IO>::W buf[Vec<IO>::chunks];
  if (first < full_end) load_tile(in, first, buf);
  if constexpr (BATCH) {
    // The same loads and folds as below, unrolled so that the K accumulators stay in registers;
    // tiles past the input fold to the identity and are not written.
    T acc[K];
#pragma unroll
    for (unsigned k = 0; k < K; ++k) {
      const uint64_t tile = first + k;
      if (tile < full_end) {
        typename Vec<IO>::W next[Vec<IO>::chunks];
        const bool prefetch = k + 1 < K && tile + 1 < full_end;
        if (prefetch) load_tile(in, tile + 1, next);
        acc[k] = fold_vectors<OP, T, IO>(buf);
        if (prefetch) {
#pragma unroll
          for (unsigned c = 0; c < Vec<IO>::chunks; ++c) buf[c] = next[c];
        }
      } else if (tile < tiles) {
        acc[k] = fold_scalar<OP, T, false, IO>(in, n, tile);
      } else {
        acc[k] = Op<OP, T>::identity();
      }
    }
    T r;
    if constexpr (Elem<T>::is_float && (OP == OP_MIN || OP == OP_MAX))
      r = tile_key_partials<OP, T, K>(acc);
    else
      r = tile_partials<OP, T, K>(acc, groups);
    const unsigned per = WK_REDUCE_TILE_LANES / WK_LOGICAL_GROUP;
    const uint64_t tile = first + threadIdx.x / per;
    if (threadIdx.x < K * per && threadIdx.x % per == 0 && tile < tiles) {
      if (plan.top == 1)
        put_out<T, OUT>(plan, out, tile, r);
      else
        plan.part[1][tile] = r;
    }
  } else {
#pragma unroll 1
    for (unsigned k = 0; k < K; ++k) {
      const uint64_t tile = first + k;
      if (tile >= tiles) break;
      T acc;
      if (tile < full_end) {
        typename Vec<IO>::W next[Vec<IO>::chunks];
        const bool prefetch = k + 1 < K && tile + 1 < full_end;
        if (prefetch) load_tile(in, tile + 1, next);
        acc = fold_loaded<OP, T, IO, WIDE>(buf, in, tile);
        if (prefetch) {
#pragma unroll
          for (unsigned c = 0; c < Vec<IO>::chunks; ++c) buf[c] = next[c];
        }
      } else {
        acc = fold_scalar<OP, T, false, IO>(in, n, tile);
      }
      T r = tile_partial<OP, T>(acc, groups);
      if (threadIdx.x == 0) {
        if (plan.top == 1)
          put_out<T, OUT>(plan, out, tile, r);
        else
          plan.part[1][tile] = r;
      }
    }
  }
  if (plan.top == 1) return;

  // Climb: this block contributed items [idx, idx + per_arrival) of level `lvl`. The loop is
  // unrolled so the plan (a kernel parameter) is only ever indexed by constants.
  uint64_t idx = first;
  uint64_t per_arrival = K;
#pragma unroll
  for (unsigned lvl = 1; lvl + 1 < kMaxLevels; ++lvl) {
    const uint64_t m = plan.m[lvl];
    const uint64_t g = idx / kTile;
    const uint64_t items = m - g * kTile < kTile ? m - g * kTile : kTile;
    const unsigned expect = (unsigned)((items + per_arrival - 1) / per_arrival);
    if (threadIdx.x == 0) {
      arch::fence_device();
      unsigned old = atomicAdd(plan.tick[lvl] + g, 1u);
      last = old == expect - 1;
      // Everyone has arrived: the ticket is free for the next launch.
      if (last) atomicExch(plan.tick[lvl] + g, 0u);
    }
    __syncthreads();
    if (!last) return;
    arch::fence_device();
    T r = tile_partial<OP, T>(fold_scalar<OP, T, true>(plan.part[lvl], m, g), groups);
    if (lvl + 1 == plan.top) {
      if (threadIdx.x == 0) put_out<T, OUT>(plan, out, g, r);
      return;
    }
    if (threadIdx.x == 0) plan.part[lvl + 1][g] = r;
    idx = g;
    per_arrival = 1;
  }
}

// Items per level, m[0] = n, m[1] = tiles, ... down to 1; returns the index of the 1 (at least
// 1: even a single element is one tile).
unsigned level_sizes(uint64_t n, uint64_t* m) {
  unsigned l = 0;
  m[0] = n;
  do {
    m[l + 1] = (m[l] + kTile - 1) / kTile;
    ++l;
  } while (m[l] > 1);
  return l;
}

uint64_t ticket_bytes(const uint64_t* m, unsigned top) {
  uint64_t t = 0;
  for (unsigned l = 2; l <= top; ++l) t += m[l];
  return round_up(t * sizeof(unsigned));
}

// Tiles per block. Measured on an H100 (the "reduce sum k=..." rows at commit 1b135ea,
// benches/results/h100-2026-11-23/, 2^16..2^28, f32 and f64): one tile per block with full
// occupancy was never slower than 2, 4 or 8 tiles per block with a prefetched next tile, and 1-4%
// faster at 2^28, so the launcher always takes one; the others stay for that comparison. The 16-bit
// floats move half the bytes a tile; in one launch, where every block waits at a ticket, one tile a
// block left them at 85% of a read at 2^28 and four reached 98.6% (H100, 2026-11-26), so from 2^14
// tiles (2^26 elements, two launches) they take four. There, on the H200, four tiles' partials
// reduced together (tile_partials, Sum and Product) read at 96-97% where four each reduced alone
// were at 88-90%; one tile a block measured the same for Sum, and slower for Max (74% of a read
// against four tiles' 78%), 2026-11-30, benches/history/2026-11.md "The 16-bit reduce: four tiles'
// partials at once". Min and Max now fold the loaded words' bits and batch their tiles' key
// partials too. The executor build takes four from two tiles, so that the conformance suite runs
// them.
#ifndef WK_REDUCE_HALF_WIDE_FROM_TILES
#define WK_REDUCE_HALF_WIDE_FROM_TILES (1u << 14)
#endif
unsigned tiles_per_block(uint64_t tiles, unsigned io_size) {
  return io_size == 2 && tiles >= WK_REDUCE_HALF_WIDE_FROM_TILES ? 4 : 1;
}

// From this many tiles a reduce runs as two launches: every block writes its tiles' partials
// and exits, then a reduce of the partials climbs the rest of the tree (for the 16-bit floats
// over the float partials, rounding the result once as before).
// In one launch each block waits at its group's ticket (a fence, then an atomic's round trip to
// L2) holding its slot with no loads in flight: on an H200 (2026-11-28, at commit 1b135ea:
// benches/results/reduce-h200-2026-11-28/rb.cu) tiles with that ticket streamed 2^28 f32 in
// 294 us against 242 us without it (CUB 249 us); the second launch costs a few microseconds,
// which only large inputs win back. Same partials, same tree,
// the same bits. The executor build sets it to 2 so that CI runs this path on small inputs.
#ifndef WK_REDUCE_TWO_LAUNCH_TILES
#define WK_REDUCE_TWO_LAUNCH_TILES (1u << 14)
#endif

// Whether four tiles a block reduce their partials together: the 16-bit floats' blocks.
template <int OP, typename T, typename IO> struct BatchPartials {
  static const bool value = sizeof(IO) == 2;
};

// per_tile: the bench's row of four 16-bit tiles a block each reduced alone (as before
// tile_partials); wide: the same with the 16-bit Min / Max widened before the fold (as before
// fold_half_minmax).
template <int OP, typename T, typename IO, typename OUT>
int launch_k(host::stream_t s, const IO* in, const ReducePlan<T>& plan, void* out, unsigned k,
             bool per_tile, bool wide) {
  const uint64_t blocks = (plan.m[1] + k - 1) / k;
  if constexpr (sizeof(IO) != sizeof(OUT)) {
    // Only the 16-bit floats' second launch, over float partials: one tile a block.
    if (k != 1) return WK_ERR_ARG;
    WK_LAUNCH((unsigned)blocks, kLanes, 0, s, reduce_kernel<OP, T, 1, IO, OUT>)(in, plan, out);
    return host::launch_error();
  }
  switch (k) {
    case 1: WK_LAUNCH((unsigned)blocks, kLanes, 0, s, reduce_kernel<OP, T, 1, IO>)(in, plan, out); break;
    case 2: WK_LAUNCH((unsigned)blocks, kLanes, 0, s, reduce_kernel<OP, T, 2, IO>)(in, plan, out); break;
    case 4:
      if constexpr (sizeof(IO) == 2 && (OP == OP_MIN || OP == OP_MAX)) {
        if (wide) {
          WK_LAUNCH((unsigned)blocks, kLanes, 0, s,
                    reduce_kernel<OP, T, 4, IO, IO, false, true>)(in, plan, out);
          break;
        }
      }
      if (wide) return WK_ERR_ARG;
      if constexpr (BatchPartials<OP, T, IO>::value) {
        if (!per_tile) {
          WK_LAUNCH((unsigned)blocks, kLanes, 0, s, reduce_kernel<OP, T, 4, IO, IO, true>)(in, plan, out);
          break;
        }
      }
      WK_LAUNCH((unsigned)blocks, kLanes, 0, s, reduce_kernel<OP, T, 4, IO>)(in, plan, out);
      break;
    // Eight tiles a block are the bench's comparison for f32 and f64 only.
    case 8:
      if constexpr (sizeof(IO) == sizeof(T)) {
        WK_LAUNCH((unsigned)blocks, kLanes, 0, s, reduce_kernel<OP, T, 8, IO>)(in, plan, out);
        break;
      }
      return WK_ERR_ARG;
    default: return WK_ERR_ARG;
  }
  return host::launch_error();
}

}  // namespace

uint64_t device_reduce_scratch(uint32_t elem_size, uint64_t n) {
  uint64_t m[kMaxLevels + 1];
  if (n == 0 || (n + kTile - 1) / kTile > 0x7fffffffull) return 0;
  unsigned top = level_sizes(n, m);
  uint64_t bytes = ticket_bytes(m, top);
  for (unsigned l = 1; l < top; ++l) bytes += round_up(m[l] * elem_size);
  return bytes;
}

namespace {

// The reduce of n elements of IO up to level `levels` (0 or past the last: to one value) in
// the kernel `shape` names (shapes.h; {} the launcher's choice), in IO's accumulator type, the
// result written as OUT.
template <typename IO, typename OUT>
int run_levels(void* stream, uint32_t op, const void* in, uint64_t n, void* scratch,
               uint64_t scratch_bytes, void* out, ReduceShape shape, unsigned levels) {
  typedef typename Elem<IO>::Acc T;
  uint64_t tiles = (n + kTile - 1) / kTile;
  if (n == 0 || tiles > 0x7fffffffull) return WK_ERR_ARG;
  if (shape.tiles > 15) return WK_ERR_ARG;
  // An explicit tile count (the bench's tiles-a-block rows) runs as one launch unless asked.
  const bool auto_k = shape.tiles == 0 || shape.two_launches;
  unsigned k = shape.tiles;
  if (k == 0) k = tiles_per_block(tiles, sizeof(IO));
  if (scratch_bytes < device_reduce_scratch(sizeof(T), n)) return WK_ERR_SCRATCH;
  ReducePlan<T> plan = {};
  unsigned top = level_sizes(n, plan.m);
  // A level of the tree (levels != 0) stays in the accumulator type, also where it is the top
  // (one value): a sharded reduce folds 16-bit floats' partials in f32 and rounds once.
  plan.out_acc = levels != 0;
  if (levels != 0 && levels < top) top = levels;
  plan.top = top;
  // Tickets from the start of the scratch, partials packed at its end. A caller that keeps
  // one grow-only scratch for every reduce (the GPU backend) passes all of it: the region
  // any call's tickets use then never holds another call's partials (both grow with n, and
  // the scratch is at least the largest call's tickets plus partials), so tickets left at
  // zero stay zero whatever reduces, of any size or level, ran before.
  unsigned* tick = (unsigned*)scratch;
  for (unsigned l = 1; l < top; ++l) {
    // Level l's groups are the items of level l + 1.
    plan.tick[l] = tick;
    tick += plan.m[l + 1];
  }
  char* end = (char*)scratch + scratch_bytes;
  for (unsigned l = 1; l < top; ++l) {
    end -= round_up(plan.m[l] * sizeof(T));
    plan.part[l] = (T*)end;
  }
  // Two launches: level 1's partials as a reduce stopped there (no tickets), then the reduce
  // of those partials (in T, the result rounded to OUT once) in the scratch before them, where
  // this plan's tickets and upper levels would lie (the same region, so the tickets-stay-zero
  // rule above still holds).
  const bool two = auto_k && levels == 0 && top > 1 && tiles >= WK_REDUCE_TWO_LAUNCH_TILES;
  if (two) {
    plan.top = 1;
    plan.out_acc = true;
  }
  int rc = with_op<T>(op, [&](auto ot) {
    return launch_k<decltype(ot)::value, T, IO, OUT>(as_stream(stream), (const IO*)in, plan,
                                                     two ? (void*)plan.part[1] : out, k,
                                                     shape.per_tile16, shape.widen16);
  });
  if (rc != 0 || !two) return rc;
  return run_levels<T, OUT>(stream, op, plan.part[1], plan.m[1], scratch,
                            (uint64_t)((char*)plan.part[1] - (char*)scratch), out,
                            ReduceShape{}, 0);
}

int launch_levels(void* stream, uint32_t dtype, uint32_t op, const void* in, uint64_t n,
                  void* scratch, uint64_t scratch_bytes, void* out, ReduceShape shape,
                  unsigned levels) {
  return with_dtype_io(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type IO;
    return run_levels<IO, IO>(stream, op, in, n, scratch, scratch_bytes, out, shape, levels);
  });
}

}  // namespace

int device_reduce_shaped(void* stream, uint32_t dtype, uint32_t op, const void* in, uint64_t n,
                         void* scratch, uint64_t scratch_bytes, void* out, ReduceShape shape) {
  return launch_levels(stream, dtype, op, in, n, scratch, scratch_bytes, out, shape, 0);
}

// Level `levels` of the reduce's tree (docs/SEMANTICS.md "device_reduce", step 4): the
// reductions of the ceil(n / 4096^levels) consecutive chunks of 4096^levels elements, bit for
// bit what device_reduce gives for each chunk alone before its rounding (the accumulator type),
// from one launch. A sharded reduce (wavekit-dist) gets all of a rank's partials this way
// instead of a launch per chunk.
int device_reduce_partials_launch(void* stream, wk_status*, uint32_t dtype, uint32_t op,
                                  const void* in, uint64_t n, uint32_t levels, void* scratch,
                                  uint64_t scratch_bytes, void* out) {
  if (levels == 0 || levels >= kMaxLevels) return WK_ERR_ARG;
  return launch_levels(stream, dtype, op, in, n, scratch, scratch_bytes, out, ReduceShape{},
                       levels);
}

// The levels of the tree above partials: the reduce of n values of dtype's accumulator type
// (device_reduce_partials' output, gathered), the result rounded to dtype once. One tile a
// block (k = 1): the partials are few, and the mixed-type launch takes only that shape.
int device_reduce_acc_launch(void* stream, wk_status*, uint32_t dtype, uint32_t op,
                             const void* in, uint64_t n, void* scratch, uint64_t scratch_bytes,
                             void* out) {
  return with_dtype_io(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type IO;
    typedef typename Elem<IO>::Acc A;
    return run_levels<A, IO>(stream, op, in, n, scratch, scratch_bytes, out,
                             ReduceShape{1, false, false, false}, 0);
  });
}

int device_reduce_launch(void* stream, wk_status*, uint32_t dtype, uint32_t op, const void* in,
                         uint64_t n, void* scratch, uint64_t scratch_bytes, void* out) {
  return device_reduce_shaped(stream, dtype, op, in, n, scratch, scratch_bytes, out,
                              ReduceShape{});
}

}  // namespace WK_NS
