// reduce_by_key and scan_by_key (docs/SEMANTICS.md "by_key"): the device scan's tiles over pairs
// (head, value) with the segmented operator (fa, a) + (fb, b) = (fa | fb, fb ? b : op(a, b)).
//
// Two launches. by_key_heads turns the keys into one bit a key (1: the key starts a run), with
// a sentinel bit at n so that "e ends a run" is simply "e + 1 starts one"; only this kernel
// knows the key type, so the scan below is compiled per value type and op, as device_scan is.
// by_key_scan then scans tiles of 256 threads x 16 items as device_scan.cu does, each thread's
// head bits in a register. The tile prefix uses the scan's look-back unchanged: a tile with a
// head publishes its inclusive value (from its last head on) at once, since the operator drops
// everything before a head; a tile without one publishes its aggregate, then its inclusive
// prefix, and the look-back's left fold from the nearest inclusive prefix is the pair fold. A
// reduce also looks back over head counts (runs.cu's way) for each run's output slot.
#include "device.h"
#include "look_back.h"

namespace WK_NS {
using namespace prims;

namespace {

const unsigned kThreads = WK_SCAN_TILE_THREADS;
const unsigned kItems = WK_SCAN_ITEMS_PER_THREAD;
const unsigned kGroups = WK_SCAN_TILE_THREADS / WK_LOGICAL_GROUP;
const unsigned kWarps = WK_SCAN_TILE_THREADS / WK_WARP_SIZE;
const unsigned kWarpItems = WK_WARP_SIZE * kItems;
const unsigned kHeadBits = 32;  // bits of one head word (a uint32_t, not a lane count)

const uint32_t kModeInclusive = 0;
const uint32_t kModeExclusive = 1;
const uint32_t kModeReduce = 2;

// Head words for n keys: bits 0 .. n (the sentinel), and one more word so a tile's last thread
// may read the word after its own.
uint64_t head_words(uint64_t n) {
  const uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  return tiles * WK_SCAN_TILE / kHeadBits + 1;
}

// One thread a position 0 .. n: bit e of `heads` is set when key e starts a run (e == 0 or
// keys[e] != keys[e - 1], IEEE for floats) or e == n. Each logical group's ballot is one word.
template <typename K>
__global__ void __launch_bounds__(kBlock)
    by_key_heads(const K* keys, uint64_t n, uint64_t words, uint32_t* heads) {
  const uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  bool h = e == n;
  if (e < n) h = e == 0 || !(keys[e] == keys[e - 1]);
  const unsigned ln = lane();
  const wk_lanemask_t all = block_warp_lanes();
  const wk_lanemask_t b = arch::ballot_sync(all, h);
  const unsigned g = ln - ln % kHeadBits;
  if (ln == g && e / kHeadBits < words) heads[e / kHeadBits] = (uint32_t)(b >> g);
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

template <int OP, typename T, typename Status>
__global__ void __launch_bounds__(WK_SCAN_TILE_THREADS)
    by_key_scan(wk_status* st, uint32_t warp_size, const uint32_t* heads, const T* in,
                uint64_t n, uint32_t mode, unsigned* counter, Status status, CountStatus counts,
                T* out, const void* keys, uint32_t key_size, void* keys_out,
                unsigned long long* total) {
  typedef Op<OP, T> O;
  typedef Pad<T> P;
  const unsigned kWarpSlots = kWarpItems + kWarpItems / P::every;
  WK_SHARED(T, items, kWarps * kWarpSlots);
  WK_SHARED(T, group_tot, kGroups);
  WK_SHARED(unsigned, group_totf, kGroups);
  WK_SHARED(T, group_incl, kGroups);
  WK_SHARED(unsigned, group_inclf, kGroups);
  WK_SHARED(T, stash, StashFor<T>::size);
  WK_SHARED(unsigned, stash_flags, StashFor<T>::flags);
  WK_SHARED(unsigned, warp_heads, kWarps);
  WK_SHARED_VAR(T, s_agg);
  WK_SHARED_VAR(T, s_prefix);
  WK_SHARED_VAR(uint64_t, s_offset);
  WK_SHARED_VAR(unsigned, s_tile);
  if (!width_ok(st, warp_size)) return;
  const unsigned t = threadIdx.x;
  if (t == 0) s_tile = atomicAdd(counter, 1u);
  __syncthreads();
  const uint64_t tile = s_tile;
  const uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  const unsigned ln = lane();
  const unsigned w = t / WK_WARP_SIZE;
  const auto wsm = items + w * kWarpSlots;
  const uint64_t wbase = tile * WK_SCAN_TILE + (uint64_t)w * kWarpItems;
  const wk_lanemask_t mask = block_warp_lanes();

  // Values: each warp its 16 x W consecutive ones, coalesced, through shared memory.
  if (wbase + kWarpItems <= n) {
    T x[kItems];
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) x[k] = in[wbase + k * WK_WARP_SIZE + ln];
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) wsm[P::at(k * WK_WARP_SIZE + ln)] = x[k];
  } else {
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) {
      const unsigned idx = k * WK_WARP_SIZE + ln;
      wsm[P::at(idx)] = wbase + idx < n ? in[wbase + idx] : O::identity();
    }
  }
  // This thread's head bits (items 16t .. 16t+15 of the tile) and end bits (the next key's
  // head bit: the sentinel ends the last run). Positions past n have neither.
  const uint64_t first = wbase + (uint64_t)ln * kItems;
  const uint64_t hw = first / kHeadBits;
  const unsigned off = (unsigned)(first % kHeadBits);
  const uint64_t two = (uint64_t)heads[hw] | ((uint64_t)heads[hw + 1] << kHeadBits);
  const unsigned live = first >= n ? 0 : (n - first >= kItems ? kItems : (unsigned)(n - first));
  const unsigned live_mask = (unsigned)((1ull << live) - 1);
  const unsigned hb = (unsigned)(two >> off) & live_mask;
  const unsigned eb = (unsigned)(two >> (off + 1)) & live_mask;
  syncwarp(NATIVE, mask);

  // 1. Thread-local scan of the pairs: s_k restarts at each head.
  T s[kItems];
  s[0] = wsm[P::at(ln * kItems)];
#pragma unroll
  for (unsigned k = 1; k < kItems; ++k) {
    const T x = wsm[P::at(ln * kItems + k)];
    s[k] = (hb >> k) & 1 ? x : O::combine(s[k - 1], x);
  }

  // 2. Kogge-Stone of the thread totals in each logical group, then over the group totals.
  unsigned wf = hb != 0;
  const T wv = seg_kogge_stone<OP, T>(mask, s[kItems - 1], &wf, WK_LOGICAL_GROUP);
  const T w_prev = shfl_up(mask, wv, 1, WK_LOGICAL_GROUP);
  const unsigned wf_prev = shfl_up(mask, wf, 1, WK_LOGICAL_GROUP);
  const unsigned g = t / WK_LOGICAL_GROUP;
  const unsigned gl = t % WK_LOGICAL_GROUP;
  if (gl == WK_LOGICAL_GROUP - 1) {
    group_tot[g] = wv;
    group_totf[g] = wf;
  }
  // Head counts for a reduce's output slots (runs.cu's way).
  const unsigned mine = __popc(hb);
  const unsigned hincl = mode == kModeReduce ? kogge_stone<OP_SUM, unsigned>(mask, mine, WK_WARP_SIZE) : 0;
  if (ln == WK_WARP_SIZE - 1) warp_heads[w] = hincl;
  __syncthreads();
  if (t < WK_LOGICAL_GROUP) {
    unsigned f = t < kGroups ? group_totf[t] : 0;
    const T x = t < kGroups ? group_tot[t] : O::identity();
    const T u = seg_kogge_stone<OP, T>(mask & low_lanes(WK_LOGICAL_GROUP), x, &f, kGroups);
    if (t < kGroups) {
      group_incl[t] = u;
      group_inclf[t] = f;
    }
  }
  __syncthreads();

  // 3-4. Thread prefix P_t = E_g + (w_prev) and the local inclusive values L_k = P_t + s_k.
  const T e_g = g == 0 ? O::identity() : group_incl[g - 1];
  const unsigned e_f = g == 0 ? 0 : group_inclf[g - 1];
  const T p = gl == 0 || wf_prev ? (gl == 0 ? e_g : w_prev) : O::combine(e_g, w_prev);
  // A head in the tile before this thread: then no item of it takes the tile prefix X.
  const unsigned pf = e_f | (gl == 0 ? 0 : wf_prev);
  unsigned seen = 0;  // a head among items 0 .. k of this thread
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) {
    seen |= (hb >> k) & 1;
    if (!seen) s[k] = O::combine(p, s[k]);
  }
  if (t == kThreads - 1) s_agg = s[kItems - 1];
  unsigned rank = 0, count = 0;
  if (mode == kModeReduce) {
    rank = hincl - mine;
    for (unsigned i = 0; i < kWarps; ++i) {
      if (i < w) rank += warp_heads[i];
      count += warp_heads[i];
    }
  }
  const bool tile_head = group_inclf[kGroups - 1] != 0;
  __syncthreads();

  // 5. The tile prefix X (tile > 0) by look-back, unless the tile starts with a head; a tile
  // with a head publishes its inclusive value first, which nothing before it can change.
  if (t < WK_WARP_SIZE) {
    const T agg = s_agg;
    T x = O::identity();
    uint64_t x0 = 0;
    if (tile == 0 || tile_head) {
      if (t == 0) status.publish(tile, kStatusInclusive, agg);
    } else if (t == 0) {
      status.publish(tile, kStatusAggregate, agg);
    }
    const bool starts = (heads[tile * WK_SCAN_TILE / kHeadBits] & 1) != 0;
    if (tile != 0 && !starts) x = look_back<OP, T>(status, tile, stash, stash_flags);
    if (t == 0 && tile != 0 && !tile_head) status.publish(tile, kStatusInclusive, O::combine(x, agg));
    if (mode == kModeReduce) {
      if (tile == 0) {
        if (t == 0) counts.publish(0, kStatusInclusive, count);
      } else {
        if (t == 0) counts.publish(tile, kStatusAggregate, count);
        x0 = look_back<OP_SUM, uint64_t>(counts, tile, (uint64_t*)nullptr, (unsigned*)nullptr);
        if (t == 0) counts.publish(tile, kStatusInclusive, x0 + count);
      }
    }
    if (t == 0) {
      s_prefix = x;
      s_offset = x0;
    }
  }
  __syncthreads();

  if (mode == kModeReduce) {
    // A run's key at its head, its value at its end: slot offset + (heads up to here) - 1.
    const uint64_t offset = s_offset;
    const T x = s_prefix;
    unsigned upto = rank;
    seen = 0;
    for (unsigned k = 0; k < kItems; ++k) {
      const uint64_t e = first + k;
      if ((hb >> k) & 1) {
        if (key_size == 4)
          ((uint32_t*)keys_out)[offset + upto] = ((const uint32_t*)keys)[e];
        else
          ((uint64_t*)keys_out)[offset + upto] = ((const uint64_t*)keys)[e];
        ++upto;
      }
      seen |= (hb >> k) & 1;
      if ((eb >> k) & 1) {
        const T v = pf || seen || tile == 0 ? s[k] : O::combine(x, s[k]);
        out[offset + upto - 1] = v;
      }
    }
    if (tile == tiles - 1 && t == 0) *total = offset + count;
    return;
  }

  // Scans: the final values go back through this warp's shared memory (it read only its own
  // threads' slots since the last barrier), then out coalesced; exclusive writes e + 1.
  const T x = s_prefix;
  seen = 0;
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) {
    seen |= (hb >> k) & 1;
    T v = pf || seen || tile == 0 ? s[k] : O::combine(x, s[k]);
    if (mode == kModeExclusive && ((eb >> k) & 1)) v = O::identity();
    wsm[P::at(ln * kItems + k)] = v;
  }
  syncwarp(NATIVE, mask);
  const bool excl = mode == kModeExclusive;
  if (!excl && wbase + kWarpItems <= n) {
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k)
      out[wbase + k * WK_WARP_SIZE + ln] = wsm[P::at(k * WK_WARP_SIZE + ln)];
    return;
  }
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) {
    const unsigned idx = k * WK_WARP_SIZE + ln;
    const uint64_t e = wbase + idx;
    if (excl) {
      if (e + 1 < n) out[e + 1] = wsm[P::at(idx)];
      if (e == 0) out[0] = O::identity();
    } else if (e < n) {
      out[e] = wsm[P::at(idx)];
    }
  }
}

}  // namespace

uint64_t by_key_scratch(uint32_t elem_size, uint64_t n) {
  const uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  return status_bytes(elem_size, tiles) + round_up(CountStatus::bytes(tiles)) +
         round_up(head_words(n) * sizeof(uint32_t));
}

int by_key_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t key_dtype,
                  uint32_t dtype, uint32_t op, uint32_t mode, const void* keys, const void* vals,
                  uint64_t n, void* scratch, uint64_t scratch_bytes, void* out, void* keys_out,
                  uint64_t* count) {
  if (mode > kModeReduce || (mode == kModeReduce) != (count != nullptr)) return WK_ERR_ARG;
  host::stream_t hs = as_stream(stream);
  // Empty buffers may have no address: only the count is written.
  if (n == 0) {
    if (mode == kModeReduce) return host::memset_async(count, 0, sizeof(uint64_t), hs);
    return WK_OK;
  }
  if (mode == kModeReduce && keys_out == nullptr) return WK_ERR_ARG;
  const uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  if (tiles > 0x7fffffffull) return WK_ERR_ARG;
  return with_dtype(key_dtype, [&](auto ktag) {
    typedef typename decltype(ktag)::type K;
    return with_dtype(dtype, [&](auto tt) {
      typedef typename decltype(tt)::type T;
      if (scratch_bytes < by_key_scratch(sizeof(T), n)) return WK_ERR_SCRATCH;
      char* s = (char*)scratch;
      unsigned* counter = (unsigned*)s;
      typename StatusFor<T>::type status;
      const uint64_t zeroed = status_layout<T>(s, tiles, &status);
      const uint64_t sb = status_bytes(sizeof(T), tiles);
      CountStatus counts;
      counts.words = (unsigned long long*)(s + sb);
      uint32_t* heads = (uint32_t*)(s + sb + round_up(CountStatus::bytes(tiles)));
      // The counter, the value statuses' flags, the head counts and the head words (the last
      // ones past the sentinel are read as zeros).
      int rc = host::memset_async(s, 0, zeroed, hs);
      if (!rc)
        rc = host::memset_async(s + sb, 0,
                                round_up(CountStatus::bytes(tiles)) +
                                    round_up(head_words(n) * sizeof(uint32_t)),
                                hs);
      if (rc) return rc;
      unsigned grid;
      if (!grid_for(n + 1, kBlock, &grid)) return WK_ERR_ARG;
      WK_LAUNCH(grid, kBlock, 0, hs, by_key_heads<K>)((const K*)keys, n, head_words(n), heads);
      rc = host::launch_error();
      if (rc) return rc;
      return with_op<T>(op, [&](auto ot) {
        const int O = decltype(ot)::value;
        typedef typename StatusFor<T>::type S;
        WK_LAUNCH((unsigned)tiles, kThreads, 0, hs, by_key_scan<O, T, S>)(
            st, warp_size, heads, (const T*)vals, n, mode, counter, status, counts, (T*)out,
            keys, (uint32_t)sizeof(K), keys_out, (unsigned long long*)count);
        return host::launch_error();
      });
    });
  });
}

}  // namespace WK_NS
