// Seed 000's warp-aggregated atomics (atomicAggInc), count_if, compaction and histogram.
#include "device.h"
#include "lookback.h"

namespace WK_NS {
using namespace prims;

namespace {

// Lanes with the same slot (match_any) elect the lowest as leader, which adds the group's size
// once; ranks within the group follow lane order.
__global__ void agg_inc_kernel(wk_status* st, uint32_t warp_size, int impl, const uint32_t* slots,
                               uint64_t n, uint32_t* counters, uint64_t ncounters,
                               uint32_t* olds) {
  if (!width_ok(st, warp_size)) return;
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  wk_lanemask_t live = live_lanes(t / WK_WARP_SIZE, n);
  uint32_t slot = slots[t];
  bool valid = slot < ncounters;
  if (!valid) report(st, WK_ERR_INDEX, (t << 32) | slot);
  wk_lanemask_t members = arch::ballot_sync(live, valid);
  if (!valid) return;
  wk_lanemask_t group = match_any_sync(impl, members, slot);
  unsigned leader = (unsigned)arch::lowest_lane(group);
  uint32_t old = 0;
  if (lane() == leader) old = atomicAdd(counters + slot, (uint32_t)arch::popc(group));
  old = shfl_idx(group, old, leader, WK_WARP_SIZE);
  olds[t] = old + (uint32_t)arch::popc(group & arch::lanemask_lt());
}

// count_if: 16-byte loads, four in flight per thread, counts summed per thread, then per warp
// (shuffles), then one atomic per block: at most kMaxGrid global atomics per call.
template <typename T>
__global__ void __launch_bounds__(kBlock)
    count_if_kernel(uint32_t pred, uint64_t a, uint64_t b, const T* in, uint64_t n,
                    unsigned long long* out) {
  WK_SHARED(unsigned, warp_count, kBlock / WK_WARP_SIZE);
  const unsigned V = 16 / sizeof(T);
  const unsigned kUnroll = 4;
  T va = from_bits<T>((typename Elem<T>::U)a);
  T vb = from_bits<T>((typename Elem<T>::U)b);
  const bool vec_ok = ((uintptr_t)in % 16) == 0;
  const uint64_t nvec = vec_ok ? n / V : 0;
  const uint4* p = reinterpret_cast<const uint4*>(in);
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  const uint64_t tid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned mine = 0;
  uint64_t i = tid;
  for (; i + (kUnroll - 1) * stride < nvec; i += kUnroll * stride) {
    uint4 r[kUnroll];
#pragma unroll
    for (unsigned u = 0; u < kUnroll; ++u) r[u] = p[i + u * stride];
#pragma unroll
    for (unsigned u = 0; u < kUnroll; ++u) {
      T x[V];
      __builtin_memcpy(x, &r[u], sizeof(r[u]));
#pragma unroll
      for (unsigned s = 0; s < V; ++s) mine += eval_pred(pred, x[s], va, vb) ? 1 : 0;
    }
  }
  for (; i < nvec; i += stride) {
    uint4 r = p[i];
    T x[V];
    __builtin_memcpy(x, &r, sizeof(r));
#pragma unroll
    for (unsigned s = 0; s < V; ++s) mine += eval_pred(pred, x[s], va, vb) ? 1 : 0;
  }
  for (uint64_t e = nvec * V + tid; e < n; e += stride) mine += eval_pred(pred, in[e], va, vb) ? 1 : 0;
  mine = bfly<OP_SUM, unsigned>(WK_FULL_MASK, mine, WK_WARP_SIZE);
  if (lane() == 0) warp_count[threadIdx.x / WK_WARP_SIZE] = mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long total = 0;
    for (unsigned w = 0; w < kBlock / WK_WARP_SIZE; ++w) total += warp_count[w];
    if (total) atomicAdd(out, total);
  }
}

const unsigned kThreads = WK_SCAN_TILE_THREADS;
const unsigned kItems = WK_SCAN_ITEMS_PER_THREAD;
const unsigned kWarps = WK_SCAN_TILE_THREADS / WK_WARP_SIZE;

// Compaction in one pass over tiles of 256 threads x 16 consecutive items (loaded through padded
// shared memory, coalesced): each thread flags its items, the block scans the per-thread counts,
// the tile's output offset comes from a decoupled look-back over tile counts (STABLE: input
// order is kept) or from one atomic per tile (unordered: tiles land in arrival order, each
// tile's items in order), and the selected items are staged in shared memory at their rank
// and written out coalesced. Tiles are numbered in the order blocks start.
template <typename T, bool STABLE>
__global__ void __launch_bounds__(WK_SCAN_TILE_THREADS)
    compact_kernel(wk_status* st, uint32_t warp_size, uint32_t pred, uint64_t a, uint64_t b,
                   const T* in, uint64_t n, unsigned* counter, CountStatus status, T* out,
                   unsigned long long* total) {
  WK_SHARED(T, items, Pad<T>::size);
  WK_SHARED(unsigned, warp_tot, kWarps);
  WK_SHARED_VAR(uint64_t, s_offset);
  WK_SHARED_VAR(unsigned, s_tile);
  if (!width_ok(st, warp_size)) return;
  const unsigned t = threadIdx.x;
  if (t == 0) s_tile = STABLE ? atomicAdd(counter, 1u) : blockIdx.x;
  __syncthreads();
  const uint64_t tile = s_tile;
  const uint64_t base = tile * WK_SCAN_TILE;
  const uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  T va = from_bits<T>((typename Elem<T>::U)a);
  T vb = from_bits<T>((typename Elem<T>::U)b);

  // Each warp loads its own 16 x 32 consecutive items through its part of `items` (coalesced,
  // no block barrier); thread t then holds items 16t .. 16t+15 of the tile.
  const unsigned ln = lane();
  const unsigned kWarpItems = WK_WARP_SIZE * kItems;
  const unsigned kWarpSlots = kWarpItems + kWarpItems / Pad<T>::every;
  const auto wsm = items + (t / WK_WARP_SIZE) * kWarpSlots;
  const uint64_t wbase = base + (uint64_t)(t / WK_WARP_SIZE) * kWarpItems;
  if (wbase + kWarpItems <= n) {
    T x[kItems];
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) x[k] = in[wbase + k * WK_WARP_SIZE + ln];
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) wsm[Pad<T>::at(k * WK_WARP_SIZE + ln)] = x[k];
  } else {
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) {
      const unsigned idx = k * WK_WARP_SIZE + ln;
      if (wbase + idx < n) wsm[Pad<T>::at(idx)] = in[wbase + idx];
    }
  }
  syncwarp(NATIVE, block_warp_lanes());

  T x[kItems];
  unsigned sel = 0;
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) {
    x[k] = wsm[Pad<T>::at(ln * kItems + k)];
    if (base + t * kItems + k < n && eval_pred(pred, x[k], va, vb)) sel |= 1u << k;
  }
  const unsigned mine = __popc(sel);
  const wk_lanemask_t mask = block_warp_lanes();
  const unsigned incl = kogge_stone<OP_SUM, unsigned>(mask, mine, WK_WARP_SIZE);
  const unsigned w = t / WK_WARP_SIZE;
  if (lane() == WK_WARP_SIZE - 1) warp_tot[w] = incl;
  __syncthreads();
  unsigned rank = incl - mine;
  unsigned count = 0;
  for (unsigned i = 0; i < kWarps; ++i) {
    if (i < w) rank += warp_tot[i];
    count += warp_tot[i];
  }

  if (STABLE) {
    if (tile == 0) {
      if (t == 0) {
        status.publish(0, kStatusInclusive, count);
        s_offset = 0;
      }
    } else if (t < WK_WARP_SIZE) {
      if (t == 0) status.publish(tile, kStatusAggregate, count);
      uint64_t x0 = look_back<OP_SUM, uint64_t>(status, tile, (uint64_t*)nullptr, (unsigned*)nullptr);
      if (t == 0) {
        status.publish(tile, kStatusInclusive, x0 + count);
        s_offset = x0;
      }
    }
  } else if (t == 0) {
    s_offset = count ? atomicAdd(total, (unsigned long long)count) : 0;
  }
  // Every read of `items` above is before this barrier; the staging below reuses it.
  __syncthreads();
  const uint64_t offset = s_offset;
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) {
    if (sel & (1u << k)) items[Pad<T>::at(rank++)] = x[k];
  }
  __syncthreads();
  for (unsigned r = t; r < count; r += kThreads) out[offset + r] = items[Pad<T>::at(r)];
  if (STABLE && tile == tiles - 1 && t == 0) *total = offset + count;
}

// Histogram of keys (keys at or past `bins` land in out[bins]), four keys per 16-byte load.
// Each key is added by one of three methods, all giving the same counts:
//   HIST_PLAIN     one atomic per key;
//   HIST_MATCH     warp-aggregated: lanes holding the same bin (match_any) elect the lowest,
//                  which adds the group's size once;
//   HIST_ADAPTIVE  every 16th round a warp aggregates and counts its distinct bins; while
//                  they are many (little to aggregate, uniform input) it adds plainly, so
//                  uniform input pays almost nothing for the match and skewed input gains.
// Small histograms count in shared memory first (SHARED), then add to the global counts.
// HIST_GLOBAL is HIST_PLAIN without the shared-memory counts: the naive baseline.
enum HistMode { HIST_PLAIN = 0, HIST_MATCH = 1, HIST_ADAPTIVE = 2, HIST_GLOBAL = 3 };

template <int MODE, bool SHARED>
__global__ void __launch_bounds__(kBlock)
    histogram_kernel(const uint32_t* keys, uint64_t n, uint32_t bins, unsigned long long* out) {
  WK_DYNAMIC_SHARED(unsigned, local);
  if (SHARED) {
    for (unsigned i = threadIdx.x; i <= bins; i += blockDim.x) local[i] = 0;
    __syncthreads();
  }
  auto add = [&](uint32_t bin, unsigned c) {
    if (SHARED)
      atomicAdd(local + bin, c);
    else
      atomicAdd(out + bin, (unsigned long long)c);
  };
  const bool vec_ok = ((uintptr_t)keys % 16) == 0;
  const uint64_t nvec = vec_ok ? n / 4 : 0;
  const uint4* p = reinterpret_cast<const uint4*>(keys);
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  const uint64_t tid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  // Warps iterate in step (the trip count is uniform per warp) so every lane can vote.
  const uint64_t warp_first = tid - lane();
  unsigned round = 0;
  bool aggregate = MODE == HIST_MATCH;
  for (uint64_t w0 = warp_first; w0 < nvec; w0 += stride) {
    const uint64_t i = w0 + lane();
    const bool valid = i < nvec;
    uint4 r = valid ? p[i] : make_uint4(0, 0, 0, 0);
    uint32_t k4[4] = {r.x, r.y, r.z, r.w};
    const wk_lanemask_t live = arch::ballot_sync(WK_FULL_MASK, valid);
#pragma unroll
    for (unsigned s = 0; s < 4; ++s) {
      const uint32_t bin = k4[s] < bins ? k4[s] : bins;
      if (MODE == HIST_PLAIN) {
        if (valid) add(bin, 1);
        continue;
      }
      const bool probe = MODE == HIST_ADAPTIVE && (round & 15) == 0;
      ++round;
      if (!valid) continue;
      if (aggregate || probe) {
        const wk_lanemask_t peers = match_any_sync(NATIVE, live, bin);
        const bool leader = (unsigned)arch::lowest_lane(peers) == lane();
        if (probe) {
          const unsigned distinct = arch::popc(arch::ballot_sync(live, leader));
          aggregate = distinct * 4 <= (unsigned)arch::popc(live) * 3;
        }
        if (leader) add(bin, (unsigned)arch::popc(peers));
      } else {
        add(bin, 1);
      }
    }
  }
  for (uint64_t e = nvec * 4 + tid; e < n; e += stride) {
    uint32_t k = keys[e];
    add(k < bins ? k : bins, 1);
  }
  if (SHARED) {
    __syncthreads();
    for (unsigned i = threadIdx.x; i <= bins; i += blockDim.x)
      if (local[i]) atomicAdd(out + i, (unsigned long long)local[i]);
  }
}

const unsigned kMaxGrid = 4096;
const uint32_t kSharedBins = 8191;

unsigned strided_grid(uint64_t n) {
  uint64_t g = (n + kBlock - 1) / kBlock;
  return (unsigned)(g < kMaxGrid ? (g ? g : 1) : kMaxGrid);
}

}  // namespace

uint64_t compact_scratch(uint64_t n) {
  uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  return 256 + round_up(CountStatus::bytes(tiles));
}

int agg_inc_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t impl,
                   const uint32_t* slots, uint64_t n, uint32_t* counters, uint64_t ncounters,
                   uint32_t* olds) {
  unsigned grid;
  if (n >= (1ull << 32) || !grid_for(n, kBlock, &grid)) return WK_ERR_ARG;
  WK_LAUNCH(grid, kBlock, 0, as_stream(stream), agg_inc_kernel)(st, warp_size, (int)impl, slots, n,
                                                        counters, ncounters, olds);
  return host::launch_error();
}

int count_if_launch(void* stream, wk_status*, uint32_t dtype, uint32_t pred, uint64_t a,
                    uint64_t b, const void* in, uint64_t n, void*, uint64_t, uint64_t* out) {
  if (pred > 6) return WK_ERR_ARG;
  int rc = host::memset_async(out, 0, sizeof(uint64_t), as_stream(stream));
  if (rc) return rc;
  return with_dtype(dtype, [&](auto tag) {
    typedef typename decltype(tag)::type T;
    WK_LAUNCH(strided_grid(n / (16 / sizeof(T))), kBlock, 0, as_stream(stream), count_if_kernel<T>)(
        pred, a, b, (const T*)in, n, (unsigned long long*)out);
    return host::launch_error();
  });
}

int compact_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype, uint32_t pred,
                   uint64_t a, uint64_t b, uint32_t stable, const void* in, uint64_t n,
                   void* scratch, uint64_t scratch_bytes, void* out, uint64_t* out_count) {
  if (pred > 6 || n == 0) return WK_ERR_ARG;
  uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  if (tiles > 0x7fffffffull) return WK_ERR_ARG;
  if (stable && scratch_bytes < compact_scratch(n)) return WK_ERR_SCRATCH;
  CountStatus status;
  unsigned* counter = (unsigned*)scratch;
  status.words = stable ? (unsigned long long*)((char*)scratch + 256) : nullptr;
  // Stable: tile numbers and statuses start at zero; the last tile writes the count.
  // Unordered: tiles reserve their output with atomics on the count.
  int rc = stable ? host::memset_async(scratch, 0, compact_scratch(n), as_stream(stream))
                  : host::memset_async(out_count, 0, sizeof(uint64_t), as_stream(stream));
  if (rc) return rc;
  return with_dtype(dtype, [&](auto tag) {
    typedef typename decltype(tag)::type T;
    if (stable)
      WK_LAUNCH((unsigned)tiles, kThreads, 0, as_stream(stream), compact_kernel<T, true>)(
          st, warp_size, pred, a, b, (const T*)in, n, counter, status, (T*)out,
          (unsigned long long*)out_count);
    else
      WK_LAUNCH((unsigned)tiles, kThreads, 0, as_stream(stream), compact_kernel<T, false>)(
          st, warp_size, pred, a, b, (const T*)in, n, counter, status, (T*)out,
          (unsigned long long*)out_count);
    return host::launch_error();
  });
}

int histogram_launch_mode(void* stream, const uint32_t* keys, uint64_t n, uint32_t bins,
                          uint64_t* out, int mode) {
  if (bins == 0) return WK_ERR_ARG;
  int rc = host::memset_async(out, 0, ((uint64_t)bins + 1) * sizeof(uint64_t), as_stream(stream));
  if (rc) return rc;
  const bool shared = bins <= kSharedBins && mode != HIST_GLOBAL;
  const size_t smem = shared ? ((size_t)bins + 1) * sizeof(unsigned) : 0;
  const unsigned grid = strided_grid(n / 4);
  host::stream_t s = as_stream(stream);
  unsigned long long* o = (unsigned long long*)out;
#define WK_HIST(M)                                                                            \
  if (shared)                                                                                 \
    WK_LAUNCH(grid, kBlock, smem, s, histogram_kernel<M, true>)(keys, n, bins, o);                   \
  else                                                                                        \
    WK_LAUNCH(grid, kBlock, 0, s, histogram_kernel<M, false>)(keys, n, bins, o);
  switch (mode) {
    case HIST_PLAIN: WK_HIST(HIST_PLAIN) break;
    case HIST_MATCH: WK_HIST(HIST_MATCH) break;
    case HIST_ADAPTIVE: WK_HIST(HIST_ADAPTIVE) break;
    case HIST_GLOBAL: WK_HIST(HIST_PLAIN) break;
    default: return WK_ERR_ARG;
  }
#undef WK_HIST
  return host::launch_error();
}

// Measured on an H100 (BENCHMARKS.md): with the counts in shared memory, plain atomics run at
// copy bandwidth on uniform and on skewed keys alike, and match_any only costs (5x slower on
// uniform keys); with the counts in global memory, aggregation is what avoids serialising a
// hot bin's adds, so the adaptive method is used there.
int histogram_launch(void* stream, wk_status*, const uint32_t* keys, uint64_t n, uint32_t bins,
                     uint64_t* out) {
  return histogram_launch_mode(stream, keys, n, bins, out,
                               bins <= kSharedBins ? HIST_PLAIN : HIST_ADAPTIVE);
}

}  // namespace WK_NS
