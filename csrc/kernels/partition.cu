// partition: stable two- and three-way partition by predicates (docs/SEMANTICS.md "partition").
#include "count.h"
#include "device.h"
#include "look_back.h"

namespace WK_NS {
using namespace prims;

namespace {

const unsigned kThreads = WK_SCAN_TILE_THREADS;
const unsigned kItems = WK_SCAN_ITEMS_PER_THREAD;
const unsigned kWarps = kThreads / WK_WARP_SIZE;
// Each thread's parts as two bits an item in one word.
static_assert(2 * kItems <= 32, "two bits per item must fit one unsigned");

// The predicates: `first`, and `second` when three-way (ways == 3).
template <typename T>
struct Preds {
  uint32_t p0, p1, ways;
  T a0, b0, a1, b1;
  // 0: `first` (decoded by `f0`) holds; 1: it does not and `second` (three-way) does; 2: the rest.
  template <typename F0> __device__ __forceinline__ unsigned part(F0 f0, bool three, T x) const {
    if (f0(x, a0, b0)) return 0;
    if (three && eval_pred(p1, x, a1, b1)) return 1;
    return 2;
  }
  // count_kernel's classifier: parts 0 and 1 counted in the low and high halves.
  __device__ __forceinline__ uint64_t operator()(T x) const {
    const unsigned p = part(Runtime{p0}, ways == 3, x);
    return p == 0 ? 1ull : p == 1 ? (1ull << 32) : 0ull;
  }
  // `first` decoded per item: partial tiles and the counting pass.
  struct Runtime {
    uint32_t code;
    __device__ __forceinline__ bool operator()(T x, T a, T b) const { return eval_pred(code, x, a, b); }
  };
};

// Each thread's items (in x[], loaded) classified: each one's part in two bits of `parts` (3
// past n) and the counts of parts 0 and 1 in the halves of `mine`. FULL: the whole block's
// tiles lie before n, so no item needs its bound checked.
template <bool FULL, typename T, typename F0>
__device__ __forceinline__ void classify(const Preds<T>& preds, F0 f0, bool three, uint64_t first,
                                         uint64_t n, const T (&x)[kItems], unsigned& parts,
                                         unsigned& mine) {
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) {
    const bool live = FULL || first + k < n;
    const unsigned p = live ? preds.part(f0, three, x[k]) : 3u;
    mine += p == 0 ? 1u : p == 1 ? (1u << 16) : 0u;
    parts |= p << (2 * k);
  }
}

// Two launches. count_kernel first sums the sizes of parts 0 and 1 (the rest's place depends on
// both, and a tile cannot know them before every tile is done). Then one pass over blocks of K
// tiles of 256 threads x 16 consecutive items: each thread loads its items (a full block of a
// 16-byte aligned input of 4-byte or smaller elements straight into registers, otherwise each
// warp its part coalesced through padded shared memory) and finds their parts (full blocks with
// `first` fixed at compile time), the block scans the per-thread counts of parts 0 and 1 (packed
// in one word: a block holds at most K x 4096 of each), a decoupled look-back over block counts
// gives the block's offsets in parts 0 and 1 (the rest's offset is what remains of the block's
// start), the items are staged in shared memory in output order (part 0, part 1, rest) and
// written out coalesced, each part to its own place. Blocks are numbered in the order they start.
// The shapes as compaction's (compact.cu): BLOCKS blocks an SM, DIRECT false: every block
// through shared memory (the bench's "before" rows).
template <typename T, int BLOCKS, int K, bool DIRECT>
__global__ void __launch_bounds__(WK_SCAN_TILE_THREADS * K, BLOCKS)
    partition_kernel(wk_status* st, uint32_t warp_size, Preds<T> preds, const T* in, uint64_t n,
                     unsigned* counter, CountStatus first, CountStatus second,
                     const uint64_t* totals, T* out, uint64_t* counts) {
  const unsigned kSpan = K * WK_SCAN_TILE;
  const unsigned kBlockThreads = K * kThreads;
  WK_SHARED(T, items, K * Pad<T>::size);
  WK_SHARED(unsigned, warp_tot, K * kWarps);
  WK_SHARED_VAR(uint64_t, s_before0);
  WK_SHARED_VAR(uint64_t, s_before1);
  WK_SHARED_VAR(unsigned, s_tile);
  if (!width_ok(st, warp_size)) return;
  const unsigned t = threadIdx.x;
  if (t == 0) s_tile = atomicAdd(counter, 1u);
  __syncthreads();
  const uint64_t tile = s_tile;
  const uint64_t base = tile * kSpan;
  const bool three = preds.ways == 3;
  const bool full = base + kSpan <= n;

  const unsigned ln = lane();
  const unsigned w = t / WK_WARP_SIZE;
  T x[kItems];
  if (DIRECT && sizeof(T) <= 4 && ((uintptr_t)in % 16) == 0 && full) {
    const uint4* p = reinterpret_cast<const uint4*>(in + base + (uint64_t)t * kItems);
    uint4 r[kItems * sizeof(T) / 16];
#pragma unroll
    for (unsigned v = 0; v < kItems * sizeof(T) / 16; ++v) r[v] = p[v];
    __builtin_memcpy(x, r, sizeof(x));
  } else {
    const unsigned kWarpSlots = kWarpTileItems + kWarpTileItems / Pad<T>::every;
    const auto wsm = items + w * kWarpSlots;
    load_warp_tile(wsm, in, base + (uint64_t)w * kWarpTileItems, n);
    syncwarp(NATIVE, block_warp_lanes());
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) {
      // Slots past n were never stored: not read (the SIMT executor reports such reads).
      const bool live = full || base + t * kItems + k < n;
      x[k] = live ? (T)wsm[Pad<T>::at(ln * kItems + k)] : T();
    }
  }
  unsigned parts = 0;  // two bits per item: its part, 3 past n
  unsigned mine = 0;   // this thread's items in part 0 (low 16 bits) and part 1 (high 16)
  const uint64_t first_item = base + (uint64_t)t * kItems;
  if (full) {
    // Two-way: `first` fixed at compile time (seven copies of the loop); three-way decodes both
    // per item, which spares the build 49 more.
    if (three)
      classify<true>(preds, typename Preds<T>::Runtime{preds.p0}, true, first_item, n, x, parts,
                     mine);
    else
      with_pred(preds.p0,
                [&](auto f0) { classify<true>(preds, f0, false, first_item, n, x, parts, mine); });
  } else {
    classify<false>(preds, typename Preds<T>::Runtime{preds.p0}, three, first_item, n, x, parts,
                    mine);
  }
  const wk_lanemask_t mask = block_warp_lanes();
  const unsigned incl = kogge_stone<OP_SUM, unsigned>(mask, mine, WK_WARP_SIZE);
  if (ln == WK_WARP_SIZE - 1) warp_tot[w] = incl;
  __syncthreads();
  unsigned rank = incl - mine, count = 0;
  for (unsigned i = 0; i < K * kWarps; ++i) {
    if (i < w) rank += warp_tot[i];
    count += warp_tot[i];
  }
  const unsigned cnt0 = count & 0xffffu, cnt1 = count >> 16;
  const uint64_t left = n - base;
  const unsigned live = left < kSpan ? (unsigned)left : kSpan;

  // The first warp looks back while the others stage their items (every read of `items` was
  // before the barrier above); one barrier then covers both.
  if (tile == 0) {
    if (t == 0) {
      first.publish(0, kStatusInclusive, cnt0);
      if (three) second.publish(0, kStatusInclusive, cnt1);
      s_before0 = 0;
      s_before1 = 0;
      counts[0] = totals[0];
      if (three) counts[1] = totals[1];
    }
  } else if (t < WK_WARP_SIZE) {
    if (t == 0) {
      first.publish(tile, kStatusAggregate, cnt0);
      if (three) second.publish(tile, kStatusAggregate, cnt1);
    }
    const uint64_t b0 = look_back<OP_SUM, uint64_t>(first, tile, (uint64_t*)nullptr, (unsigned*)nullptr);
    uint64_t b1 = 0;
    if (three) b1 = look_back<OP_SUM, uint64_t>(second, tile, (uint64_t*)nullptr, (unsigned*)nullptr);
    if (t == 0) {
      first.publish(tile, kStatusInclusive, b0 + cnt0);
      if (three) second.publish(tile, kStatusInclusive, b1 + cnt1);
      s_before0 = b0;
      s_before1 = b1;
    }
  }
  // Block-local places: part 0 from 0, part 1 from cnt0, the rest from cnt0 + cnt1. Without
  // branches on the part: a random predicate would split every warp across them.
  unsigned r0 = rank & 0xffffu, r1 = cnt0 + (rank >> 16);
  unsigned r2 = cnt0 + cnt1 + (t * kItems - (rank & 0xffffu) - (rank >> 16));
#pragma unroll
  for (unsigned k = 0; k < kItems; ++k) {
    const unsigned p = (parts >> (2 * k)) & 3u;
    const unsigned at = p == 0 ? r0 : p == 1 ? r1 : r2;
    if (p != 3u) items[Pad<T>::at(at)] = x[k];
    r0 += p == 0;
    r1 += p == 1;
    r2 += p == 2;
  }
  __syncthreads();
  // Each part's items of the block are consecutive in `items` and in `out`: one loop a part.
  const uint64_t before0 = s_before0, before1 = s_before1;
  T* const out0 = out + before0;
  T* const out1 = out + totals[0] + before1;
  T* const out2 = out + totals[0] + totals[1] + (base - before0 - before1);
  const unsigned cnt2 = live - cnt0 - cnt1;
  for (unsigned r = t; r < cnt0; r += kBlockThreads) out0[r] = items[Pad<T>::at(r)];
  for (unsigned r = t; r < cnt1; r += kBlockThreads) out1[r] = items[Pad<T>::at(cnt0 + r)];
  for (unsigned r = t; r < cnt2; r += kBlockThreads)
    out2[r] = items[Pad<T>::at(cnt0 + cnt1 + r)];
}

// Tiles from which the default shape takes two a block (the SIMT executor's build sets 2, so
// that the conformance suite's small inputs run that shape too).
#ifndef WK_PARTITION_WIDE_FROM_TILES
#define WK_PARTITION_WIDE_FROM_TILES 1024
#endif

uint64_t tiles_of(uint64_t n) { return (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE; }

// Scratch: the tile counter and the two totals in the first 256 bytes, then a status word per
// tile for each of parts 0 and 1.
const unsigned kTotalsAt = 64;

}  // namespace

uint64_t partition_scratch(uint64_t n) {
  return 256 + 2 * round_up(CountStatus::bytes(tiles_of(n)));
}

int partition_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                     uint32_t ways, uint32_t pred, uint64_t a, uint64_t b, uint32_t pred2,
                     uint64_t a2, uint64_t b2, const void* in, uint64_t n, void* scratch,
                     uint64_t scratch_bytes, void* out, uint64_t* counts) {
  return partition_launch_b(stream, st, warp_size, dtype, ways, pred, a, b, pred2, a2, b2, in, n,
                            scratch, scratch_bytes, out, counts, 0);
}

int partition_launch_b(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                       uint32_t ways, uint32_t pred, uint64_t a, uint64_t b, uint32_t pred2,
                       uint64_t a2, uint64_t b2, const void* in, uint64_t n, void* scratch,
                       uint64_t scratch_bytes, void* out, uint64_t* counts, unsigned blocks) {
  if (pred > 6 || (ways != 2 && ways != 3) || (ways == 3 && pred2 > 6) || !counts)
    return WK_ERR_ARG;
  host::stream_t hs = as_stream(stream);
  if (n == 0) return host::memset_async(counts, 0, (ways - 1) * sizeof(uint64_t), hs);
  const uint64_t tiles = tiles_of(n);
  if (tiles > 0x7fffffffull) return WK_ERR_ARG;
  if (!in || !out || !scratch) return WK_ERR_ARG;
  const uint64_t bytes = partition_scratch(n);
  if (scratch_bytes < bytes) return WK_ERR_SCRATCH;
  // The counter, the totals and every status start at zero.
  int rc = host::memset_async(scratch, 0, bytes, hs);
  if (rc) return rc;
  unsigned* counter = (unsigned*)scratch;
  uint64_t* totals = (uint64_t*)((char*)scratch + kTotalsAt);
  CountStatus first, second;
  first.words = (unsigned long long*)((char*)scratch + 256);
  second.words = (unsigned long long*)((char*)scratch + 256 + round_up(CountStatus::bytes(tiles)));
  return with_dtype_io(dtype, [&](auto tag) {
    typedef typename decltype(tag)::type T;
    Preds<T> p;
    p.p0 = pred;
    p.p1 = ways == 3 ? pred2 : 0;
    p.ways = ways;
    p.a0 = from_bits<T>((typename Elem<T>::U)a);
    p.b0 = from_bits<T>((typename Elem<T>::U)b);
    p.a1 = from_bits<T>((typename Elem<T>::U)a2);
    p.b1 = from_bits<T>((typename Elem<T>::U)b2);
    WK_LAUNCH(strided_grid(n / (16 / sizeof(T))), kBlock, 0, hs, count_kernel<T, Preds<T>>)(
        p, (const T*)in, n, (unsigned long long*)totals, ways - 1);
    int rc = host::launch_error();
    if (rc) return rc;
    // A macro, not a lambda: the SIMT executor's launch names the kernel as a template argument.
#define WK_PARTITION_LAUNCH(K, ...)                                                          \
  WK_LAUNCH((unsigned)((tiles + (K)-1) / (K)), kThreads*(K), 0, hs, __VA_ARGS__)(            \
      st, warp_size, p, (const T*)in, n, counter, first, second, (const uint64_t*)totals,    \
      (T*)out, counts)
    // The default from 1024 tiles: two tiles a block at four blocks an SM for 4-byte and smaller
    // elements (two tiles of 8-byte ones pass the 48 KB of static shared memory), else one at
    // six. The bench's "partition ... blocks=" rows, H200, f32: one tile at six 0.95x of two at
    // four at 2^28, 1.00x at 2^24, 1.07-1.12x at 2^20 (256 tiles).
    if (blocks == 0) blocks = sizeof(T) <= 4 && tiles >= WK_PARTITION_WIDE_FROM_TILES ? 2 * 16 + 4 : 6;
    switch (blocks) {
      case 2 * 16 + 4:
        if constexpr (sizeof(T) <= 4) {
          WK_PARTITION_LAUNCH(2, partition_kernel<T, 4, 2, true>);
          break;
        }
        [[fallthrough]];
      case 128 + 6: WK_PARTITION_LAUNCH(1, partition_kernel<T, 6, 1, false>); break;
      default: WK_PARTITION_LAUNCH(1, partition_kernel<T, 6, 1, true>);
    }
#undef WK_PARTITION_LAUNCH
    return host::launch_error();
  });
}

}  // namespace WK_NS
