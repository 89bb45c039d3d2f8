// runs: the runs of equal keys (docs/SEMANTICS.md "runs"): unique, unique_by_key and
// run_length_encode in one pass.
#include "device.h"
#include "look_back.h"

namespace WK_NS {
using namespace prims;

namespace {

const unsigned kThreads = WK_SCAN_TILE_THREADS;
const unsigned kItems = WK_SCAN_ITEMS_PER_THREAD;
const unsigned kWarps = WK_SCAN_TILE_THREADS / WK_WARP_SIZE;

// One pass over tiles of 256 threads x 16 consecutive keys, as compact.cu: a key is a run's
// head when it is the first or differs (!=) from the key before it. The block scans the heads,
// the tile's first output slot comes from a decoupled look-back over head counts, and the heads'
// tile positions are staged in shared memory (16 bits: a tile has 4096 keys) so the outputs are
// written in rank order by consecutive threads.
//
// Lengths: a run's length is the next head's position minus its own. Within a tile the next
// head is the next staged one; the tile's last run is finished by the first later tile holding a
// head (or the last tile, by n), which learns where that run started from a second look-back
// over each tile's last head position (max is associative, and tile 0 always has a head).
// Runtime-null outputs are skipped; the branches are uniform over the block.
// Six blocks an SM at most 42 registers a thread: unbounded the kernel took 72 (ncu, H100, 2^24
// u32 keys in runs of 8), three blocks an SM, 37.5% occupancy and 25% of DRAM bandwidth.
template <typename K, typename V>
__global__ void __launch_bounds__(WK_SCAN_TILE_THREADS, 6)
    runs_kernel(wk_status* st, uint32_t warp_size, const K* keys, const V* vals, uint64_t n,
                unsigned* counter, CountStatus heads, CountStatus lasts, K* keys_out,
                V* vals_out, uint32_t* lengths, unsigned long long* total) {
  WK_SHARED(K, items, Pad<K>::size);
  WK_SHARED(uint16_t, pos, WK_SCAN_TILE);
  WK_SHARED(unsigned, warp_tot, kWarps);
  WK_SHARED(unsigned, warp_last, kWarps);
  WK_SHARED_VAR(uint64_t, s_offset);
  WK_SHARED_VAR(uint64_t, s_before);
  WK_SHARED_VAR(unsigned, s_tile);
  if (!width_ok(st, warp_size)) return;
  const unsigned t = threadIdx.x;
  if (t == 0) s_tile = atomicAdd(counter, 1u);
  __syncthreads();
  const uint64_t tile = s_tile;
  const uint64_t base = tile * WK_SCAN_TILE;
  const uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;

  // Each warp loads its 16 x 32 consecutive keys coalesced into its part of `items`.
  const unsigned ln = lane();
  const unsigned w = t / WK_WARP_SIZE;
  const unsigned kWarpSlots = kWarpTileItems + kWarpTileItems / Pad<K>::every;
  const auto wsm = items + w * kWarpSlots;
  const uint64_t wbase = base + (uint64_t)w * kWarpTileItems;
  load_warp_tile(wsm, keys, wbase, n);
  syncwarp(NATIVE, block_warp_lanes());

  // The key before this thread's first: the lane below's last (shared), or for a warp's first
  // lane the global key before the warp's part.
  const uint64_t first = wbase + (uint64_t)ln * kItems;
  K prev = K();
  if (first < n && first > 0)
    prev = ln > 0 ? (K)wsm[Pad<K>::at(ln * kItems - 1)] : keys[first - 1];
  unsigned sel = 0;
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) {
    // Slots past n were never stored: not read (the SIMT executor reports such reads).
    if (first + k < n) {
      const K x = wsm[Pad<K>::at(ln * kItems + k)];
      if (first + k == 0 || !(x == prev)) sel |= 1u << k;
      prev = x;
    }
  }
  const unsigned mine = __popc(sel);
  const wk_lanemask_t mask = block_warp_lanes();
  const unsigned incl = kogge_stone<OP_SUM, unsigned>(mask, mine, WK_WARP_SIZE);
  // This thread's last head as a tile position + 1 (0: none), max-scanned over the warp.
  const unsigned my_last = sel ? w * kWarpTileItems + ln * kItems + (31 - __clz(sel)) + 1 : 0;
  const unsigned wl = lengths ? kogge_stone<OP_MAX, unsigned>(mask, my_last, WK_WARP_SIZE) : 0;
  if (ln == WK_WARP_SIZE - 1) {
    warp_tot[w] = incl;
    warp_last[w] = wl;
  }
  __syncthreads();
  unsigned rank = incl - mine;
  unsigned count = 0, last = 0;
  for (unsigned i = 0; i < kWarps; ++i) {
    if (i < w) rank += warp_tot[i];
    count += warp_tot[i];
    last = warp_last[i] > last ? warp_last[i] : last;
  }

  // The first warp looks back while the others stage their heads' positions.
  if (t < WK_WARP_SIZE) {
    // The tile's last head as a global position (0 when it has none: the max's identity, and
    // position 0 is tile 0's first head anyway).
    const uint64_t agg_last = last ? base + last - 1 : 0;
    if (tile == 0) {
      if (t == 0) {
        heads.publish(0, kStatusInclusive, count);
        if (lengths) lasts.publish(0, kStatusInclusive, agg_last);
        s_offset = 0;
        s_before = 0;
      }
    } else {
      if (t == 0) {
        heads.publish(tile, kStatusAggregate, count);
        if (lengths) lasts.publish(tile, kStatusAggregate, agg_last);
      }
      const uint64_t x0 =
          look_back<OP_SUM, uint64_t>(heads, tile, (uint64_t*)nullptr, (unsigned*)nullptr);
      uint64_t b0 = 0;
      if (lengths)
        b0 = look_back<OP_MAX, uint64_t>(lasts, tile, (uint64_t*)nullptr, (unsigned*)nullptr);
      if (t == 0) {
        heads.publish(tile, kStatusInclusive, x0 + count);
        if (lengths) lasts.publish(tile, kStatusInclusive, b0 > agg_last ? b0 : agg_last);
        s_offset = x0;
        s_before = b0;
      }
    }
  }
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) {
    if (sel & (1u << k)) pos[rank++] = (uint16_t)(w * kWarpTileItems + ln * kItems + k);
  }
  __syncthreads();
  const uint64_t offset = s_offset;
  for (unsigned r = t; r < count; r += kThreads) {
    const unsigned p = pos[r];
    if (keys_out)
      keys_out[offset + r] = items[(p / kWarpTileItems) * kWarpSlots + Pad<K>::at(p % kWarpTileItems)];
    if (vals_out) vals_out[offset + r] = vals[base + p];
    if (lengths) {
      if (r + 1 < count)
        lengths[offset + r] = (uint32_t)(pos[r + 1] - p);
      else if (tile == tiles - 1)
        lengths[offset + r] = (uint32_t)(n - (base + p));
    }
  }
  // The run open when this tile began ends at its first head, or at n in the last tile.
  if (lengths && t == 0 && tile > 0) {
    if (count > 0)
      lengths[offset - 1] = (uint32_t)(base + pos[0] - s_before);
    else if (tile == tiles - 1)
      lengths[offset - 1] = (uint32_t)(n - s_before);
  }
  if (tile == tiles - 1 && t == 0) *total = offset + count;
}

}  // namespace

uint64_t runs_scratch(uint64_t n) {
  uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  return 256 + 2 * round_up(CountStatus::bytes(tiles));
}

int runs_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t key_dtype,
                uint32_t value_size, const void* keys, const void* vals, uint64_t n,
                void* scratch, uint64_t scratch_bytes, void* keys_out, void* vals_out,
                uint32_t* lengths, uint64_t* count) {
  if (value_size != 0 && value_size != 2 && value_size != 4 && value_size != 8) return WK_ERR_ARG;
  if ((value_size != 0) != (vals != nullptr && vals_out != nullptr)) return WK_ERR_ARG;
  if (n == 0) return host::memset_async(count, 0, sizeof(uint64_t), as_stream(stream));
  uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  if (tiles > 0x7fffffffull) return WK_ERR_ARG;
  // Lengths are u32 and the length look-back stores positions.
  if (lengths && n > (uint64_t)UINT32_MAX) return WK_ERR_ARG;
  if (scratch_bytes < runs_scratch(n)) return WK_ERR_SCRATCH;
  unsigned* counter = (unsigned*)scratch;
  CountStatus heads, lasts;
  heads.words = (unsigned long long*)((char*)scratch + 256);
  lasts.words = (unsigned long long*)((char*)scratch + 256 + round_up(CountStatus::bytes(tiles)));
  int rc = host::memset_async(scratch, 0, runs_scratch(n), as_stream(stream));
  if (rc) return rc;
  return with_dtype_io(key_dtype, [&](auto tag) {
    typedef typename decltype(tag)::type K;
    host::stream_t hs = as_stream(stream);
    unsigned long long* total = (unsigned long long*)count;
    if (value_size == 2)
      WK_LAUNCH((unsigned)tiles, kThreads, 0, hs, runs_kernel<K, uint16_t>)(
          st, warp_size, (const K*)keys, (const uint16_t*)vals, n, counter, heads, lasts,
          (K*)keys_out, (uint16_t*)vals_out, lengths, total);
    else if (value_size == 8)
      WK_LAUNCH((unsigned)tiles, kThreads, 0, hs, runs_kernel<K, uint64_t>)(
          st, warp_size, (const K*)keys, (const uint64_t*)vals, n, counter, heads, lasts,
          (K*)keys_out, (uint64_t*)vals_out, lengths, total);
    else
      WK_LAUNCH((unsigned)tiles, kThreads, 0, hs, runs_kernel<K, uint32_t>)(
          st, warp_size, (const K*)keys, (const uint32_t*)vals, n, counter, heads, lasts,
          (K*)keys_out, (uint32_t*)vals_out, lengths, total);
    return host::launch_error();
  });
}

}  // namespace WK_NS
