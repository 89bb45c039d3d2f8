// partition_reversed: the partition that reads its input once, the rest in reverse order
// (docs/SEMANTICS.md "partition_reversed"), as CUB's DevicePartition::If.
//
// The stable partition (partition.cu) must know the size of the leading parts before it can
// place the rest, so it reads the input twice. Here the rest goes to the back of the output,
// back to front: the rest's i-th element (in input order) lands at out[n - 1 - i], which only
// needs the number of the rest before the tile. One pass over tiles, as the stable compaction
// (compact.cu): each tile classifies its items, the block scans the per-thread counts, a
// decoupled look-back over the tiles' counts of the leading parts gives the tile's offsets (the
// rest's follows: the items before the tile minus the leading parts'), and the tile's items,
// staged in shared memory part by part, are written out coalesced. Three ways, the middle part
// goes to its own output in input order (CUB's second output), as its place in `out` would need
// the first part's total.
#include "shapes.h"
#include "look_back.h"
#include "partition.h"

namespace WK_NS {
using namespace prims;

namespace {

const unsigned kThreads = WK_SCAN_TILE_THREADS;
const unsigned kItems = WK_SCAN_ITEMS_PER_THREAD;
const unsigned kWarps = kThreads / WK_WARP_SIZE;

// The look-back's value: two ways the first part's count (below kCountLimit, in one word with
// its flag); three ways the first two parts' counts in the low and high halves of a 64-bit sum,
// hence three-way inputs below 2^32 elements (kThreeWayLimit).
const uint64_t kThreeWayLimit = 1ull << (sizeof(uint32_t) * 8);
template <bool THREE> struct RevStatus {
  typedef CountStatus type;
};
template <> struct RevStatus<true> {
  typedef StatusFor<uint64_t>::type type;
};

// K tiles a block (K x 256 threads), BLOCKS blocks a multiprocessor, as the stable compaction's
// shapes (compact.cu's CompactDefault, measured there).
template <typename T, bool THREE, int BLOCKS, int K>
__global__ void __launch_bounds__(WK_SCAN_TILE_THREADS * K, BLOCKS)
    partition_reversed_kernel(wk_status* st, uint32_t warp_size, Preds<T> preds, const T* in,
                              uint64_t n, unsigned* counter,
                              typename RevStatus<THREE>::type status, T* out, T* second_out,
                              uint64_t* counts) {
  const unsigned kSpan = K * WK_SCAN_TILE;
  const unsigned kBlockThreads = K * kThreads;
  WK_SHARED(T, items, K * Pad<T>::size);
  WK_SHARED(unsigned, warp_tot, K * kWarps);
  WK_SHARED_VAR(uint64_t, s_offset);
  WK_SHARED_VAR(unsigned, s_tile);
  if (!width_ok(st, warp_size)) return;
  const unsigned t = threadIdx.x;
  if (t == 0) {
    s_tile = take_ticket(counter);
    status.prefetch(s_tile);
  }
  __syncthreads();
  const uint64_t tile = s_tile;
  const uint64_t base = tile * kSpan;
  const uint64_t tiles = (n + kSpan - 1) / kSpan;
  const bool full = base + kSpan <= n;
  const unsigned ln = lane();
  const unsigned w = t / WK_WARP_SIZE;

  // Thread t's items, their parts (two bits an item, 3 past n) and its counts of parts 0 and 1
  // (as partition.cu).
  T x[kItems];
  load_tile_items<true>(x, items, in, base, n, full);
  unsigned parts, mine;
  // Three ways decode both predicates per item (as with_first would), sparing the build the
  // fixed two-way copies.
  classify_items(preds, x, base + (uint64_t)t * kItems, n, full, THREE, !THREE, parts, mine);
  const wk_lanemask_t mask = block_warp_lanes();
  const unsigned incl = kogge_stone<OP_SUM, unsigned>(mask, mine, WK_WARP_SIZE);
  if (ln == WK_WARP_SIZE - 1) warp_tot[w] = incl;
  // Every read of `items` above comes before this barrier, so staging may follow it.
  __syncthreads();
  unsigned rank = incl - mine, count = 0;
  for (unsigned i = 0; i < K * kWarps; ++i) {
    if (i < w) rank += warp_tot[i];
    count += warp_tot[i];
  }
  const unsigned cnt0 = count & 0xffffu, cnt1 = count >> 16;
  const uint64_t agg = THREE ? (uint64_t)cnt0 | ((uint64_t)cnt1 << 32) : (uint64_t)cnt0;

  // The first warp looks back while the others stage; one barrier then covers both.
  if (tile == 0) {
    if (t == 0) {
      status.publish(0, kStatusInclusive, agg);
      s_offset = 0;
    }
  } else if (t < WK_WARP_SIZE) {
    if (t == 0) status.publish(tile, kStatusAggregate, agg);
    const uint64_t x0 =
        look_back<OP_SUM, uint64_t>(status, tile, (uint64_t*)nullptr, (unsigned*)nullptr);
    if (t == 0) {
      status.publish(tile, kStatusInclusive, x0 + agg);
      s_offset = x0;
    }
  }
  // Block-local places: part 0 from 0, part 1 from cnt0, the rest from cnt0 + cnt1 (in input
  // order here; reversed on the way out).
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
  const uint64_t off = s_offset;
  const uint64_t before0 = THREE ? (uint32_t)off : off;
  const uint64_t before1 = THREE ? off >> 32 : 0;
  const uint64_t left = n - base;
  const unsigned live = left < kSpan ? (unsigned)left : kSpan;
  const unsigned cnt2 = live - cnt0 - cnt1;
  T* const out0 = out + before0;
  for (unsigned r = t; r < cnt0; r += kBlockThreads) out0[r] = items[Pad<T>::at(r)];
  if (THREE) {
    T* const out1 = second_out + before1;
    for (unsigned r = t; r < cnt1; r += kBlockThreads) out1[r] = items[Pad<T>::at(cnt0 + r)];
  }
  // The rest's r-th item of the tile is the rest's (before2 + r)-th: out[n - 1 - before2 - r].
  T* const out2 = out + (n - 1 - (base - before0 - before1));
  for (unsigned r = t; r < cnt2; r += kBlockThreads)
    *(out2 - r) = items[Pad<T>::at(cnt0 + cnt1 + r)];
  if (tile == tiles - 1 && t == 0) {
    counts[0] = before0 + cnt0;
    if (THREE) counts[1] = before1 + cnt1;
  }
}

uint64_t tiles_of(uint64_t n) { return (n + WK_SCAN_TILE - 1) / WK_SCAN_TILE; }

// Zeroes the tile counter and the statuses of tiles of K x WK_SCAN_TILE items, then launches.
template <typename T, bool THREE, int BLOCKS, int K>
int launch_reversed(host::stream_t hs, wk_status* st, uint32_t warp_size, const Preds<T>& p,
                    const T* in, uint64_t n, void* scratch, T* out, T* second_out,
                    uint64_t* counts) {
  const uint64_t tiles = (tiles_of(n) + K - 1) / K;
  typename RevStatus<THREE>::type status;
  uint64_t zero;
  if constexpr (THREE) {
    zero = status_layout<uint64_t>((char*)scratch, tiles, &status);
  } else {
    status.words = (unsigned long long*)((char*)scratch + 256);
    zero = 256 + round_up(CountStatus::bytes(tiles));
  }
  int rc = host::memset_async(scratch, 0, zero, hs);
  if (rc) return rc;
  WK_LAUNCH((unsigned)tiles, kThreads * K, 0, hs, partition_reversed_kernel<T, THREE, BLOCKS, K>)(
      st, warp_size, p, in, n, (unsigned*)scratch, status, out, second_out, counts);
  return host::launch_error();
}

}  // namespace

// The tile counter and the statuses for one-tile blocks (the most tiles any shape makes) of
// either look-back (two ways one word a tile; three ways an 8-byte status).
uint64_t partition_reversed_scratch(uint64_t n) { return status_bytes(8, tiles_of(n)); }

int partition_reversed_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                              uint32_t ways, uint32_t pred, uint64_t a, uint64_t b,
                              uint32_t pred2, uint64_t a2, uint64_t b2, const void* in,
                              uint64_t n, void* scratch, uint64_t scratch_bytes, void* out,
                              void* second_out, uint64_t* counts) {
  if (pred > 6 || (ways != 2 && ways != 3) || (ways == 3 && pred2 > 6) || !counts)
    return WK_ERR_ARG;
  host::stream_t hs = as_stream(stream);
  if (n == 0) return host::memset_async(counts, 0, (ways - 1) * sizeof(uint64_t), hs);
  if ((ways == 3) != (second_out != nullptr)) return WK_ERR_ARG;
  if (n >= (ways == 3 ? kThreeWayLimit : kCountLimit)) return WK_ERR_ARG;
  const uint64_t tiles = tiles_of(n);
  if (tiles > 0x7fffffffull) return WK_ERR_ARG;
  if (!in || !out || !scratch) return WK_ERR_ARG;
  if (scratch_bytes < partition_reversed_scratch(n)) return WK_ERR_SCRATCH;
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
    // Two tiles a block at four blocks an SM for 4-byte and smaller elements, one at four for
    // 8-byte ones: the stable compaction's defaults (compact.cu), the same kernel but for the
    // rest's stores.
    const T* x = (const T*)in;
    T *o = (T*)out, *o2 = (T*)second_out;
    if constexpr (sizeof(T) <= 4) {
      return ways == 3 ? launch_reversed<T, true, 4, 2>(hs, st, warp_size, p, x, n, scratch, o, o2, counts)
                       : launch_reversed<T, false, 4, 2>(hs, st, warp_size, p, x, n, scratch, o, o2, counts);
    } else {
      return ways == 3 ? launch_reversed<T, true, 4, 1>(hs, st, warp_size, p, x, n, scratch, o, o2, counts)
                       : launch_reversed<T, false, 4, 1>(hs, st, warp_size, p, x, n, scratch, o, o2, counts);
    }
  });
}

}  // namespace WK_NS
