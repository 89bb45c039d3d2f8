// compact: stable and unordered stream compaction (docs/SEMANTICS.md "compact").
#include "shapes.h"
#include "look_back.h"

namespace WK_NS {
using namespace prims;

namespace {

const unsigned kThreads = WK_SCAN_TILE_THREADS;
const unsigned kItems = WK_SCAN_ITEMS_PER_THREAD;
const unsigned kWarps = WK_SCAN_TILE_THREADS / WK_WARP_SIZE;

// Compaction in one pass over tiles of 256 threads x 16 consecutive items (loaded through padded
// shared memory, coalesced): each thread flags its items, the block scans the per-thread counts,
// the tile's output offset comes from a decoupled look-back over tile counts (STABLE: input
// order is kept) or from one atomic per tile (unordered: tiles land in arrival order, each
// tile's items in order), and the selected items are staged in shared memory at their rank
// and written out coalesced. Tiles are numbered in the order blocks start.
// K: tiles a block (K x 256 threads, one count and one look-back for all K, which is the same
// output: counts are integers, the order is the input's). The look-back holds its block at a
// barrier, and K = 2 halves the look-backs and barriers per byte, as it did for the scan.
// BLOCKS: blocks per SM the registers must allow (1: no more than the compiler's choice). The
// bench's "tiles= blocks=" rows measure the neighbours of the default.
// DIRECT: full tiles of an aligned input of 4-byte or smaller elements load straight into
// registers (false: the bench's "before" rows, every tile through shared memory; 8-byte
// elements, unmeasured, keep the shared path).
template <typename T, bool STABLE, int BLOCKS = 1, int K = 1, bool DIRECT = true>
__global__ void __launch_bounds__(WK_SCAN_TILE_THREADS * K, BLOCKS)
    compact_kernel(wk_status* st, uint32_t warp_size, uint32_t pred, uint64_t a, uint64_t b,
                   const T* in, uint64_t n, unsigned* counter, CountStatus status, T* out,
                   unsigned long long* total) {
  WK_SHARED(T, items, K * Pad<T>::size);
  WK_SHARED(unsigned, warp_tot, K * kWarps);
  WK_SHARED_VAR(uint64_t, s_offset);
  WK_SHARED_VAR(unsigned, s_tile);
  if (!width_ok(st, warp_size)) return;
  const unsigned t = threadIdx.x;
  if (t == 0) {
    s_tile = STABLE ? take_ticket(counter) : blockIdx.x;
    if (STABLE) status.prefetch(s_tile);
  }
  __syncthreads();
  const uint64_t tile = s_tile;
  const uint64_t base = tile * K * WK_SCAN_TILE;
  const uint64_t tiles = (n + K * WK_SCAN_TILE - 1) / (K * WK_SCAN_TILE);
  T va = from_bits<T>((typename Elem<T>::U)a);
  T vb = from_bits<T>((typename Elem<T>::U)b);

  // Thread t holds items 16t .. 16t+15 of the tile. A full tile of a 16-byte aligned input
  // loads them straight into registers, 16 bytes at a time (ncu, H100, 2^28 f32: the kernel
  // issues about 60 instructions an item and is bound by issue, 90% SM throughput unordered,
  // and the trip through shared memory was a third of them). Otherwise each warp loads its
  // 16 x 32 consecutive items through its part of `items` (coalesced, no block barrier).
  const unsigned ln = lane();
  T x[kItems];
  unsigned sel = 0;
  if (DIRECT && sizeof(T) <= 4 && ((uintptr_t)in % 16) == 0 && base + K * WK_SCAN_TILE <= n) {
    const uint4* p = reinterpret_cast<const uint4*>(in + base + (uint64_t)t * kItems);
    uint4 r[kItems * sizeof(T) / 16];
#pragma unroll
    for (unsigned v = 0; v < kItems * sizeof(T) / 16; ++v) r[v] = p[v];
    __builtin_memcpy(x, r, sizeof(x));
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k)
      if (eval_pred(pred, x[k], va, vb)) sel |= 1u << k;
  } else {
    const unsigned kWarpSlots = kWarpTileItems + kWarpTileItems / Pad<T>::every;
    const auto wsm = items + (t / WK_WARP_SIZE) * kWarpSlots;
    load_warp_tile(wsm, in, base + (uint64_t)(t / WK_WARP_SIZE) * kWarpTileItems, n);
    syncwarp(NATIVE, block_warp_lanes());
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) {
      // Slots past n were never stored: not read (the SIMT executor reports such reads).
      const bool live = base + t * kItems + k < n;
      x[k] = live ? (T)wsm[Pad<T>::at(ln * kItems + k)] : T();
      if (live && eval_pred(pred, x[k], va, vb)) sel |= 1u << k;
    }
  }
  const unsigned mine = __popc(sel);
  const wk_lanemask_t mask = block_warp_lanes();
  const unsigned incl = kogge_stone<OP_SUM, unsigned>(mask, mine, WK_WARP_SIZE);
  const unsigned w = t / WK_WARP_SIZE;
  if (lane() == WK_WARP_SIZE - 1) warp_tot[w] = incl;
  __syncthreads();
  unsigned rank = incl - mine;
  unsigned count = 0;
  for (unsigned i = 0; i < K * kWarps; ++i) {
    if (i < w) rank += warp_tot[i];
    count += warp_tot[i];
  }

  // Every read of `items` was before the barrier above, so the selected items can be staged at
  // their tile rank now; the other warps do that while the first one looks back, and a single
  // barrier then covers both the staging and the offset.
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
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) {
    if (sel & (1u << k)) items[Pad<T>::at(rank++)] = x[k];
  }
  __syncthreads();
  const uint64_t offset = s_offset;
  for (unsigned r = t; r < count; r += K * kThreads) out[offset + r] = items[Pad<T>::at(r)];
  if (STABLE && tile == tiles - 1 && t == 0) *total = offset + count;
}

// The default shape, in the launcher's `blocks` code (tiles x 16 + blocks, or blocks alone for
// one tile): two tiles at four blocks for stable compaction of 4-byte or smaller elements, else
// one tile at seven (measured below, compact_shaped). Two tiles of 8-byte elements pass the
// 48 KB of static shared memory, and their sixteen items take 32 registers a thread alone: at
// seven blocks (32 registers) ptxas spilled 208-236 bytes a thread; unordered at five (48) and
// stable (which keeps the look-back's state besides) at four (64) spill none. H200, f64,
// 2026-11-30 (the bench's "blocks=7 (before)" rows): unordered 1.54x / 1.41x / 1.09x faster at
// 2^28 / 2^24 / 2^20, stable 0.99x / 1.04x / 1.12x.
template <typename T, bool STABLE> struct CompactDefault {
  static const int tiles = STABLE && sizeof(T) <= 4 ? 2 : 1;
  static const int blocks = tiles == 2 ? 4 : sizeof(T) != 8 ? 7 : STABLE ? 4 : 5;
  static const unsigned code = tiles == 1 ? blocks : tiles * 16 + blocks;
};

}  // namespace

uint64_t compact_scratch(uint64_t n) {
  uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  return 256 + round_up(CountStatus::bytes(tiles));
}

int compact_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype, uint32_t pred,
                   uint64_t a, uint64_t b, uint32_t stable, const void* in, uint64_t n,
                   void* scratch, uint64_t scratch_bytes, void* out, uint64_t* out_count) {
  return compact_shaped(stream, st, warp_size, dtype, pred, a, b, stable, in, n, scratch,
                        scratch_bytes, out, out_count, TileShape{}, 1);
}

int compact_tagged_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                          uint32_t pred, uint64_t a, uint64_t b, const void* in, uint64_t n,
                          void* scratch, uint64_t scratch_bytes, uint32_t tag, void* out,
                          uint64_t* out_count) {
  return compact_shaped(stream, st, warp_size, dtype, pred, a, b, 1, in, n, scratch,
                        scratch_bytes, out, out_count, TileShape{}, tag);
}

int compact_shaped(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                   uint32_t pred, uint64_t a, uint64_t b, uint32_t stable, const void* in,
                   uint64_t n, void* scratch, uint64_t scratch_bytes, void* out,
                   uint64_t* out_count, TileShape shape, uint32_t tag) {
  unsigned blocks = shape_code(shape);
  if (pred > 6 || n == 0 || !tag_ok(tag)) return WK_ERR_ARG;
  uint64_t tiles = (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE;
  if (tiles > 0x7fffffffull || (stable && n >= kCountLimit)) return WK_ERR_ARG;
  if (stable && scratch_bytes < compact_scratch(n)) return WK_ERR_SCRATCH;
  CountStatus status;
  status.tag = tag;
  unsigned* counter = (unsigned*)scratch;
  status.words = stable ? (unsigned long long*)((char*)scratch + 256) : nullptr;
  // Stable: tile numbers start at zero and statuses unpublished (zeroed at tag 1, an earlier
  // call's tag after); the last tile writes the count. Unordered: tiles reserve their output
  // with atomics on the count.
  int rc = 0;
  if (!stable)
    rc = host::memset_async(out_count, 0, sizeof(uint64_t), as_stream(stream));
  else if (tag == 1)
    rc = host::memset_async(scratch, 0, compact_scratch(n), as_stream(stream));
  if (rc) return rc;
  return with_dtype_io(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    host::stream_t hs = as_stream(stream);
    unsigned long long* total = (unsigned long long*)out_count;
    // A macro, not a lambda: the SIMT executor's launch names the kernel as a template argument.
#define WK_COMPACT_LAUNCH(K, ...)                                                            \
  WK_LAUNCH((unsigned)((tiles + (K)-1) / (K)), kThreads*(K), 0, hs, __VA_ARGS__)(            \
      st, warp_size, pred, a, b, (const T*)in, n, counter, status, (T*)out, total)
    // blocks (shape_code of the bench's neighbours of the default, shapes.h): 0 the default,
    // 1..8 one tile a block compiled for that many blocks per SM (1: the compiler's choice),
    // else tiles per block times 16 plus blocks per SM; 128 + either default shape: every tile
    // through shared memory (no direct loads). Measured on an H100 (f32, x > 0, the bench's "tiles=
    // blocks=" rows, 2026-11-26): stable, two tiles at four blocks 1.02x / 1.00x / 1.03x of one
    // tile at seven at 2^28 / 2^24 / 2^20 (two tiles of 8-byte values pass the 48 KB of static
    // shared memory: those keep one tile at seven, 1.18x the compiler's choice at 2^28);
    // unordered, one tile at seven blocks 1.39x / 1.28x faster than the compiler's choice (its
    // old default) at 2^28 / 2^24 (the same at 2^20) and 1.06x of two tiles at four.
    typedef CompactDefault<T, true> DS;
    typedef CompactDefault<T, false> DU;
    if (blocks == 0) blocks = stable ? DS::code : DU::code;
#define WK_COMPACT_SHAPES(S)                                                                 \
  switch (blocks) {                                                                          \
    case 1: WK_COMPACT_LAUNCH(1, compact_kernel<T, S>); break;                               \
    case 6: WK_COMPACT_LAUNCH(1, compact_kernel<T, S, 6>); break;                            \
    case 8: WK_COMPACT_LAUNCH(1, compact_kernel<T, S, 8>); break;                            \
    case 2 * 16 + 3:                                                                         \
    case 2 * 16 + 4:                                                                         \
      if constexpr (sizeof(T) <= 4) {                                                        \
        if (blocks == 2 * 16 + 3)                                                            \
          WK_COMPACT_LAUNCH(2, compact_kernel<T, S, 3, 2>);                                  \
        else                                                                                 \
          WK_COMPACT_LAUNCH(2, compact_kernel<T, S, 4, 2>);                                  \
        break;                                                                               \
      }                                                                                      \
      [[fallthrough]];                                                                       \
    case 128 + 7: WK_COMPACT_LAUNCH(1, compact_kernel<T, S, 7, 1, false>); break;            \
    case 128 + 2 * 16 + 4:                                                                   \
      if constexpr (sizeof(T) <= 4) {                                                        \
        WK_COMPACT_LAUNCH(2, compact_kernel<T, S, 4, 2, false>);                             \
        break;                                                                               \
      }                                                                                      \
      [[fallthrough]];                                                                       \
    default: WK_COMPACT_LAUNCH(1, compact_kernel<T, S, 7>);                                  \
  }
    // The defaults alone for every type but f32, the only one the bench's shape rows measure
    // (each shape is one more kernel a type in every build), and f64 at seven blocks (the
    // bench's "blocks=7 (before)" rows of the spilling floor 8-byte types had).
#define WK_COMPACT_DEFAULT(D, S) \
  WK_COMPACT_LAUNCH(D::tiles, compact_kernel<T, S, D::blocks, D::tiles>);
    if constexpr (std::is_same<T, float>::value) {
      if (stable) {
        WK_COMPACT_SHAPES(true)
      } else {
        WK_COMPACT_SHAPES(false)
      }
    } else {
      if constexpr (std::is_same<T, double>::value) {
        if (blocks == 7) {
          if (stable)
            WK_COMPACT_LAUNCH(1, compact_kernel<T, true, 7>);
          else
            WK_COMPACT_LAUNCH(1, compact_kernel<T, false, 7>);
          return host::launch_error();
        }
      }
      if (stable) {
        WK_COMPACT_DEFAULT(DS, true)
      } else {
        WK_COMPACT_DEFAULT(DU, false)
      }
    }
#undef WK_COMPACT_DEFAULT
#undef WK_COMPACT_SHAPES
#undef WK_COMPACT_LAUNCH
    return host::launch_error();
  });
}

}  // namespace WK_NS
