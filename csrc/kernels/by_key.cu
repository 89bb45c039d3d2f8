// reduce_by_key and scan_by_key (docs/SEMANTICS.md "by_key"): the device scan's tiles over pairs
// (head, value) with the segmented operator (fa, a) + (fb, b) = (fa | fb, fb ? b : op(a, b)).
//
// One pass over tiles of 256 threads x 16 items, as device_scan.cu. Each thread reads its 16
// keys itself (16-byte vector loads where aligned; only the keys' size and whether they are
// floats reach the kernel, so it is instantiated per value type, op and key size) and keeps their head bits (the key differs from the one before) and end bits (the next
// one differs, or it is the last) in registers. The tile prefix uses the scan's look-back
// unchanged: a tile with a head publishes its inclusive value (from its last head on) at once,
// since the operator drops everything before a head; a tile without one publishes its
// aggregate, then its inclusive prefix, and the look-back's left fold from the nearest
// inclusive prefix is the pair fold. A reduce also looks back over head counts (runs.cu's way)
// for the tile's first output slot, and stages its runs' values in shared memory so they are
// written by consecutive threads.
#include "shapes.h"
#include "look_back.h"

namespace WK_NS {
using namespace prims;

namespace {

const unsigned kThreads = WK_SCAN_TILE_THREADS;
const unsigned kItems = WK_SCAN_ITEMS_PER_THREAD;
const unsigned kGroups = WK_SCAN_TILE_THREADS / WK_LOGICAL_GROUP;
const unsigned kWarps = WK_SCAN_TILE_THREADS / WK_WARP_SIZE;

const uint32_t kModeInclusive = 0;
const uint32_t kModeExclusive = 1;
const uint32_t kModeReduce = 2;

// Key equality on the keys' bits: IEEE `==` for floats (-0.0 == +0.0, a NaN equals nothing).
// `inf`: the bits of +infinity for float keys (those past it, sign cleared, are NaNs), 0 for
// integer keys.
template <typename KB> __device__ __forceinline__ bool key_eq(KB a, KB b, KB inf) {
  if (!inf) return a == b;
  const KB abs = (KB)((KB)~(KB)0 >> 1);
  if ((KB)(a & abs) > inf || (KB)(b & abs) > inf) return false;
  return a == b || (KB)((a | b) & abs) == 0;
}

// Keys first .. first + live - 1 into k (live <= 16): whole 16-byte vectors when the thread
// has all 16 and the keys are aligned.
template <typename KB>
__device__ __forceinline__ void load_keys(const KB* keys, uint64_t first, unsigned live,
                                          bool vec, KB* k) {
  if (vec && live == kItems) {
    const unsigned per = sizeof(uint4) / sizeof(KB);
    const uint4* p = reinterpret_cast<const uint4*>(keys + first);
#pragma unroll
    for (unsigned c = 0; c < kItems / per; ++c) {
      const uint4 v = p[c];
      __builtin_memcpy(k + c * per, &v, sizeof(uint4));
    }
    return;
  }
#pragma unroll
  for (unsigned i = 0; i < kItems; ++i) k[i] = i < live ? keys[first + i] : (KB)0;
}

// Kogge-Stone of pairs within segments of `width` lanes (docs/SEMANTICS.md "warp_scan" with
// the segmented operator).
template <int OP, typename T>
__device__ __forceinline__ T seg_kogge_stone(wk_lanemask_t mask, T v, unsigned* f,
                                             unsigned width) {
  const unsigned rank = lane() & (width - 1);
  for (unsigned d = 1; d < width; d <<= 1) {
    const T y = shfl_up(mask, v, d, width);
    const unsigned fy = shfl_up(mask, *f, d, width);
    if (rank >= d) {
      if (!*f) v = Op<OP, T>::combine(y, v);
      *f |= fy;
    }
  }
  return v;
}

// Blocks per SM the registers must allow. Without a bound the kernel took 111 registers a
// thread (ncu, H100, 2^24 f32 runs of 8): two blocks an SM, 25% occupancy, 30-53% of DRAM
// bandwidth. The bound follows device_scan's one-tile measurements (seven blocks for 4-byte
// values there; this kernel also carries head and end bits), five for 8-byte values.
template <typename T> struct ByKeyOccupancy {
  static const int blocks = sizeof(T) == 4 ? 6 : 5;
};

// BLOCKS: the bench's neighbours of the default (by_key_shaped).
template <int OP, typename T, typename KB, typename Status,
          int BLOCKS = ByKeyOccupancy<typename Elem<T>::Acc>::blocks>
__global__ void __launch_bounds__(WK_SCAN_TILE_THREADS, BLOCKS)
    by_key_scan(wk_status* st, uint32_t warp_size, const KB* keys, uint64_t key_inf,
                const T* in, uint64_t n, uint32_t mode, unsigned* counter, Status status,
                CountStatus counts, T* out, KB* keys_out, unsigned long long* total) {
  // Values are loaded widened to A (Elem<T>::Acc: float for the 16-bit floats), combined in A
  // and rounded once on the way out, as device_scan does.
  typedef typename Elem<T>::Acc A;
  typedef Op<OP, A> O;
  typedef Pad<A> P;
  const unsigned kWarpSlots = kWarpTileItems + kWarpTileItems / P::every;
  WK_SHARED(A, items, kWarps * kWarpSlots);
  WK_SHARED(A, group_tot, kGroups);
  WK_SHARED(unsigned, group_totf, kGroups);
  WK_SHARED(A, group_incl, kGroups);
  WK_SHARED(unsigned, group_inclf, kGroups);
  WK_SHARED(A, stash, StashFor<A>::size);
  WK_SHARED(unsigned, stash_flags, StashFor<A>::flags);
  WK_SHARED(unsigned, warp_heads, kWarps);
  WK_SHARED(unsigned, warp_ends, kWarps);
  WK_SHARED_VAR(A, s_agg);
  WK_SHARED_VAR(A, s_prefix);
  WK_SHARED_VAR(uint64_t, s_offset);
  WK_SHARED_VAR(unsigned, s_tile);
  WK_SHARED_VAR(unsigned, s_starts);
  WK_SHARED(unsigned, park_bits, kThreads);
  WK_SHARED(unsigned, park_ranks, kThreads);
  if (!width_ok(st, warp_size)) return;
  const unsigned t = threadIdx.x;
  if (t == 0) {
    s_tile = take_ticket(counter);
    status.prefetch(s_tile);
    counts.prefetch(s_tile);
  }
  __syncthreads();
  const uint64_t tile = s_tile;
  const uint64_t base = tile * WK_SCAN_TILE;
  const unsigned ln = lane();
  const unsigned w = t / WK_WARP_SIZE;
  const auto wsm = items + w * kWarpSlots;
  const uint64_t wbase = base + (uint64_t)w * kWarpTileItems;
  const wk_lanemask_t mask = block_warp_lanes();

  // Values: each warp its 16 x W consecutive ones, coalesced, through shared memory.
  if (wbase + kWarpTileItems <= n) {
    A x[kItems];
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) x[k] = to_acc(in[wbase + k * WK_WARP_SIZE + ln]);
    // Slots from one base (at() per item costs four instructions: the compiler does not know
    // ln < WK_WARP_SIZE).
    const auto row = wsm + P::at(ln);
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) row[P::rows(k)] = x[k];
  } else {
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) {
      const unsigned idx = k * WK_WARP_SIZE + ln;
      wsm[P::at(idx)] = wbase + idx < n ? to_acc(in[wbase + idx]) : O::identity();
    }
  }
  // This thread's keys (items 16t .. 16t+15 of the tile), their head bits (the first key, or
  // one that differs from the key before it) and end bits (the last key, or one the next key
  // differs from). Positions past n have neither.
  const uint64_t first = wbase + (uint64_t)ln * kItems;
  const unsigned live = first >= n ? 0 : (n - first >= kItems ? kItems : (unsigned)(n - first));
  const KB fl = (KB)key_inf;
  KB k[kItems];
  load_keys<KB>(keys, first, live, ((uintptr_t)keys % sizeof(uint4)) == 0, k);
  unsigned hb = 0, eb = 0;
  if (live) {
    const KB prev = first > 0 ? keys[first - 1] : (KB)0;
    const KB next = first + kItems < n ? keys[first + kItems] : (KB)0;
#pragma unroll
    for (unsigned i = 0; i < kItems; ++i) {
      if (i < live) {
        if (first + i == 0 || !key_eq(k[i], i == 0 ? prev : k[i - 1], fl)) hb |= 1u << i;
        if (first + i + 1 == n || !key_eq(i + 1 < kItems ? k[i + 1] : next, k[i], fl))
          eb |= 1u << i;
      }
    }
  }
  if (t == 0) s_starts = hb & 1;
  syncwarp(NATIVE, mask);

  // 1. Thread-local scan of the pairs: s_k restarts at each head.
  A s[kItems];
  // This thread's 16 slots, consecutive (16 divides the padding period).
  const auto mine = wsm + P::at(ln * kItems);
  s[0] = mine[0];
#pragma unroll
  for (unsigned i = 1; i < kItems; ++i) {
    const A x = mine[i];
    s[i] = (hb >> i) & 1 ? x : O::combine(s[i - 1], x);
  }

  // 2. Kogge-Stone of the thread totals in each logical group, then over the group totals.
  unsigned wf = hb != 0;
  const A wv = seg_kogge_stone<OP, A>(mask, s[kItems - 1], &wf, WK_LOGICAL_GROUP);
  const A w_prev = shfl_up(mask, wv, 1, WK_LOGICAL_GROUP);
  const unsigned wf_prev = shfl_up(mask, wf, 1, WK_LOGICAL_GROUP);
  const unsigned g = t / WK_LOGICAL_GROUP;
  const unsigned gl = t % WK_LOGICAL_GROUP;
  if (gl == WK_LOGICAL_GROUP - 1) {
    group_tot[g] = wv;
    group_totf[g] = wf;
  }
  // A reduce's heads and ends ranked over the block (runs.cu's way).
  const bool reduce = mode == kModeReduce;
  const unsigned my_heads = __popc(hb), my_ends = __popc(eb);
  unsigned h_incl = 0, e_incl = 0;
  if (reduce) {
    h_incl = kogge_stone<OP_SUM, unsigned>(mask, my_heads, WK_WARP_SIZE);
    e_incl = kogge_stone<OP_SUM, unsigned>(mask, my_ends, WK_WARP_SIZE);
    if (ln == WK_WARP_SIZE - 1) {
      warp_heads[w] = h_incl;
      warp_ends[w] = e_incl;
    }
  }
  __syncthreads();
  if (t < WK_LOGICAL_GROUP) {
    unsigned f = t < kGroups ? group_totf[t] : 0;
    const A x = t < kGroups ? group_tot[t] : O::identity();
    const A u = seg_kogge_stone<OP, A>(mask & low_lanes(WK_LOGICAL_GROUP), x, &f, kGroups);
    if (t < kGroups) {
      group_incl[t] = u;
      group_inclf[t] = f;
    }
  }
  __syncthreads();

  // 3-4. Thread prefix P_t = E_g + (w_prev) and the local inclusive values L_k = P_t + s_k.
  const A e_g = g == 0 ? O::identity() : group_incl[g - 1];
  const unsigned e_f = g == 0 ? 0 : group_inclf[g - 1];
  const A p = gl == 0 || wf_prev ? (gl == 0 ? e_g : w_prev) : O::combine(e_g, w_prev);
  // A head in the tile before this thread: then no item of it takes the tile prefix X.
  unsigned pf = e_f | (gl == 0 ? 0 : wf_prev);
  unsigned seen = 0;  // a head among items 0 .. k of this thread
#pragma unroll
  for (unsigned i = 0; i < kItems; ++i) {
    seen |= (hb >> i) & 1;
    if (!seen) s[i] = O::combine(p, s[i]);
  }
  if (t == kThreads - 1) s_agg = s[kItems - 1];
  // The local values wait in this warp's shared memory (its own slots, which only this thread
  // read since the last barrier) while the first warp looks back, as in device_scan.cu.
#pragma unroll
  for (unsigned i = 0; i < kItems; ++i) mine[i] = s[i];
  unsigned h_rank = 0, e_rank = 0, count = 0;
  if (reduce) {
    h_rank = h_incl - my_heads;
    e_rank = e_incl - my_ends;
    for (unsigned i = 0; i < kWarps; ++i) {
      if (i < w) {
        h_rank += warp_heads[i];
        e_rank += warp_ends[i];
      }
      count += warp_heads[i];
    }
  }
  const bool tile_head = group_inclf[kGroups - 1] != 0;
  // What each thread needs after the look-back waits in shared memory, not in registers,
  // while the first warp looks back: held across it, ptxas spilled sixteen words a thread to
  // local memory at 40 registers (f32 Sum; every thread stored and reloaded them). Ranks are
  // below 2^13 (a tile has 4096 items).
  park_bits[t] = hb | (eb << kItems);
  park_ranks[t] = h_rank | (e_rank << 14) | (pf << 30);
  __syncthreads();

  // 5. The tile prefix X (tile > 0) by look-back, unless the tile starts with a head; a tile
  // with a head publishes its inclusive value first, which nothing before it can change.
  if (t < WK_WARP_SIZE) {
    const A agg = s_agg;
    A x = O::identity();
    uint64_t x0 = 0;
    if (tile == 0 || tile_head) {
      if (t == 0) status.publish(tile, kStatusInclusive, agg);
    } else if (t == 0) {
      status.publish(tile, kStatusAggregate, agg);
    }
    if (tile != 0 && !s_starts) x = look_back<OP, A>(status, tile, stash, stash_flags);
    if (t == 0 && tile != 0 && !tile_head)
      status.publish(tile, kStatusInclusive, O::combine(x, agg));
    if (reduce) {
      if (tile == 0) {
        if (t == 0) counts.publish(0, kStatusInclusive, count);
      } else {
        if (t == 0) counts.publish(tile, kStatusAggregate, count);
        // No second sleep after the values' look-back (look_back.h, kLookBackDelayNs).
        x0 = look_back<OP_SUM, uint64_t>(counts, tile, (uint64_t*)nullptr, (unsigned*)nullptr,
                                         s_starts != 0u);
        if (t == 0) counts.publish(tile, kStatusInclusive, x0 + count);
      }
    }
    if (t == 0) {
      s_prefix = x;
      s_offset = x0;
    }
  }
  __syncthreads();
  {
    // Reloaded after the look-back (see park_bits).
    const unsigned bits = park_bits[t], ranks = park_ranks[t];
    hb = bits & ((1u << kItems) - 1);
    eb = bits >> kItems;
    h_rank = ranks & ((1u << 14) - 1);
    e_rank = (ranks >> 14) & ((1u << 14) - 1);
    pf = ranks >> 30;
  }
  const uint64_t tile_r = s_tile;
  const uint64_t wbase_r = tile_r * WK_SCAN_TILE + (uint64_t)w * kWarpTileItems;
  const A x = s_prefix;
  seen = 0;
#pragma unroll
  for (unsigned i = 0; i < kItems; ++i) {
    seen |= (hb >> i) & 1;
    const A l = mine[i];
    s[i] = pf || seen || tile_r == 0 ? l : O::combine(x, l);
  }

  if (reduce) {
    // The tile's heads are runs offset .. offset + count - 1: their keys are read again (this
    // thread read them at the start: cached), not kept in registers across the look-back. The
    // runs' values wait in `items` (which every thread has read) by end rank,
    // then go out in order; the tile's first end closes run offset - 1 when the tile continues
    // a run.
    const uint64_t offset = s_offset;
    unsigned tile_heads = 0, tile_ends = 0;
    for (unsigned i = 0; i < kWarps; ++i) {
      tile_heads += warp_heads[i];
      tile_ends += warp_ends[i];
    }
    __syncthreads();
#pragma unroll
    for (unsigned i = 0; i < kItems; ++i) {
      if ((hb >> i) & 1) keys_out[offset + h_rank++] = keys[wbase_r + (uint64_t)ln * kItems + i];
      if ((eb >> i) & 1) items[e_rank++] = s[i];
    }
    __syncthreads();
    const uint64_t first_slot = s_starts ? offset : offset - 1;
    for (unsigned r = t; r < tile_ends; r += kThreads) out[first_slot + r] = from_acc<T>(items[r]);
    if (tile_r == (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE - 1 && t == 0) *total = offset + tile_heads;
    return;
  }

  // Scans: the final values go back through this warp's shared memory (it read only its own
  // threads' slots since the last barrier), then out coalesced; exclusive writes e + 1.
#pragma unroll
  for (unsigned i = 0; i < kItems; ++i) {
    const A v = mode == kModeExclusive && ((eb >> i) & 1) ? O::identity() : s[i];
    mine[i] = v;
  }
  syncwarp(NATIVE, mask);
  const bool excl = mode == kModeExclusive;
  if (!excl && wbase_r + kWarpTileItems <= n) {
    const auto row = wsm + P::at(ln);
#pragma unroll
    for (unsigned i = 0; i < kItems; ++i)
      out[wbase_r + i * WK_WARP_SIZE + ln] = from_acc<T>(row[P::rows(i)]);
    return;
  }
#pragma unroll
  for (unsigned i = 0; i < kItems; ++i) {
    const unsigned idx = i * WK_WARP_SIZE + ln;
    const uint64_t e = wbase_r + idx;
    if (excl) {
      if (e + 1 < n) out[e + 1] = from_acc<T>(wsm[P::at(idx)]);
      if (e == 0) out[0] = from_acc<T>(O::identity());
    } else if (e < n) {
      out[e] = from_acc<T>(wsm[P::at(idx)]);
    }
  }
}

}  // namespace

uint64_t by_key_scratch(uint32_t elem_size, uint64_t n) {
  const uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  return status_bytes(elem_size, tiles) + round_up(CountStatus::bytes(tiles));
}

int by_key_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t key_dtype,
                  uint32_t dtype, uint32_t op, uint32_t mode, const void* keys, const void* vals,
                  uint64_t n, void* scratch, uint64_t scratch_bytes, void* out, void* keys_out,
                  uint64_t* count) {
  return by_key_shaped(stream, st, warp_size, key_dtype, dtype, op, mode, keys, vals, n,
                       scratch, scratch_bytes, out, keys_out, count, TileShape{}, 1);
}

int by_key_tagged_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t key_dtype,
                         uint32_t dtype, uint32_t op, uint32_t mode, const void* keys,
                         const void* vals, uint64_t n, void* scratch, uint64_t scratch_bytes,
                         uint32_t tag, void* out, void* keys_out, uint64_t* count) {
  return by_key_shaped(stream, st, warp_size, key_dtype, dtype, op, mode, keys, vals, n,
                       scratch, scratch_bytes, out, keys_out, count, TileShape{}, tag);
}

int by_key_shaped(void* stream, wk_status* st, uint32_t warp_size, uint32_t key_dtype,
                  uint32_t dtype, uint32_t op, uint32_t mode, const void* keys,
                  const void* vals, uint64_t n, void* scratch, uint64_t scratch_bytes,
                  void* out, void* keys_out, uint64_t* count, TileShape shape, uint32_t tag) {
  unsigned blocks = shape_code(shape);
  const bool known = mode == kModeInclusive || mode == kModeExclusive || mode == kModeReduce;
  if (!known || (mode == kModeReduce) != (count != nullptr)) return WK_ERR_ARG;
  if (!tag_ok(tag)) return WK_ERR_ARG;
  host::stream_t hs = as_stream(stream);
  // Empty buffers may have no address: only the count is written.
  if (n == 0) {
    if (mode == kModeReduce) return host::memset_async(count, 0, sizeof(uint64_t), hs);
    return WK_OK;
  }
  if (mode == kModeReduce && keys_out == nullptr) return WK_ERR_ARG;
  const uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  // Run counts are published in CountStatus words.
  if (tiles > 0x7fffffffull || n >= kCountLimit) return WK_ERR_ARG;
  // The kernel sees only the keys' bits and, for float keys, the bits of +infinity.
  uint32_t key_size = 0;
  with_dtype_io(key_dtype, [&](auto kt) {
    key_size = (uint32_t)sizeof(typename decltype(kt)::type);
    return WK_OK;
  });
  const uint64_t key_inf = key_dtype == DT_F32    ? 0x7f800000ull
                           : key_dtype == DT_F64  ? 0x7ff0000000000000ull
                           : key_dtype == DT_F16  ? (uint64_t)HalfBits<wk_f16>::kInf
                           : key_dtype == DT_BF16 ? (uint64_t)HalfBits<wk_bf16>::kInf
                                                  : 0;
  if (key_size == 0) return WK_ERR_DTYPE;
  return with_dtype_io(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    typedef typename Elem<T>::Acc A;
    if (scratch_bytes < by_key_scratch(sizeof(A), n)) return WK_ERR_SCRATCH;
    char* s = (char*)scratch;
    unsigned* counter = (unsigned*)s;
    typename StatusFor<A>::type status;
    const uint64_t zeroed = status_layout<A>(s, tiles, &status);
    const uint64_t sb = status_bytes(sizeof(A), tiles);
    CountStatus counts;
    counts.words = (unsigned long long*)(s + sb);
    status.tag = counts.tag = tag;
    // The counter, the value statuses' flags and the head counts (tag 1; later tags find what
    // earlier calls left and take it for unpublished).
    if (tag == 1) {
      int rc = host::memset_async(s, 0, zeroed, hs);
      if (!rc) rc = host::memset_async(s + sb, 0, round_up(CountStatus::bytes(tiles)), hs);
      if (rc) return rc;
    }
    return with_op<T>(op, [&](auto ot) {
      const int O = decltype(ot)::value;
      typedef typename StatusFor<A>::type S;
#define WK_BY_KEY_LAUNCH(KB, ...)                                                            \
  WK_LAUNCH((unsigned)tiles, kThreads, 0, hs, by_key_scan<O, T, KB, S __VA_ARGS__>)(         \
      st, warp_size, (const KB*)keys, key_inf, (const T*)vals, n, mode, counter, status,      \
      counts, (T*)out, (KB*)keys_out, (unsigned long long*)count)
      // blocks (the bench's neighbours of the default, f32 Sum over u32 keys only): 5 or 8
      // blocks an SM; anything else the default.
      if constexpr (std::is_same<T, float>::value && O == OP_SUM) {
        if (key_size == 4 && (blocks == 5 || blocks == 8)) {
          if (blocks == 5)
            WK_BY_KEY_LAUNCH(uint32_t, , 5);
          else
            WK_BY_KEY_LAUNCH(uint32_t, , 8);
          return host::launch_error();
        }
      }
      if (key_size == 2)
        WK_BY_KEY_LAUNCH(uint16_t);
      else if (key_size == 4)
        WK_BY_KEY_LAUNCH(uint32_t);
      else
        WK_BY_KEY_LAUNCH(uint64_t);
#undef WK_BY_KEY_LAUNCH
      return host::launch_error();
    });
  });
}

}  // namespace WK_NS
