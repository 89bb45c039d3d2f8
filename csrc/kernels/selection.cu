// Seed 000's warp-aggregated atomics (atomicAggInc), count_if, compaction and histogram.
#include "device.h"

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

template <typename T>
__global__ void count_if_kernel(uint32_t pred, uint64_t a, uint64_t b, const T* in, uint64_t n,
                                unsigned long long* out) {
  WK_SHARED_VAR(unsigned, block_count);
  if (threadIdx.x == 0) block_count = 0;
  __syncthreads();
  T va = from_bits<T>((typename Elem<T>::U)a);
  T vb = from_bits<T>((typename Elem<T>::U)b);
  unsigned mine = 0;
  uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride)
    mine += eval_pred(pred, in[e], va, vb) ? 1 : 0;
  if (mine) atomicAdd(&block_count, mine);
  __syncthreads();
  if (threadIdx.x == 0 && block_count) atomicAdd(out, (unsigned long long)block_count);
}

// Unordered compaction: one atomic per warp reserves the warp's selected slots.
template <typename T>
__global__ void compact_unordered_kernel(wk_status* st, uint32_t warp_size, uint32_t pred,
                                         uint64_t a, uint64_t b, const T* in, uint64_t n, T* out,
                                         unsigned long long* count) {
  if (!width_ok(st, warp_size)) return;
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  wk_lanemask_t live = live_lanes(t / WK_WARP_SIZE, n);
  T x = in[t];
  bool keep = eval_pred(pred, x, from_bits<T>((typename Elem<T>::U)a),
                        from_bits<T>((typename Elem<T>::U)b));
  wk_lanemask_t sel = arch::ballot_sync(live, keep);
  if (sel == 0) return;
  unsigned leader = (unsigned)arch::lowest_lane(sel);
  unsigned long long base = 0;
  if (lane() == leader) base = atomicAdd(count, (unsigned long long)arch::popc(sel));
  base = shfl_idx(live, (uint64_t)base, leader, WK_WARP_SIZE);
  if (keep) out[base + arch::popc(sel & arch::lanemask_lt())] = x;
}

const unsigned kThreads = WK_SCAN_TILE_THREADS;
const unsigned kItems = WK_SCAN_ITEMS_PER_THREAD;

// Stable compaction, pass 1: selected items per tile of 256 x 16.
template <typename T>
__global__ void compact_count_kernel(uint32_t pred, uint64_t a, uint64_t b, const T* in,
                                     uint64_t n, uint64_t* counts) {
  WK_SHARED_VAR(unsigned, tile_count);
  if (threadIdx.x == 0) tile_count = 0;
  __syncthreads();
  T va = from_bits<T>((typename Elem<T>::U)a);
  T vb = from_bits<T>((typename Elem<T>::U)b);
  uint64_t base = (uint64_t)blockIdx.x * WK_SCAN_TILE;
  unsigned mine = 0;
  for (unsigned k = 0; k < kItems; ++k) {
    uint64_t e = base + k * kThreads + threadIdx.x;
    if (e < n && eval_pred(pred, in[e], va, vb)) ++mine;
  }
  if (mine) atomicAdd(&tile_count, mine);
  __syncthreads();
  if (threadIdx.x == 0) counts[blockIdx.x] = tile_count;
}

// Pass 3: each thread writes its 16 consecutive items' selected ones in order, after the
// tile's offset and the selected items of the threads before it.
template <typename T>
__global__ void compact_scatter_kernel(uint32_t pred, uint64_t a, uint64_t b, const T* in,
                                       uint64_t n, const uint64_t* counts,
                                       const uint64_t* offsets, T* out,
                                       unsigned long long* total) {
  WK_SHARED(unsigned, warp_tot, WK_SCAN_TILE_THREADS / WK_WARP_SIZE);
  T va = from_bits<T>((typename Elem<T>::U)a);
  T vb = from_bits<T>((typename Elem<T>::U)b);
  const unsigned t = threadIdx.x;
  uint64_t first = (uint64_t)blockIdx.x * WK_SCAN_TILE + (uint64_t)t * kItems;
  unsigned mine = 0;
  for (unsigned k = 0; k < kItems; ++k) {
    uint64_t e = first + k;
    if (e < n && eval_pred(pred, in[e], va, vb)) ++mine;
  }
  wk_lanemask_t mask = block_warp_lanes();
  unsigned incl = kogge_stone<OP_SUM, unsigned>(mask, mine, WK_WARP_SIZE);
  unsigned w = t / WK_WARP_SIZE;
  if (lane() == WK_WARP_SIZE - 1) warp_tot[w] = incl;
  __syncthreads();
  unsigned before = incl - mine;
  for (unsigned i = 0; i < w; ++i) before += warp_tot[i];
  uint64_t pos = offsets[blockIdx.x] + before;
  for (unsigned k = 0; k < kItems; ++k) {
    uint64_t e = first + k;
    if (e < n) {
      T x = in[e];
      if (eval_pred(pred, x, va, vb)) out[pos++] = x;
    }
  }
  if (blockIdx.x == gridDim.x - 1 && t == 0)
    *total = offsets[blockIdx.x] + counts[blockIdx.x];
}

// Keys at or past `bins` land in out[bins]. Small histograms count in shared memory first.
__global__ void histogram_kernel(const uint32_t* keys, uint64_t n, uint32_t bins, bool shared,
                                 unsigned long long* out) {
  WK_DYNAMIC_SHARED(unsigned, local);
  if (shared) {
    for (unsigned i = threadIdx.x; i <= bins; i += blockDim.x) local[i] = 0;
    __syncthreads();
  }
  uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride) {
    uint32_t k = keys[e];
    uint32_t bin = k < bins ? k : bins;
    if (shared)
      atomicAdd(local + bin, 1u);
    else
      atomicAdd(out + bin, 1ull);
  }
  if (shared) {
    __syncthreads();
    for (unsigned i = threadIdx.x; i <= bins; i += blockDim.x)
      if (local[i]) atomicAdd(out + i, (unsigned long long)local[i]);
  }
}

const unsigned kMaxGrid = 4096;
const uint32_t kSharedBins = 8191;

uint64_t round_up(uint64_t b) { return (b + 255) / 256 * 256; }

unsigned strided_grid(uint64_t n) {
  uint64_t g = (n + kBlock - 1) / kBlock;
  return (unsigned)(g < kMaxGrid ? (g ? g : 1) : kMaxGrid);
}

}  // namespace

uint64_t compact_scratch(uint64_t n) {
  uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  return 2 * round_up(tiles * sizeof(uint64_t)) + device_scan_scratch(sizeof(uint64_t), tiles);
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
    WK_LAUNCH(strided_grid(n), kBlock, 0, as_stream(stream), count_if_kernel<T>)(
        pred, a, b, (const T*)in, n, (unsigned long long*)out);
    return host::launch_error();
  });
}

int compact_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype, uint32_t pred,
                   uint64_t a, uint64_t b, uint32_t stable, const void* in, uint64_t n,
                   void* scratch, uint64_t scratch_bytes, void* out, uint64_t* out_count) {
  if (pred > 6 || n == 0) return WK_ERR_ARG;
  int rc = host::memset_async(out_count, 0, sizeof(uint64_t), as_stream(stream));
  if (rc) return rc;
  uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  if (stable && scratch_bytes < compact_scratch(n)) return WK_ERR_SCRATCH;
  if (tiles > 0x7fffffffull) return WK_ERR_ARG;
  return with_dtype(dtype, [&](auto tag) {
    typedef typename decltype(tag)::type T;
    if (!stable) {
      unsigned grid;
      if (!grid_for(n, kBlock, &grid)) return WK_ERR_ARG;
      WK_LAUNCH(grid, kBlock, 0, as_stream(stream), compact_unordered_kernel<T>)(
          st, warp_size, pred, a, b, (const T*)in, n, (T*)out, (unsigned long long*)out_count);
      return host::launch_error();
    }
    char* s = (char*)scratch;
    uint64_t* counts = (uint64_t*)s;
    uint64_t* offsets = (uint64_t*)(s + round_up(tiles * sizeof(uint64_t)));
    void* scan_scratch = s + 2 * round_up(tiles * sizeof(uint64_t));
    WK_LAUNCH((unsigned)tiles, kThreads, 0, as_stream(stream), compact_count_kernel<T>)(
        pred, a, b, (const T*)in, n, counts);
    int e = host::launch_error();
    if (e) return e;
    e = device_scan_launch(stream, st, DT_U64, OP_SUM, 1, counts, tiles, scan_scratch,
                           device_scan_scratch(sizeof(uint64_t), tiles), offsets);
    if (e) return e;
    WK_LAUNCH((unsigned)tiles, kThreads, 0, as_stream(stream), compact_scatter_kernel<T>)(
        pred, a, b, (const T*)in, n, counts, offsets, (T*)out, (unsigned long long*)out_count);
    return host::launch_error();
  });
}

int histogram_launch(void* stream, wk_status*, const uint32_t* keys, uint64_t n, uint32_t bins,
                     uint64_t* out) {
  if (bins == 0) return WK_ERR_ARG;
  int rc = host::memset_async(out, 0, ((uint64_t)bins + 1) * sizeof(uint64_t), as_stream(stream));
  if (rc) return rc;
  bool shared = bins <= kSharedBins;
  size_t smem = shared ? ((size_t)bins + 1) * sizeof(unsigned) : 0;
  WK_LAUNCH(strided_grid(n), kBlock, smem, as_stream(stream), histogram_kernel)(
      keys, n, bins, shared, (unsigned long long*)out);
  return host::launch_error();
}

}  // namespace WK_NS
