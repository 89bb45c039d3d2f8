// runs: the runs of equal keys (docs/SEMANTICS.md "runs"): unique, unique_by_key and
// run_length_encode in one pass.
#include "shapes.h"
#include "look_back.h"

namespace WK_NS {
using namespace prims;

namespace {

const unsigned kThreads = WK_SCAN_TILE_THREADS;
const unsigned kItems = WK_SCAN_ITEMS_PER_THREAD;
const unsigned kWarps = WK_SCAN_TILE_THREADS / WK_WARP_SIZE;

// The runs' head rule: a key starts a run when it differs (!=) from the key before it, so that
// every NaN starts one and -0.0 continues a run of 0.0.
template <typename K> __device__ __forceinline__ bool starts_run(K prev, K x) {
  return !(x == prev);
}

// The last head position before `tile` (tile > 0), called by every lane of one full warp; valid
// in every lane. Positions grow with the tiles, so a tile holding a head has an aggregate that
// is already the max over every tile up to it: the walk stops at the nearest tile that has a
// head, or publishes an inclusive max, and needs no predecessor's look-back to have finished.
// Tile 0 publishes at once and tiles after 0 holding a head publish a non-zero position, so a
// zero aggregate means "no head here". The inclusive maxes only bound walks across tiles
// without heads (runs longer than a tile). Only runs longer than last_head_in_keys reads back
// come here, so it waits without the look-back's first sleep.
__device__ __forceinline__ uint64_t last_head_before(const CountStatus& st, uint64_t tile) {
  const unsigned ln = lane();
  const wk_lanemask_t all = WK_FULL_MASK;
  for (int64_t j = (int64_t)tile - 1;; j -= WK_WARP_SIZE) {
    const int64_t idx = j - (int64_t)ln;
    uint64_t v = 0;
    unsigned f = kStatusInclusive;
    if (idx >= 0) f = st.wait((uint64_t)idx, &v);
    const wk_lanemask_t stop = arch::ballot_sync(all, f == kStatusInclusive || v != 0);
    if (stop != 0) return shfl_idx(all, v, (unsigned)arch::lowest_lane(stop), WK_WARP_SIZE);
  }
}

// Windows of keys a tile reads back for the run open at its start before it turns to the
// statuses (4 x the warp: runs up to 128 or 256 keys).
const unsigned kRunsKeyWindows = 4;

// The last head at or before position `from` (< n) found in the keys themselves, one warp, one
// window of WK_WARP_SIZE positions at a time, at most `windows` windows; valid in every lane.
// Returns false when none was found that near (a run longer than the windows).
template <typename K>
__device__ __forceinline__ bool last_head_in_keys(const K* keys, uint64_t from, unsigned windows,
                                                  uint64_t* at) {
  const unsigned ln = lane();
  const wk_lanemask_t all = WK_FULL_MASK;
  for (unsigned w = 0; w < windows; ++w) {
    const int64_t p = (int64_t)from - (int64_t)(w * WK_WARP_SIZE + ln);
    const bool head = p <= 0 || starts_run(keys[p - 1], keys[p]);
    const wk_lanemask_t hs = arch::ballot_sync(all, head);
    if (hs != 0) {
      const int64_t q = (int64_t)from - (int64_t)(w * WK_WARP_SIZE) - arch::lowest_lane(hs);
      *at = q > 0 ? (uint64_t)q : 0;
      return true;
    }
  }
  return false;
}

// One pass over tiles of 256 threads x 16 consecutive keys, as compact.cu: a key is a run's
// head when it is the first or differs (!=) from the key before it. The block scans the heads,
// the tile's first output slot comes from a decoupled look-back over head counts, and the heads
// are staged in shared memory at their rank (the keys, and their tile positions in 16 bits when
// lengths or values are asked for: a tile has 4096 keys) so the outputs are written in rank
// order by consecutive threads.
//
// Lengths: a run's length is the next head's position minus its own. Within a tile the next
// head is the next staged one; the tile's last run is finished by the first later tile holding a
// head (or the last tile, by n), which needs where that run started: read back from the keys
// before the tile (last_head_in_keys) when it started at most kRunsKeyWindows warps of keys
// before, else from each tile's published last head position (last_head_before). A second
// warp finds it while the first looks back over the head counts. (H200, 2^28 u32 keys in runs
// of 8, 2026-12-04: the keys read back 1.15x faster than the nearest-head walk over the
// statuses, 1.10x than a second look-back over them; see benches/history/2026-12.md.)
// Runtime-null outputs are skipped; the branches are uniform over the block.
// BLOCKS: blocks an SM the registers must allow (1: the compiler's choice). Unbounded the first
// version took 72 registers (ncu, H100, 2^24 u32 keys in runs of 8), three blocks an SM, 37.5%
// occupancy and 25% of DRAM bandwidth; six took it to 0.98x CUB (H200). DIRECT: full tiles of
// a 16-byte aligned input of 4-byte or smaller keys load straight into registers, as the
// compaction's do (false: every tile through shared memory, the bench's "before" row).
// TILES: tiles a block (TILES x 256 threads: one count and one look-back for all of them, the
// same output). POS: whether positions are staged (lengths or values asked for; without them
// two tiles fit the 48 KB of static shared memory).
// 8-byte keys: five, since at six (40 registers) ptxas spilled 56-104 bytes a thread (not
// timed: the bench's runs rows have u32 keys).
template <typename K, typename V, int BLOCKS = sizeof(K) == 8 ? 5 : 6, bool DIRECT = true,
          int TILES = 1, bool POS = true>
__global__ void __launch_bounds__(WK_SCAN_TILE_THREADS * TILES, BLOCKS)
    runs_kernel(wk_status* st, uint32_t warp_size, const K* keys, const V* vals, uint64_t n,
                unsigned* counter, CountStatus heads, CountStatus lasts, K* keys_out,
                V* vals_out, uint32_t* lengths, unsigned long long* total) {
  const unsigned kBlockItems = TILES * WK_SCAN_TILE;
  WK_SHARED(K, items, TILES * Pad<K>::size);
  WK_SHARED(uint16_t, pos, POS ? TILES * WK_SCAN_TILE : 1);
  WK_SHARED(unsigned, warp_tot, TILES * kWarps);
  WK_SHARED(unsigned, warp_last, TILES * kWarps);
  WK_SHARED_VAR(uint64_t, s_offset);
  WK_SHARED_VAR(uint64_t, s_before);
  WK_SHARED_VAR(unsigned, s_tile);
  if (!width_ok(st, warp_size)) return;
  const unsigned t = threadIdx.x;
  if (t == 0) {
    s_tile = take_ticket(counter);
    heads.prefetch(s_tile);
    if (lengths) lasts.prefetch(s_tile);
  }
  __syncthreads();
  const uint64_t tile = s_tile;
  const uint64_t base = tile * kBlockItems;
  const uint64_t tiles = (n + kBlockItems - 1) / kBlockItems;

  // Thread t holds keys 16t .. 16t+15 of the tile: straight from global memory 16 bytes at a
  // time, or each warp's 16 x 32 keys loaded coalesced into its part of `items` and read back.
  const unsigned ln = lane();
  const unsigned w = t / WK_WARP_SIZE;
  const uint64_t first = base + (uint64_t)t * kItems;
  K x[kItems];
  load_tile_items<DIRECT>(x, items, keys, base, n, base + kBlockItems <= n);

  // The key before this thread's first: the lane below's last, or for a warp's first lane the
  // one before the warp's part, from global memory. Heads are flagged over all 16 keys (those
  // past n hold K()), then kept only where live.
  const wk_lanemask_t mask = block_warp_lanes();
  K prev = shfl_up(mask, x[kItems - 1], 1, WK_WARP_SIZE);
  if (ln == 0) prev = first > 0 && first < n ? keys[first - 1] : K();
  unsigned sel = 0;
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) {
    if (starts_run(prev, x[k])) sel |= 1u << k;
    prev = x[k];
  }
  if (first == 0) sel |= 1u;
  if (first + kItems > n) sel &= first < n ? (1u << (n - first)) - 1 : 0u;
  const unsigned mine = __popc(sel);
  const unsigned incl = kogge_stone<OP_SUM, unsigned>(mask, mine, WK_WARP_SIZE);
  // This thread's last head as a tile position + 1 (0: none), max-scanned over the warp.
  const unsigned my_last = sel ? t * kItems + (31 - __clz(sel)) + 1 : 0;
  const unsigned wl = lengths ? kogge_stone<OP_MAX, unsigned>(mask, my_last, WK_WARP_SIZE) : 0;
  if (ln == WK_WARP_SIZE - 1) {
    warp_tot[w] = incl;
    warp_last[w] = wl;
  }
  __syncthreads();
  unsigned rank = incl - mine;
  unsigned count = 0, last = 0;
  for (unsigned i = 0; i < TILES * kWarps; ++i) {
    if (i < w) rank += warp_tot[i];
    count += warp_tot[i];
    last = warp_last[i] > last ? warp_last[i] : last;
  }

  // Every read of `items` was before the barrier above: the heads are staged at their rank,
  // the first warp's too before it looks back (holding its keys across the look-back spilled
  // them to local memory).
  const bool need_pos = POS && (lengths || vals_out);
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) {
    if (sel & (1u << k)) {
      if (keys_out) items[Pad<K>::at(rank)] = x[k];
      if (need_pos) pos[rank] = (uint16_t)(t * kItems + k);
      ++rank;
    }
  }
  // The head counts' look-back in the first warp, the open run's start in the second, so that
  // neither waits for the other's round trips (one warp doing both made a tile's inclusive
  // prefix wait for the sum of the two).
  if (t < WK_WARP_SIZE) {
    if (tile == 0) {
      if (t == 0) {
        heads.publish(0, kStatusInclusive, count);
        s_offset = 0;
      }
    } else {
      if (t == 0) heads.publish(tile, kStatusAggregate, count);
      const uint64_t x0 =
          look_back<OP_SUM, uint64_t>(heads, tile, (uint64_t*)nullptr, (unsigned*)nullptr);
      if (t == 0) {
        heads.publish(tile, kStatusInclusive, x0 + count);
        s_offset = x0;
      }
    }
  } else if (lengths && t < 2 * WK_WARP_SIZE) {
    // The tile's last head as a global position (0 when it has none: the max's identity, and
    // position 0 is tile 0's first head anyway).
    const uint64_t agg_last = last ? base + last - 1 : 0;
    const bool first_lane = t == WK_WARP_SIZE;
    if (tile == 0) {
      if (first_lane) {
        lasts.publish(0, kStatusInclusive, agg_last);
        s_before = 0;
      }
    } else {
      if (first_lane) lasts.publish(tile, kStatusAggregate, agg_last);
      uint64_t b0 = 0;
      if (!last_head_in_keys(keys, base - 1, kRunsKeyWindows, &b0))
        b0 = last_head_before(lasts, tile);
      if (first_lane) {
        lasts.publish(tile, kStatusInclusive, b0 > agg_last ? b0 : agg_last);
        s_before = b0;
      }
    }
  }
  __syncthreads();
  const uint64_t offset = s_offset;
  for (unsigned r = t; r < count; r += TILES * kThreads) {
    if (keys_out) keys_out[offset + r] = items[Pad<K>::at(r)];
    if (!need_pos) continue;
    const unsigned p = pos[r];
    if (vals_out) vals_out[offset + r] = vals[base + p];
    if (lengths) {
      if (r + 1 < count)
        lengths[offset + r] = (uint32_t)(pos[r + 1] - p);
      else if (tile == tiles - 1)
        lengths[offset + r] = (uint32_t)(n - (base + p));
    }
  }
  // The run open when this tile began ends at its first head, or at n in the last tile.
  if (POS && lengths && t == 0 && tile > 0) {
    if (count > 0)
      lengths[offset - 1] = (uint32_t)(base + pos[0] - s_before);
    else if (tile == tiles - 1)
      lengths[offset - 1] = (uint32_t)(n - s_before);
  }
  if (tile == tiles - 1 && t == 0) *total = offset + count;
}

}  // namespace

// Tiles from which keys without values run in the shapes of a full SM (runs_shaped).
const uint64_t kRunsWideFrom = 1024;

uint64_t runs_scratch(uint64_t n) {
  uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  return 256 + 2 * round_up(CountStatus::bytes(tiles));
}

int runs_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t key_dtype,
                uint32_t value_size, const void* keys, const void* vals, uint64_t n,
                void* scratch, uint64_t scratch_bytes, void* keys_out, void* vals_out,
                uint32_t* lengths, uint64_t* count) {
  return runs_shaped(stream, st, warp_size, key_dtype, value_size, keys, vals, n, scratch,
                     scratch_bytes, keys_out, vals_out, lengths, count, TileShape{}, 1);
}

int runs_tagged_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t key_dtype,
                       uint32_t value_size, const void* keys, const void* vals, uint64_t n,
                       void* scratch, uint64_t scratch_bytes, uint32_t tag, void* keys_out,
                       void* vals_out, uint32_t* lengths, uint64_t* count) {
  return runs_shaped(stream, st, warp_size, key_dtype, value_size, keys, vals, n, scratch,
                     scratch_bytes, keys_out, vals_out, lengths, count, TileShape{}, tag);
}

int runs_shaped(void* stream, wk_status* st, uint32_t warp_size, uint32_t key_dtype,
                uint32_t value_size, const void* keys, const void* vals, uint64_t n,
                void* scratch, uint64_t scratch_bytes, void* keys_out, void* vals_out,
                uint32_t* lengths, uint64_t* count, TileShape shape, uint32_t tag) {
  unsigned blocks = shape_code(shape);
  if (!tag_ok(tag)) return WK_ERR_ARG;
  if (value_size != 0 && value_size != 2 && value_size != 4 && value_size != 8) return WK_ERR_ARG;
  if ((value_size != 0) != (vals != nullptr && vals_out != nullptr)) return WK_ERR_ARG;
  if (n == 0) return host::memset_async(count, 0, sizeof(uint64_t), as_stream(stream));
  uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  // Run counts and positions are published in CountStatus words.
  if (tiles > 0x7fffffffull || n >= kCountLimit) return WK_ERR_ARG;
  // Lengths are u32 and the length look-back stores positions.
  if (lengths && n > (uint64_t)UINT32_MAX) return WK_ERR_ARG;
  if (scratch_bytes < runs_scratch(n)) return WK_ERR_SCRATCH;
  unsigned* counter = (unsigned*)scratch;
  CountStatus heads, lasts;
  heads.tag = lasts.tag = tag;
  heads.words = (unsigned long long*)((char*)scratch + 256);
  lasts.words = (unsigned long long*)((char*)scratch + 256 + round_up(CountStatus::bytes(tiles)));
  if (tag == 1) {
    int rc = host::memset_async(scratch, 0, runs_scratch(n), as_stream(stream));
    if (rc) return rc;
  }
  return with_dtype_io(key_dtype, [&](auto kt) {
    typedef typename decltype(kt)::type K;
    host::stream_t hs = as_stream(stream);
    unsigned long long* total = (unsigned long long*)count;
    // A macro, not a lambda: the SIMT executor's launch names the kernel as a template argument.
#define WK_RUNS_LAUNCH_T(T, V, ...)                                                          \
  WK_LAUNCH((unsigned)((tiles + (T)-1) / (T)), kThreads*(T), 0, hs, __VA_ARGS__)(            \
      st, warp_size, (const K*)keys, (const V*)vals, n, counter, heads, lasts, (K*)keys_out, \
      (V*)vals_out, lengths, total)
#define WK_RUNS_LAUNCH(V, ...) WK_RUNS_LAUNCH_T(1, V, __VA_ARGS__)
    if (value_size == 2) {
      WK_RUNS_LAUNCH(uint16_t, runs_kernel<K, uint16_t>);
    } else if (value_size == 8) {
      WK_RUNS_LAUNCH(uint64_t, runs_kernel<K, uint64_t>);
    } else {
      // blocks (the bench's neighbours of the default, u32 keys only): 1, 6 or 8 blocks an SM
      // (1: the compiler's choice), 128 + 6: every tile through shared memory, 2 x 16 + 3 or 4:
      // two tiles a block at 3 or 4 blocks an SM (keys only: no lengths, no values).
      const bool keys_only = lengths == nullptr && vals == nullptr;
      bool shaped = false;
      if constexpr (std::is_same<K, uint32_t>::value) {
        shaped = true;
        switch (blocks) {
          case 1: WK_RUNS_LAUNCH(uint32_t, runs_kernel<K, uint32_t, 1>); break;
          case 6: WK_RUNS_LAUNCH(uint32_t, runs_kernel<K, uint32_t, 6>); break;
          case 8: WK_RUNS_LAUNCH(uint32_t, runs_kernel<K, uint32_t, 8>); break;
          case 128 + 6: WK_RUNS_LAUNCH(uint32_t, runs_kernel<K, uint32_t, 6, false>); break;
          case 2 * 16 + 3:
          case 2 * 16 + 4:
            if (!keys_only) {
              shaped = false;
            } else if (blocks == 2 * 16 + 3) {
              WK_RUNS_LAUNCH_T(2, uint32_t, runs_kernel<K, uint32_t, 3, true, 2, false>);
            } else {
              WK_RUNS_LAUNCH_T(2, uint32_t, runs_kernel<K, uint32_t, 4, true, 2, false>);
            }
            break;
          default: shaped = false;
        }
      }
      // Keys of 4 bytes or less without values, once there are more tiles than one wave at six
      // blocks an SM holds: the keys alone (unique) two tiles a block at four blocks an SM,
      // with lengths one tile at eight (32 registers each, 16-24 bytes spilled); fewer tiles
      // run at six (40 registers, none spilled). H100, u32 keys in runs of 8, one run
      // (2026-11-27): against six, unique two tiles at four 1.10x / 1.17x faster at 2^24 /
      // 2^28 (one tile at eight 1.05x / 1.10x), run_length_encode at eight 1.06x / 1.11x; six
      // 1.10x faster than either at 2^20 (256 tiles). The crossover was not measured.
      if (!shaped) {
        if constexpr (sizeof(K) <= 4) {
          if (keys_only && tiles >= kRunsWideFrom) {
            WK_RUNS_LAUNCH_T(2, uint32_t, runs_kernel<K, uint32_t, 4, true, 2, false>);
          } else if (value_size == 0 && tiles >= kRunsWideFrom) {
            WK_RUNS_LAUNCH(uint32_t, runs_kernel<K, uint32_t, 8>);
          } else {
            WK_RUNS_LAUNCH(uint32_t, runs_kernel<K, uint32_t>);
          }
        } else {
          WK_RUNS_LAUNCH(uint32_t, runs_kernel<K, uint32_t>);
        }
      }
    }
#undef WK_RUNS_LAUNCH
#undef WK_RUNS_LAUNCH_T
    return host::launch_error();
  });
}

}  // namespace WK_NS
