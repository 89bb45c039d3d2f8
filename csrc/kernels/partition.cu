// partition: stable two- and three-way partition by predicates (docs/SEMANTICS.md "partition").
#include "shapes.h"
#include "look_back.h"
#include "partition.h"

namespace WK_NS {
using namespace prims;

namespace {

const unsigned kThreads = WK_SCAN_TILE_THREADS;
const unsigned kItems = WK_SCAN_ITEMS_PER_THREAD;
const unsigned kWarps = kThreads / WK_WARP_SIZE;

// The sum of every thread's `v` in the block, in every thread. `red` is kWarps words of shared
// memory (a tracked array on the SIMT executor, hence the template); the caller syncs before it
// is used again.
template <typename S> __device__ __forceinline__ unsigned block_sum(unsigned v, S red) {
  v = bfly<OP_SUM, unsigned>(block_warp_lanes(), v, WK_WARP_SIZE);
  if (lane() == 0) red[threadIdx.x / WK_WARP_SIZE] = v;
  __syncthreads();
  unsigned s = 0;
  for (unsigned i = 0; i < kWarps; ++i) s += red[i];
  return s;
}

// Launch 1: the sizes of parts 0 and 1 of each span of K x WK_SCAN_TILE items (the spans of
// launch 3's blocks), one word a span (part 0 in the low half, part 1 in the high). Read
// coalesced, 16 bytes at a time where the span is whole and the input aligned.
template <typename T, int K>
__global__ void __launch_bounds__(WK_SCAN_TILE_THREADS)
    span_count_kernel(Preds<T> preds, const T* in, uint64_t n, uint64_t spans,
                      unsigned long long* span_counts) {
  WK_SHARED(unsigned, red, kWarps);
  const unsigned kSpan = K * WK_SCAN_TILE;
  const unsigned V = 16 / sizeof(T);
  const unsigned kVecs = kSpan / V / kThreads;  // 16-byte loads a thread
  const unsigned t = threadIdx.x;
  const bool aligned = ((uintptr_t)in % 16) == 0;
  for (uint64_t s = blockIdx.x; s < spans; s += gridDim.x) {
    const uint64_t base = s * kSpan;
    unsigned mine = 0;
    if (aligned && base + kSpan <= n) {
      const uint4* p = reinterpret_cast<const uint4*>(in + base);
      uint4 r[kVecs];
#pragma unroll
      for (unsigned v = 0; v < kVecs; ++v) r[v] = p[t + v * kThreads];
      preds.with_first([&](auto f0, bool three) {
#pragma unroll
        for (unsigned v = 0; v < kVecs; ++v) {
          T x[V];
          __builtin_memcpy(x, &r[v], sizeof(r[v]));
#pragma unroll
          for (unsigned k = 0; k < V; ++k)
            mine += Preds<T>::weight(preds.part(f0, three, x[k]));
        }
      });
    } else {
      const uint64_t end = n - base < kSpan ? n : base + kSpan;
      const typename Preds<T>::Runtime f0{preds.p0};
      for (uint64_t i = base + t; i < end; i += kThreads)
        mine += Preds<T>::weight(preds.part(f0, preds.ways == 3, in[i]));
    }
    const unsigned sum = block_sum(mine, red);
    if (t == 0)
      span_counts[s] = (unsigned long long)(sum & 0xffffu) | ((unsigned long long)(sum >> 16) << 32);
    __syncthreads();
  }
}

// Launch 2, one block: the exclusive prefix of each part over the spans (pre0[s], pre1[s]) and
// the totals (pre0[spans], pre1[spans], and counts[] for the caller). Integer sums: exact in any
// order. Up to kFewSpans spans, thread t takes a run of consecutive spans (span_scan_kernel);
// past them each warp takes rows of WK_WARP_SIZE spans (span_scan_rows_kernel), which reads
// them coalesced. On an H200 (2026-11-29, f32 partition) the rows took the scan of 32768 spans
// (2^28 items) from 95 to 21 us (ncu) but made 256 and 2048 spans 1.5-5 us slower. The SIMT
// executor's build sets WK_PARTITION_FEW_SPANS=2, so that the conformance suite's small inputs
// run both kernels.
#ifndef WK_PARTITION_FEW_SPANS
#define WK_PARTITION_FEW_SPANS 8192
#endif
const uint64_t kFewSpans = WK_PARTITION_FEW_SPANS;
// Both span scans end here: the parts' totals after the last span's prefixes, and for the caller
// the selected count (and the middle part's, three ways).
__device__ __forceinline__ void store_totals(uint64_t tot0, uint64_t tot1, uint64_t spans,
                                             uint64_t* pre0, uint64_t* pre1, uint64_t* counts,
                                             uint32_t ways) {
  pre0[spans] = tot0;
  pre1[spans] = tot1;
  counts[0] = tot0;
  if (ways == 3) counts[1] = tot1;
}
__global__ void __launch_bounds__(WK_SCAN_TILE_THREADS)
    span_scan_kernel(const unsigned long long* span_counts, uint64_t spans, uint64_t* pre0,
                     uint64_t* pre1, uint64_t* counts, uint32_t ways) {
  WK_SHARED(uint64_t, w0, kWarps);
  WK_SHARED(uint64_t, w1, kWarps);
  const unsigned t = threadIdx.x, w = t / WK_WARP_SIZE;
  const uint64_t per = (spans + kThreads - 1) / kThreads;
  const uint64_t lo = t * per < spans ? t * per : spans;
  const uint64_t hi = spans - lo < per ? spans : lo + per;
  uint64_t s0 = 0, s1 = 0;
#pragma unroll 8
  for (uint64_t i = lo; i < hi; ++i) {
    const unsigned long long c = span_counts[i];
    s0 += (uint32_t)c;
    s1 += c >> 32;
  }
  const wk_lanemask_t mask = block_warp_lanes();
  const uint64_t i0 = kogge_stone<OP_SUM, uint64_t>(mask, s0, WK_WARP_SIZE);
  const uint64_t i1 = kogge_stone<OP_SUM, uint64_t>(mask, s1, WK_WARP_SIZE);
  if (lane() == WK_WARP_SIZE - 1) {
    w0[w] = i0;
    w1[w] = i1;
  }
  __syncthreads();
  uint64_t e0 = i0 - s0, e1 = i1 - s1, tot0 = 0, tot1 = 0;
  for (unsigned i = 0; i < kWarps; ++i) {
    if (i < w) {
      e0 += w0[i];
      e1 += w1[i];
    }
    tot0 += w0[i];
    tot1 += w1[i];
  }
#pragma unroll 8
  for (uint64_t i = lo; i < hi; ++i) {
    const unsigned long long c = span_counts[i];
    pre0[i] = e0;
    pre1[i] = e1;
    e0 += (uint32_t)c;
    e1 += c >> 32;
  }
  if (t == 0) store_totals(tot0, tot1, spans, pre0, pre1, counts, ways);
}

// Launch 2 past kFewSpans spans, one block of kScanThreads: each warp takes a run of
// consecutive rows of WK_WARP_SIZE span words, lane l reading each row's l-th (a thread walking
// its own run of words made every warp access touch a sector a lane, and one multiprocessor's
// requests were the launch's cost), first summing them, then scanning each row from the warp's
// offset. Both parts scan as one word: a row's part sums stay below 2^32 (a span holds at most
// 2 x WK_SCAN_TILE items).
const unsigned kScanThreads = 1024;
const unsigned kScanWarps = kScanThreads / WK_WARP_SIZE;
static_assert(kScanWarps <= WK_WARP_SIZE, "one warp scans the warps' sums");
const unsigned kRowsAtOnce = 8;  // loads in flight a lane
__global__ void __launch_bounds__(kScanThreads)
    span_scan_rows_kernel(const unsigned long long* span_counts, uint64_t spans, uint64_t* pre0,
                          uint64_t* pre1, uint64_t* counts, uint32_t ways) {
  WK_SHARED(uint64_t, w0, kScanWarps + 1);
  WK_SHARED(uint64_t, w1, kScanWarps + 1);
  const unsigned t = threadIdx.x, w = t / WK_WARP_SIZE, ln = lane();
  const wk_lanemask_t mask = block_warp_lanes();
  const uint64_t rows = (spans + WK_WARP_SIZE - 1) / WK_WARP_SIZE;
  const uint64_t per = (rows + kScanWarps - 1) / kScanWarps;
  const uint64_t lo = w * per < rows ? w * per : rows;
  const uint64_t hi = rows - lo < per ? rows : lo + per;
  // Rows r .. r + kRowsAtOnce - 1 of the warp's run, 0 past it or past the spans.
  auto load = [&](uint64_t r, uint64_t* c) {
#pragma unroll
    for (unsigned j = 0; j < kRowsAtOnce; ++j) {
      const uint64_t i = (r + j) * WK_WARP_SIZE + ln;
      c[j] = r + j < hi && i < spans ? (uint64_t)span_counts[i] : 0;
    }
  };
  // A run of one batch (small inputs) is loaded once and kept for the second pass.
  const bool one_batch = per <= kRowsAtOnce;
  uint64_t c[kRowsAtOnce];
  uint64_t s0 = 0, s1 = 0;
  for (uint64_t r = lo; r < hi; r += kRowsAtOnce) {
    load(r, c);
#pragma unroll
    for (unsigned j = 0; j < kRowsAtOnce; ++j) {
      s0 += (uint32_t)c[j];
      s1 += c[j] >> 32;
    }
  }
  s0 = bfly<OP_SUM, uint64_t>(mask, s0, WK_WARP_SIZE);
  s1 = bfly<OP_SUM, uint64_t>(mask, s1, WK_WARP_SIZE);
  if (ln == 0) {
    w0[w] = s0;
    w1[w] = s1;
  }
  __syncthreads();
  // The first warp turns the warps' sums into their offsets (entry kScanWarps: the totals).
  if (w == 0) {
    const uint64_t v0 = ln < kScanWarps ? w0[ln] : 0, v1 = ln < kScanWarps ? w1[ln] : 0;
    const uint64_t i0 = kogge_stone<OP_SUM, uint64_t>(mask, v0, WK_WARP_SIZE);
    const uint64_t i1 = kogge_stone<OP_SUM, uint64_t>(mask, v1, WK_WARP_SIZE);
    syncwarp(NATIVE, mask);
    if (ln < kScanWarps) {
      w0[ln] = i0 - v0;
      w1[ln] = i1 - v1;
    }
    if (ln == kScanWarps - 1) {
      w0[kScanWarps] = i0;
      w1[kScanWarps] = i1;
    }
  }
  __syncthreads();
  uint64_t e0 = w0[w], e1 = w1[w];
  for (uint64_t r = lo; r < hi; r += kRowsAtOnce) {
    if (!one_batch) load(r, c);
#pragma unroll
    for (unsigned j = 0; j < kRowsAtOnce; ++j) {
      if (r + j >= hi) break;  // the same for the whole warp
      const uint64_t incl = kogge_stone<OP_SUM, uint64_t>(mask, c[j], WK_WARP_SIZE);
      const uint64_t ex = incl - c[j];
      const uint64_t i = (r + j) * WK_WARP_SIZE + ln;
      if (i < spans) {
        pre0[i] = e0 + (uint32_t)ex;
        pre1[i] = e1 + (ex >> 32);
      }
      const uint64_t row = shfl_idx(mask, incl, WK_WARP_SIZE - 1, WK_WARP_SIZE);
      e0 += (uint32_t)row;
      e1 += row >> 32;
    }
  }
  if (t == 0) store_totals(w0[kScanWarps], w1[kScanWarps], spans, pre0, pre1, counts, ways);
}

// Launch 3: block b partitions span b (K tiles of 256 threads x 16 consecutive items). Each
// thread loads its items (a whole span of a 16-byte aligned input of 4-byte or smaller elements
// straight into registers, otherwise each warp its part coalesced through padded shared
// memory), finds their parts, the block scans the per-thread counts of parts 0 and 1 (packed in
// one word), stages the items in shared memory in output order (part 0, part 1, rest) and writes
// each part's run coalesced to its place: launch 2's prefixes say where, so no block waits for
// another. BLOCKS blocks an SM; DIRECT false: every span through shared memory (the bench's
// "before" rows).
template <typename T, int BLOCKS, int K, bool DIRECT>
__global__ void __launch_bounds__(WK_SCAN_TILE_THREADS * K, BLOCKS)
    partition_kernel(wk_status* st, uint32_t warp_size, Preds<T> preds, const T* in, uint64_t n,
                     uint64_t spans, const uint64_t* pre0, const uint64_t* pre1, T* out) {
  const unsigned kSpan = K * WK_SCAN_TILE;
  const unsigned kBlockThreads = K * kThreads;
  WK_SHARED(T, items, K * Pad<T>::size);
  WK_SHARED(unsigned, warp_tot, K * kWarps);
  if (!width_ok(st, warp_size)) return;
  const unsigned t = threadIdx.x;
  const uint64_t span = blockIdx.x;
  const uint64_t base = span * kSpan;
  const bool full = base + kSpan <= n;

  const unsigned ln = lane();
  const unsigned w = t / WK_WARP_SIZE;
  T x[kItems];
  load_tile_items<DIRECT>(x, items, in, base, n, full);
  unsigned parts, mine;  // two bits per item: its part, 3 past n; parts 0 and 1's counts
  classify_items(preds, x, base + (uint64_t)t * kItems, n, full, preds.ways == 3, true, parts,
                 mine);
  const wk_lanemask_t mask = block_warp_lanes();
  const unsigned incl = kogge_stone<OP_SUM, unsigned>(mask, mine, WK_WARP_SIZE);
  if (ln == WK_WARP_SIZE - 1) warp_tot[w] = incl;
  const uint64_t before0 = pre0[span], before1 = pre1[span];
  const uint64_t total0 = pre0[spans], total1 = pre1[spans];
  // Every read of `items` above comes before this barrier, so staging may follow it.
  __syncthreads();
  unsigned rank = incl - mine, count = 0;
  for (unsigned i = 0; i < K * kWarps; ++i) {
    if (i < w) rank += warp_tot[i];
    count += warp_tot[i];
  }
  const unsigned cnt0 = count & 0xffffu, cnt1 = count >> 16;
  const uint64_t left = n - base;
  const unsigned live = left < kSpan ? (unsigned)left : kSpan;
  // Block-local places: part 0 from 0, part 1 from cnt0, the rest from cnt0 + cnt1. Without
  // branches on the part: a random predicate would split every warp across them.
  unsigned r0 = rank & 0xffffu, r1 = cnt0 + (rank >> 16);
  unsigned r2 = cnt0 + cnt1 + (t * kItems - (rank & 0xffffu) - (rank >> 16));
  if (full && preds.ways == 2) {
    // Parts 0 and 2 only (part 2: bit 2k + 1 of `parts` set): about eight instructions an
    // item where the generic loop below takes twenty (ncu, H200, f32 at 2^28: the kernel's
    // instructions 486M -> 366M, 606 -> 548 us, 74% -> 82% of DRAM bandwidth). Storing the
    // runs 16 bytes a lane from shared memory as well measured slower (657 us), as it did for
    // the compaction (benches/history/2026-11.md, 2026-11-27).
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) {
      const bool in0 = !((parts >> (2 * k + 1)) & 1u);
      items[Pad<T>::at(in0 ? r0 : r2)] = x[k];
      r0 += in0;
      r2 += !in0;
    }
  } else {
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) {
      const unsigned p = (parts >> (2 * k)) & 3u;
      const unsigned at = p == 0 ? r0 : p == 1 ? r1 : r2;
      if (p != 3u) items[Pad<T>::at(at)] = x[k];
      r0 += p == 0;
      r1 += p == 1;
      r2 += p == 2;
    }
  }
  __syncthreads();
  // Each part's items of the span are consecutive in `items` and in `out`: one loop a part.
  T* const out0 = out + before0;
  T* const out1 = out + total0 + before1;
  T* const out2 = out + total0 + total1 + (base - before0 - before1);
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

// Scratch, for one-tile spans (the most spans any shape makes): a word of counts a span, then
// each part's prefixes and total (spans + 1 words each).
struct Layout {
  unsigned long long* counts;
  uint64_t *pre0, *pre1;
  static uint64_t bytes(uint64_t tiles) {
    return round_up(tiles * 8) + 2 * round_up((tiles + 1) * 8);
  }
  Layout(void* s, uint64_t tiles) {
    char* c = (char*)s;
    counts = (unsigned long long*)c;
    pre0 = (uint64_t*)(c + round_up(tiles * 8));
    pre1 = (uint64_t*)(c + round_up(tiles * 8) + round_up((tiles + 1) * 8));
  }
};

}  // namespace

uint64_t partition_scratch(uint64_t n) { return Layout::bytes(tiles_of(n)); }

int partition_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                     uint32_t ways, uint32_t pred, uint64_t a, uint64_t b, uint32_t pred2,
                     uint64_t a2, uint64_t b2, const void* in, uint64_t n, void* scratch,
                     uint64_t scratch_bytes, void* out, uint64_t* counts) {
  return partition_shaped(stream, st, warp_size, dtype, ways, pred, a, b, pred2, a2, b2, in, n,
                          scratch, scratch_bytes, out, counts, TileShape{});
}

int partition_shaped(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                     uint32_t ways, uint32_t pred, uint64_t a, uint64_t b, uint32_t pred2,
                     uint64_t a2, uint64_t b2, const void* in, uint64_t n, void* scratch,
                     uint64_t scratch_bytes, void* out, uint64_t* counts, TileShape shape) {
  unsigned blocks = shape_code(shape);
  if (pred > 6 || (ways != 2 && ways != 3) || (ways == 3 && pred2 > 6) || !counts)
    return WK_ERR_ARG;
  host::stream_t hs = as_stream(stream);
  if (n == 0) return host::memset_async(counts, 0, (ways - 1) * sizeof(uint64_t), hs);
  const uint64_t tiles = tiles_of(n);
  if (tiles > 0x7fffffffull) return WK_ERR_ARG;
  if (!in || !out || !scratch) return WK_ERR_ARG;
  if (scratch_bytes < partition_scratch(n)) return WK_ERR_SCRATCH;
  const Layout lay(scratch, tiles);
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
    // The three launches with spans of K tiles. A macro, not a lambda: the SIMT executor's
    // launch names the kernel as a template argument.
#define WK_PARTITION_LAUNCH(K, ...)                                                          \
  {                                                                                          \
    const uint64_t spans = (tiles + (K)-1) / (K);                                            \
    WK_LAUNCH((unsigned)spans, kThreads, 0, hs, span_count_kernel<T, K>)(                    \
        p, (const T*)in, n, spans, lay.counts);                                              \
    int rc = host::launch_error();                                                           \
    if (rc) return rc;                                                                       \
    if (spans <= kFewSpans)                                                                  \
      WK_LAUNCH(1, kThreads, 0, hs, span_scan_kernel)(lay.counts, spans, lay.pre0, lay.pre1, \
                                                      counts, ways);                         \
    else                                                                                     \
      WK_LAUNCH(1, kScanThreads, 0, hs, span_scan_rows_kernel)(                              \
          lay.counts, spans, lay.pre0, lay.pre1, counts, ways);                              \
    rc = host::launch_error();                                                               \
    if (rc) return rc;                                                                       \
    WK_LAUNCH((unsigned)spans, kThreads*(K), 0, hs, __VA_ARGS__)(                            \
        st, warp_size, p, (const T*)in, n, spans, lay.pre0, lay.pre1, (T*)out);              \
  }
    // The default from 1024 tiles: two tiles a block at four blocks an SM for 4-byte and smaller
    // elements (two tiles of 8-byte ones pass the 48 KB of static shared memory), else one at
    // six. Measured against the others by the bench's "partition ... blocks=" rows.
    // 8-byte elements take four: their sixteen items are 32 registers a thread, and at six
    // blocks (40 registers) ptxas spilled 1-1.5 KB a thread. H200, f64, 2026-11-30 (the
    // bench's "blocks=6 (before)" row): 1.33x / 1.30x / 1.02x faster at 2^28 / 2^24 / 2^20.
    if (blocks == 0)
      blocks = sizeof(T) <= 4 && tiles >= WK_PARTITION_WIDE_FROM_TILES ? 2 * 16 + 4
               : sizeof(T) == 8                                     ? 4
                                                                    : 6;
    // The "through shared memory" shape is the bench's, which measures it on f32 only: every
    // other type falls through to the default kernel (one kernel a type less in every build).
    switch (blocks) {
      case 2 * 16 + 4:
        if constexpr (sizeof(T) <= 4) {
          WK_PARTITION_LAUNCH(2, partition_kernel<T, 4, 2, true>);
          break;
        }
        [[fallthrough]];
      case 128 + 6:
        if constexpr (std::is_same<T, float>::value) {
          WK_PARTITION_LAUNCH(1, partition_kernel<T, 6, 1, false>);
          break;
        }
        [[fallthrough]];
      default:
        // f64 at six blocks: the bench's "blocks=6 (before)" row of the spilling floor.
        if constexpr (std::is_same<T, double>::value) {
          if (blocks == 6) {
            WK_PARTITION_LAUNCH(1, partition_kernel<T, 6, 1, true>);
            break;
          }
        }
        if constexpr (sizeof(T) == 8) {
          WK_PARTITION_LAUNCH(1, partition_kernel<T, 4, 1, true>);
        } else {
          WK_PARTITION_LAUNCH(1, partition_kernel<T, 6, 1, true>);
        }
    }
#undef WK_PARTITION_LAUNCH
    return host::launch_error();
  });
}

}  // namespace WK_NS
