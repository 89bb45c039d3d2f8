// spmv: CSR y = A x, `vector` lanes per row, each row summed in the documented order
// (docs/SEMANTICS.md "spmv").
//
// Two kernels compute the same bits. spmv_kernel maps a vector of V lanes to each row straight
// from global memory; one vector size cannot fit short and long rows at once, and a long row
// keeps its vector's loads few and serial. spmv_chunk_kernel (the launcher's default) balances
// the load over nonzeros instead: block b owns the rows that start in nonzeros
// [b*chunk, (b+1)*chunk), all its threads gather their products vals[k] * x[cols[k]] into
// shared memory (coalesced, four in flight per thread per round), and then each row is folded
// from shared memory by a group of V lanes exactly as the vector kernel folds it: lane j
// combines items j, j+V, ... in order, then the butterfly over the V lanes. The block's row
// offsets wait in shared memory too, so the fold issues no global loads. Only a block's last row
// can run past its chunk; when it does not fit the shared window, the block streams that row
// through the window while the first V lanes keep folding it.
//
// With groups of 16 or 32 lanes, a row of up to 8 items (a skewed matrix's many short rows
// under the V its mean length picks) is folded by one thread alone, the butterfly's levels in
// registers; a row of up to 2V items by a quad of lanes, each folding V/4 of the canonical lanes
// in registers before two shuffles; and the groups take only the longer rows (fold_by_length):
// the same bits.
//
// Which rows a block owns (row_begin, the first row starting in each chunk) is the matrix's
// partition: spmv_balanced derives it in a pass of its own before every launch, spmv_plan once
// for a matrix that keeps it (the API's Csr), and spmv_planned is then one launch, 3-17% faster
// (benches/history/2026-11.md "SpMV: the partition made once"). spmv_planned also knows the
// matrix's longest row, and gives small matrices of even rows to spmv_kernel (kSpmvVectorNnz).
//
// A plan's chunks are of the merge path (Merrill and Garland's split of rows and nonzeros
// together): a row starts at r + row_offsets[r], so a block owns at most `chunk` rows and
// nonzeros, and a run of empty or short rows spreads over blocks instead of falling to the one
// block where the nonzeros resume (all of a matrix's trailing empty rows to the last block). Each
// row is still folded whole by its owner: rows split between threads, as in Merrill and
// Garland's kernel, would change the documented order. On the bench's matrices it is as fast as
// chunks of nonzeros, and on a band of empty rows many times faster (benches/history/2026-11.md
// "SpMV: merge-path chunks"). spmv_balanced keeps chunks of nonzeros: its scratch is sized by nnz
// alone.
//
// The gather is bound by L2 latency and the fold by shared memory and shuffles, so blocks must
// overlap: the chunk kernel is compiled for six blocks an SM (40 registers). Eight (32
// registers) measured slower, and the compiler's own choice (66 registers, three blocks) up to
// 15% slower (benches/history/2026-11.md "SpMV: the balanced kernel at six blocks an SM").
#include "bfly_fold.h"
#include "spmv_items.h"
#include "shapes.h"

namespace WK_NS {
using namespace prims;

namespace {

template <typename T>
__global__ void spmv_kernel(wk_status* st, const uint32_t* row_offsets, const uint32_t* cols,
                            const T* vals, const T* x, uint64_t x_len, uint64_t nnz,
                            uint64_t rows, uint32_t vector, T* y) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lv = log2_pow2(vector);
  uint64_t row = t >> lv;
  unsigned j = (unsigned)t & (vector - 1);
  typedef typename Elem<T>::Acc A;
  typedef Op<OP_SUM, A> O;
  A acc = O::identity();
  if (row < rows) {
    // Defence in depth (the host validated the matrix): offsets past nnz are clamped and a
    // column past x is reported, so no load leaves the buffers whatever the launch gets.
    const uint64_t stop = row_offsets[row + 1];
    const uint64_t end = stop < nnz ? stop : nnz;
    uint64_t k = row_offsets[row] + j;
    uint32_t bad = 0;
    bool ok = true;
    // Four products' loads in flight before the in-order adds; the order is unchanged.
    for (; k + 3 * (uint64_t)vector < end; k += 4 * (uint64_t)vector) {
      uint32_t c0 = cols[k], c1 = cols[k + vector], c2 = cols[k + 2 * vector], c3 = cols[k + 3 * vector];
      if (c0 >= x_len || c1 >= x_len || c2 >= x_len || c3 >= x_len) {
        bad = c0 >= x_len ? c0 : c1 >= x_len ? c1 : c2 >= x_len ? c2 : c3;
        ok = false;
        break;
      }
      A p0 = product(vals[k], x[c0]), p1 = product(vals[k + vector], x[c1]);
      A p2 = product(vals[k + 2 * vector], x[c2]), p3 = product(vals[k + 3 * vector], x[c3]);
      acc = O::combine(O::combine(O::combine(O::combine(acc, p0), p1), p2), p3);
    }
    for (; ok && k < end; k += vector) {
      uint32_t c = cols[k];
      if (c >= x_len) {
        bad = c;
        ok = false;
      } else {
        acc = O::combine(acc, product(vals[k], x[c]));
      }
    }
    if (!ok) report(st, WK_ERR_INDEX, (row << 32) | bad);
  }
  A r = group_sum(acc, vector);
  if (row < rows && j == 0) y[row] = from_acc<T>(r);
}

// Nonzeros per ownership chunk (a power of two <= kSpmvWindow): 2048 (eight products a thread)
// down to 512 chunks, about one wave of six blocks an SM on 132 SMs, then smaller chunks for
// smaller matrices (at 2^20 nonzeros 2048 against 1024: regular rows the same, power-law rows
// 3-4% faster). Depends on nnz only, so the scratch size and the launch agree.
const uint64_t kSpmvWindow = 4096;
uint64_t spmv_chunk(uint64_t nnz) {
  uint64_t c = 2048;
  while (c > 256 && nnz / c < 512) c /= 2;
  return c;
}

// row_begin[c] = the first row whose start, as a chunk (clamped to the last chunk), is >= c;
// row_begin[chunks] = rows. Thread r writes the chunks in (chunk(r-1), chunk(r)].
// A row's start is its first nonzero's position, or with `merge` its position on the merge path
// of rows and nonzeros (r + row_offsets[r]: the rows and the nonzeros before it), so that a
// chunk holds `chunk` rows and nonzeros together and runs of short or empty rows spread over
// blocks instead of piling onto the block where they start.
__global__ void spmv_row_begin_kernel(const uint32_t* row_offsets, uint64_t rows, uint64_t nnz,
                                      uint64_t chunk, uint64_t chunks, bool merge,
                                      uint64_t* row_begin) {
  const uint64_t r = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (r > rows) return;
  const uint64_t last = chunks - 1;
  auto chunk_of = [&](uint64_t row) {
    const uint64_t at = clamp_offset(row_offsets[row], nnz) + (merge ? row : 0);
    const uint64_t c = at >> log2_pow2(chunk);
    return c < last ? c : last;
  };
  const uint64_t hi = r == rows ? chunks : chunk_of(r);
  const uint64_t lo = r == 0 ? 0 : chunk_of(r - 1) + 1;
  for (uint64_t c = lo; c <= hi; ++c) row_begin[c] = r;
}

// prod[k - w0] = vals[k] * x[cols[k]] for k in [w0, w1), every thread of the block, G at a time;
// the column and value loads, then the gathers, all in flight before the first store. The
// matrix is read once and loaded evict-first, so it streams past x in L2 rather than evicting it.
template <unsigned G, typename T, typename P>
__device__ __forceinline__ void gather_products(wk_status* st, const uint32_t* cols, const T* vals,
                                                const T* x, uint64_t x_len, uint64_t w0,
                                                uint64_t w1, P prod) {
  typedef typename Elem<T>::Acc A;
  // Positions count from the warp-aligned position at or below w0, so that each warp's column
  // and value loads fill whole cache lines: from w0 itself a warp's 4-byte columns straddled two
  // lines, two L2 requests each, which made our L2 requests 7% more than cuSPARSE's on the same
  // sectors (Nsight Compute, benches/history/2026-12.md "SpMV: rows folded by quads"). 32-bit
  // positions inside the window (at most kSpmvWindow plus a warp) keep the loads' addresses cheap
  // in registers.
  const uint64_t a0 = w0 & ~(uint64_t)(WK_WARP_SIZE - 1);
  const uint32_t lead = (uint32_t)(w0 - a0);
  const uint32_t end = (uint32_t)(w1 - a0);
  const uint32_t* cw = cols + a0;
  const T* vw = vals + a0;
  for (uint32_t i0 = threadIdx.x; i0 < end; i0 += G * blockDim.x) {
    uint32_t c[G];
    A v[G], xv[G];
#pragma unroll
    for (unsigned u = 0; u < G; ++u) {
      const uint32_t i = i0 + u * blockDim.x;
      const bool in = i >= lead && i < end;
      c[u] = in ? arch::load_streaming(cw + i) : 0;
      v[u] = in ? to_acc(load_matrix_value(vw + i)) : A(0);
    }
#pragma unroll
    for (unsigned u = 0; u < G; ++u) {
      const uint32_t i = i0 + u * blockDim.x;
      const bool in = i >= lead && i < end;
      // Defence in depth, as spmv_kernel: a column past x is reported, never loaded.
      const bool in_x = c[u] < x_len;
      if (in && !in_x) report(st, WK_ERR_INDEX, c[u]);
      xv[u] = in && in_x ? to_acc(x[c[u]]) : A(0);
    }
#pragma unroll
    for (unsigned u = 0; u < G; ++u) {
      const uint32_t i = i0 + u * blockDim.x;
      if (i >= lead && i < end) prod[i - lead] = mul(v[u], xv[u]);
    }
  }
}

// Lane j's items k, k + V, ... below `end` combined into acc in order, eight shared loads in
// flight before their eight combines (a long row's lane adds hundreds of items in a chain); item
// k sits at prod[k - base]. Returns the first k at or past `end`, where the next window resumes.
template <typename A, typename P>
__device__ __forceinline__ uint32_t fold_lane(A& acc, P prod, uint32_t k, uint32_t end,
                                              unsigned V, uint32_t base) {
  typedef Op<OP_SUM, A> O;
  for (; k + 7 * V < end; k += 8 * V) {
    A t[8];
#pragma unroll
    for (unsigned u = 0; u < 8; ++u) t[u] = prod[k + u * V - base];
#pragma unroll
    for (unsigned u = 0; u < 8; ++u) acc = O::combine(acc, t[u]);
  }
  for (; k < end; k += V) acc = O::combine(acc, prod[k - base]);
  return k;
}

template <bool B> struct Flag {
  static const bool value = B;
};

// Row offsets a block keeps in shared memory for its fold (rb..re, this many at most; a block
// with more rows reads the rest from global memory).
const unsigned kSpmvStagedRows = 1024;
// Products gathered a round by each thread: four keeps the kernel at 40 registers without spills.
const unsigned kGather = 4;
// Blocks an SM the chunk kernel is compiled for (see the top of the file).
const unsigned kSpmvBlocks = 6;
// The longest row a thread folds alone (fold_by_length).
const unsigned kSpmvShortRow = 8;
// Lanes that fold a row of at most kSpmvMidItems * V items together (fold_by_length): each
// takes V / kSpmvQuad of the row's V canonical lanes.
const unsigned kSpmvQuad = 4;
const unsigned kSpmvMidItems = 2;

// Positions inside the matrix fit 32 bits (the offsets are u32, so nnz < 2^32).
template <typename T, unsigned BLOCKS>
__global__ void __launch_bounds__(kBlock, BLOCKS)
    spmv_chunk_kernel(wk_status* st, const uint32_t* row_offsets, const uint32_t* cols,
                      const T* vals, const T* x, uint64_t x_len, uint64_t rows, uint64_t nnz,
                      uint32_t vector, uint32_t short_rows, bool quads,
                      const uint64_t* row_begin, T* y) {
  // Products and sums in the accumulator type (float for the 16-bit floats), each row rounded
  // once.
  typedef typename Elem<T>::Acc A;
  typedef Op<OP_SUM, A> O;
  WK_SHARED(A, prod, kSpmvWindow);
  WK_SHARED(uint32_t, offs, kSpmvStagedRows);
  // The rows left to the quads and to the groups when rows are folded by length
  // (fold_by_length, 4-byte sums only: 8-byte ones would need more shared memory than six
  // blocks an SM have).
  WK_SHARED(uint16_t, longs, sizeof(A) == 4 ? kSpmvStagedRows : 1);
  WK_SHARED(uint16_t, mids, sizeof(A) == 4 ? kSpmvStagedRows : 1);
  WK_SHARED_VAR(uint32_t, nlongs);
  WK_SHARED_VAR(uint32_t, nmids);
  // Clamped into the matrix, so a partition made for another matrix cannot move a load or a
  // store out of it.
  const uint64_t rb = min_u64(row_begin[blockIdx.x], rows);
  const uint64_t re = max_u64(rb, min_u64(row_begin[blockIdx.x + 1], rows));
  // No row starts in this chunk: a long row of an earlier block covers it.
  if (rb == re) return;
  const uint32_t n32 = (uint32_t)(nnz < UINT32_MAX ? nnz : UINT32_MAX);
  const uint64_t span = re - rb;
  const uint32_t staged = (uint32_t)(span + 1 < kSpmvStagedRows ? span + 1 : kSpmvStagedRows);
  for (uint32_t i = threadIdx.x; i < staged; i += blockDim.x) offs[i] = row_offsets[rb + i];
  // Offsets clamped to nnz (and k1 to k0), so no load leaves cols/vals whatever the launch gets.
  const uint32_t k0 = min_u32(row_offsets[rb], n32);
  const uint32_t k1 = max_u32(k0, min_u32(row_offsets[re], n32));
  const bool fits = k1 - k0 <= kSpmvWindow;
  uint32_t w1 = fits ? k1 : k0 + kSpmvWindow;
  gather_products<kGather>(st, cols, vals, x, x_len, k0, w1, prod);
  __syncthreads();
  // Row rb + i's start inside the block's nonzeros, relative to k0 (clamped into the window,
  // which only offsets the host would have refused can leave).
  const uint32_t lim = w1 - k0;
  // all_staged (Flag<true>): the caller knows i < staged.
  auto start_of = [&](auto i, auto all_staged) -> uint32_t {
    const uint32_t o = decltype(all_staged)::value || i < staged ? offs[i] : row_offsets[rb + i];
    return min_u32((o < k0 ? k0 : o > k1 ? k1 : o) - k0, lim);
  };

  // Rows fully in the window, a group of V lanes each; every thread runs the same trips, so the
  // groups' butterflies always see their whole warp. A block whose offsets all fit the staged
  // ones (nearly every block) counts rows in 32 bits and reads every offset from shared memory.
  const unsigned V = vector;
  const unsigned lv = log2_pow2(V);
  const unsigned groups = blockDim.x >> lv;
  const unsigned g = threadIdx.x >> lv, j = threadIdx.x & (V - 1);
  const uint64_t nrows = span - (fits ? 0 : 1);
  // Row rb + i folded by this thread's group in the documented order; every lane of the warp
  // comes (live or not) for the butterfly.
  auto fold_in_group = [&](bool live, auto i, auto all_staged) {
    typedef decltype(i) I;
    A acc = O::identity();
    if (live) {
      const uint32_t b = start_of(i, all_staged);
      const uint32_t e = max_u32(b, start_of((I)(i + 1), all_staged));
      fold_lane(acc, prod, b + j, e, V, 0);
    }
    const A r = group_sum(acc, V);
    if (live && j == 0) y[rb + i] = from_acc<T>(r);
  };
  auto fold_rows = [&](auto index, auto all_staged) {
    typedef decltype(index) I;
    const I n = (I)nrows;
    for (I base = 0; base < n; base += groups) fold_in_group(base + g < n, (I)(base + g), all_staged);
  };
  // Rows by length (4-byte sums whose offsets are all staged). A row of at most `short_rows`
  // (<= V) items is folded by one thread: lane j of its group would hold item j alone (the
  // identity, -0.0 for float Sum, added exactly) and the butterfly's lanes past the row's items
  // only ever add identities, so lane 0's result is the canonical butterfly over the row's items
  // in registers (bfly_fold, which reduce_rows and peer_all_reduce share). A row of at most
  // kSpmvMidItems * V items is folded by a quad of lanes: lane q of the quad holds the canonical
  // lanes j = q, q + 4, ..., each summing its items j, j + V, ... from the identity; the
  // butterfly's levels V/2 .. 4 pair lanes of one residue mod 4, so the quad lane folds its
  // V / 4 lanes in registers (bfly_fold) and the last two levels are shuffles within the quad:
  // the same combines in the same order, so the same bits. The rest are folded by a group of V
  // lanes. A group spends a butterfly of log2(V) shuffles on each row; the quads take eight rows a
  // warp for two (benches/history/2026-12.md "SpMV: rows folded by quads").
  const bool by_quads = quads && V >= kSpmvQuad;
  auto fold_by_length = [&]() {
    const uint32_t n = (uint32_t)nrows;
    const uint32_t mid_rows = by_quads ? kSpmvMidItems * V : 0;
    if (threadIdx.x == 0) {
      nlongs = 0;
      nmids = 0;
    }
    __syncthreads();
    // Warp by warp (every lane comes, for the ballots): each list's places a warp takes with
    // one shared atomic, not one a row (the same address from every lane serialises); the
    // wanting lanes' places follow lane order.
    const unsigned ln = lane();
    auto place_in = [&](bool want, auto& count) -> uint32_t {
      const wk_lanemask_t m = arch::ballot_sync(WK_FULL_MASK, want);
      uint32_t at = 0;
      if (ln == 0 && m) at = atomicAdd(&count, (uint32_t)arch::popc(m));
      return shfl_idx(WK_FULL_MASK, at, 0, WK_WARP_SIZE) +
             (uint32_t)arch::popc(m & arch::lanemask_lt());
    };
    for (uint32_t base = threadIdx.x - ln; base < n; base += blockDim.x) {
      const uint32_t i = base + ln;
      const bool in = i < n;
      const uint32_t b = in ? start_of(i, Flag<true>()) : 0;
      const uint32_t len = in ? max_u32(b, start_of(i + 1, Flag<true>())) - b : 0;
      const bool mid = in && len > short_rows && len <= mid_rows;
      const bool lng = in && len > short_rows && len > mid_rows;
      const uint32_t at_m = place_in(mid, nmids);
      const uint32_t at_l = place_in(lng, nlongs);
      if (mid) mids[at_m] = (uint16_t)i;
      if (lng) longs[at_l] = (uint16_t)i;
      if (!in || mid || lng) continue;
      A w[kSpmvShortRow];
#pragma unroll
      for (unsigned k = 0; k < kSpmvShortRow; ++k) w[k] = k < len ? prod[b + k] : O::identity();
      y[rb + i] = from_acc<T>(bfly_fold<OP_SUM, A, kSpmvShortRow>(w, len));
    }
    __syncthreads();
    const uint32_t nm = nmids;
    const unsigned nquads = blockDim.x / kSpmvQuad;
    const unsigned qd = threadIdx.x / kSpmvQuad, q = threadIdx.x % kSpmvQuad;
    const unsigned per_lane = V / kSpmvQuad;
    for (uint32_t base = 0; base < nm; base += nquads) {
      const bool live = base + qd < nm;
      A r[WK_MAX_VECTOR / kSpmvQuad];
#pragma unroll
      for (unsigned m = 0; m < WK_MAX_VECTOR / kSpmvQuad; ++m) r[m] = O::identity();
      uint32_t i = 0;
      if (live) {
        i = mids[base + qd];
        const uint32_t b = start_of(i, Flag<true>());
        const uint32_t e = max_u32(b, start_of(i + 1, Flag<true>()));
#pragma unroll
        for (unsigned m = 0; m < WK_MAX_VECTOR / kSpmvQuad; ++m) {
          if (m < per_lane) {
            A acc = O::identity();
#pragma unroll
            for (unsigned t = 0; t < kSpmvMidItems; ++t) {
              const uint32_t k = b + q + kSpmvQuad * m + t * V;
              if (k < e) acc = O::combine(acc, prod[k]);
            }
            r[m] = acc;
          }
        }
      }
      A v = bfly_fold<OP_SUM, A, WK_MAX_VECTOR / kSpmvQuad>(r, per_lane);
#pragma unroll
      for (unsigned d = kSpmvQuad / 2; d >= 1; d >>= 1)
        v = O::combine(v, shfl_xor(WK_FULL_MASK, v, d, kSpmvQuad));
      if (live && q == 0) y[rb + i] = from_acc<T>(v);
    }
    const uint32_t nl = nlongs;
    for (uint32_t base = 0; base < nl; base += groups) {
      const bool live = base + g < nl;
      fold_in_group(live, live ? (uint32_t)longs[base + g] : 0u, Flag<true>());
    }
  };
  // (8-byte sums keep one 64-bit form: two forms of the fold spill their registers.)
  if (sizeof(A) == 4 && span < kSpmvStagedRows) {
    if (short_rows > 0 || by_quads)
      fold_by_length();
    else
      fold_rows(uint32_t(), Flag<true>());
  } else {
    fold_rows(uint64_t(), Flag<false>());
  }
  if (fits) return;

  // The last row runs past the window: lanes 0..V-1 fold it window by window (lane j's next
  // item is k0 + k), the block refilling the window between.
  const bool mine = threadIdx.x < V;
  A acc = O::identity();
  uint32_t k = start_of(span - 1, Flag<false>()) + j;
  uint32_t w0 = 0;
  uint32_t wend = w1 - k0;
  const uint32_t kend = k1 - k0;
  for (;;) {
    if (mine) k = fold_lane(acc, prod, k, wend, V, w0);
    if (wend >= kend) break;
    __syncthreads();
    w0 = wend;
    wend = kend - w0 < kSpmvWindow ? kend : w0 + kSpmvWindow;
    gather_products<kGather>(st, cols, vals, x, x_len, (uint64_t)k0 + w0, (uint64_t)k0 + wend,
                             prod);
    __syncthreads();
  }
  if (threadIdx.x < WK_WARP_SIZE) {
    const A r = group_sum(mine ? acc : O::identity(), V);
    if (threadIdx.x == 0) y[re - 1] = from_acc<T>(r);
  }
}

}  // namespace

// Monotone in nnz, so that sizing the scratch for n nonzeros (GpuBackend::reserve) covers every
// matrix with fewer: the chunk count is not (the chunk shrinks for small matrices), but a chunk is
// never below 256 nonzeros, so chunks <= nnz / 256 + 1, plus the sentinel.
uint64_t spmv_scratch(uint64_t nnz) { return round_up((nnz / 256 + 2) * sizeof(uint64_t)); }

namespace {

// The planned SpMV takes the vector kernel when no row has more than two items a lane and the
// matrix is at most this many nonzeros: there a block of the chunk kernel is one serial gather
// then fold in a single wave, and the vector kernel's many short blocks finished first (regular
// rows of 8..64 at V = 32, up to 2^22: benches/history/2026-11.md "SpMV: short rows a thread
// each"). Since the chunk kernel folds such rows by quads it is 2-3% faster than the vector kernel
// at 2^20 and as fast at 2^22 (benches/history/2026-12.md "SpMV: rows folded by quads"); smaller
// matrices were not measured again and keep the vector kernel. longest_row is the host's count
// (Csr::new) and only picks the kernel: both read within the row offsets whatever it says.
const uint64_t kSpmvVectorNnz = 1ull << 19;

// What a partition counts: nonzeros, or rows and nonzeros on the merge path.
uint64_t spmv_units(uint64_t rows, uint64_t nnz, bool merge) { return nnz + (merge ? rows : 0); }

// row_begin of the matrix's chunks of `chunk` units into `plan`.
int plan_launch(host::stream_t s, const uint32_t* row_offsets, uint64_t rows, uint64_t nnz,
                uint64_t chunk, bool merge, void* plan, uint64_t plan_bytes) {
  const uint64_t units = spmv_units(rows, nnz, merge);
  const uint64_t chunks = (units + chunk - 1) / chunk;
  unsigned grid;
  if (chunks > 0x7fffffffull || !grid_for(rows + 1, kBlock, &grid)) return WK_ERR_ARG;
  // A chunk of at least 256 units needs no more than spmv_scratch(units).
  if (plan_bytes < spmv_scratch(units)) return WK_ERR_SCRATCH;
  WK_LAUNCH(grid, kBlock, 0, s, spmv_row_begin_kernel)(row_offsets, rows, nnz, chunk, chunks,
                                                       merge, (uint64_t*)plan);
  return host::launch_error();
}

// The chunk kernel over the partition `row_begin` of chunks of `chunk` units (nonzeros, or
// rows and nonzeros on the merge path), in the shape `shape` names (shapes.h).
int chunks_launch(host::stream_t s, wk_status* st, uint32_t dtype, const uint32_t* row_offsets,
                  const uint32_t* cols, const void* vals, const void* x, uint64_t x_len,
                  uint64_t rows, uint64_t nnz, uint32_t vector, uint64_t chunk,
                  const uint64_t* row_begin, void* y, SpmvShape shape) {
  const uint64_t chunks = (spmv_units(rows, nnz, shape.merge_path) + chunk - 1) / chunk;
  if (chunks > 0x7fffffffull) return WK_ERR_ARG;
  const unsigned grid = (unsigned)chunks;
  // Short rows a thread each where a group is at least twice the longest of them (the
  // equivalence needs an item a lane at most; smaller groups fold short rows cheaply).
  const uint32_t short_rows =
      !shape.groups_only && vector >= 2 * kSpmvShortRow ? kSpmvShortRow : 0;
  // Rows of up to kSpmvMidItems * V items a quad of lanes each (fold_by_length).
  const bool quads = !shape.groups_only && !shape.no_quads;
  if (shape.kernel == SpmvShape::kFourBlocks) {
    WK_LAUNCH(grid, kBlock, 0, s, spmv_chunk_kernel<float, 4>)(
        st, row_offsets, cols, (const float*)vals, (const float*)x, x_len, rows, nnz, vector,
        short_rows, quads, row_begin, (float*)y);
    return host::launch_error();
  }
  return with_dtype_io(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    WK_LAUNCH(grid, kBlock, 0, s, spmv_chunk_kernel<T, kSpmvBlocks>)(
        st, row_offsets, cols, (const T*)vals, (const T*)x, x_len, rows, nnz, vector,
        short_rows, quads, row_begin, (T*)y);
    return host::launch_error();
  });
}

}  // namespace

// The balanced SpMV in the shape `shape` names (shapes.h). A prepared shape skips the
// row_begin pass: the scratch already holds it for this matrix and chunk, as spmv_planned's
// plan; the merge path's scratch holds a word for every 256 rows and nonzeros.
int spmv_balanced_shaped(void* stream, wk_status* st, uint32_t dtype,
                         const uint32_t* row_offsets, const uint32_t* cols, const void* vals,
                         const void* x, uint64_t x_len, uint64_t rows, uint64_t nnz,
                         uint32_t vector, void* scratch, uint64_t scratch_bytes, void* y,
                         SpmvShape shape) {
  const unsigned chunk_log = shape.chunk_log;
  const bool merge = shape.merge_path;
  if (!pow2_upto(vector, WK_MAX_VECTOR) || vector > kBlock) return WK_ERR_ARG;
  if (chunk_log != 0 && (chunk_log < 8 || chunk_log > 12)) return WK_ERR_ARG;
  if (shape.kernel == SpmvShape::kFourBlocks && dtype != DT_F32) return WK_ERR_ARG;
  if (rows == 0) return 0;
  // No nonzeros: every row is empty, the vector kernel writes the identities.
  if (nnz == 0 || shape.kernel == SpmvShape::kVector)
    return spmv_launch(stream, st, dtype, row_offsets, cols, vals, x, x_len, nnz, rows, vector, y);
  const uint64_t units = spmv_units(rows, nnz, merge);
  const uint64_t chunk = chunk_log ? 1ull << chunk_log : spmv_chunk(units);
  host::stream_t s = as_stream(stream);
  if (scratch_bytes < spmv_scratch(units)) return WK_ERR_SCRATCH;
  if (!shape.prepared) {
    const int rc = plan_launch(s, row_offsets, rows, nnz, chunk, merge, scratch, scratch_bytes);
    if (rc) return rc;
  }
  return chunks_launch(s, st, dtype, row_offsets, cols, vals, x, x_len, rows, nnz, vector, chunk,
                       (const uint64_t*)scratch, y, shape);
}

int spmv_balanced_launch(void* stream, wk_status* st, uint32_t dtype, const uint32_t* row_offsets,
                         const uint32_t* cols, const void* vals, const void* x, uint64_t x_len,
                         uint64_t rows, uint64_t nnz, uint32_t vector, void* scratch, uint64_t scratch_bytes,
                         void* y) {
  return spmv_balanced_shaped(stream, st, dtype, row_offsets, cols, vals, x, x_len, rows, nnz,
                              vector, scratch, scratch_bytes, y, SpmvShape{});
}

// A matrix's plan is of the merge path's chunks (a word for every 256 rows and nonzeros or
// fewer: spmv_scratch(rows + nnz)).
int spmv_plan_launch(void* stream, const uint32_t* row_offsets, uint64_t rows, uint64_t nnz,
                     void* plan, uint64_t plan_bytes) {
  if (rows == 0 || nnz == 0) return 0;
  return plan_launch(as_stream(stream), row_offsets, rows, nnz,
                     spmv_chunk(spmv_units(rows, nnz, true)), true, plan, plan_bytes);
}

// The planned SpMV's shape: the merge path's chunks, folded the default way.
static const SpmvShape kPlannedShape = {SpmvShape::kDefault, 0, true, false, true, false};

int spmv_planned_launch(void* stream, wk_status* st, uint32_t dtype, const uint32_t* row_offsets,
                        const uint32_t* cols, const void* vals, const void* x, uint64_t x_len,
                        uint64_t rows, uint64_t nnz, uint32_t vector, const void* plan,
                        uint64_t plan_bytes, uint64_t longest_row, void* y) {
  if (!pow2_upto(vector, WK_MAX_VECTOR) || vector > kBlock) return WK_ERR_ARG;
  if (rows == 0) return 0;
  // No nonzeros, or rows even enough for the vector kernel (above).
  if (nnz == 0 || (nnz <= kSpmvVectorNnz && longest_row <= 2ull * vector))
    return spmv_launch(stream, st, dtype, row_offsets, cols, vals, x, x_len, nnz, rows, vector, y);
  const uint64_t units = spmv_units(rows, nnz, true);
  if (plan_bytes < spmv_scratch(units)) return WK_ERR_SCRATCH;
  return chunks_launch(as_stream(stream), st, dtype, row_offsets, cols, vals, x, x_len, rows, nnz,
                       vector, spmv_chunk(units), (const uint64_t*)plan, y, kPlannedShape);
}

int spmv_launch(void* stream, wk_status* st, uint32_t dtype, const uint32_t* row_offsets,
                const uint32_t* cols, const void* vals, const void* x, uint64_t x_len,
                uint64_t nnz, uint64_t rows, uint32_t vector, void* y) {
  unsigned grid;
  if (!pow2_upto(vector, WK_MAX_VECTOR) || rows > (~0ull) / vector ||
      !grid_for(rows * vector, kBlock, &grid))
    return WK_ERR_ARG;
  return with_dtype_io(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    WK_LAUNCH(grid, kBlock, 0, as_stream(stream), spmv_kernel<T>)(st, row_offsets, cols, (const T*)vals,
                                                           (const T*)x, x_len, nnz, rows,
                                                           vector, (T*)y);
    return host::launch_error();
  });
}

}  // namespace WK_NS
