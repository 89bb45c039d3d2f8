// spmv: CSR y = A x, `vector` lanes per row, each row summed in the documented order
// (docs/SEMANTICS.md "spmv").
//
// Two kernels compute the same bits. spmv_kernel maps a vector of V lanes to each row straight
// from global memory; one vector size cannot fit short and long rows at once, and a long row
// keeps its vector's loads few and serial. spmv_chunk_kernel (the launcher's default) balances
// the load over nonzeros instead: block b owns the rows that start in nonzeros
// [b*chunk, (b+1)*chunk), all its threads gather their products vals[k] * x[cols[k]] into
// shared memory (coalesced, eight in flight per thread), and then each row is folded from
// shared memory by a group of V lanes exactly as the vector kernel folds it: lane j combines
// items j, j+V, ... in order, then the butterfly over the V lanes. Only a block's last row can
// run past its chunk; when it does not fit the shared window, the block streams that row
// through the window while the first V lanes keep folding it.
#include "device.h"

namespace WK_NS {
using namespace prims;

namespace {

__device__ __forceinline__ uint64_t clamp_offset(uint64_t off, uint64_t nnz) {
  return off < nnz ? off : nnz;
}
__device__ __forceinline__ uint64_t max_u64(uint64_t a, uint64_t b) { return a < b ? b : a; }
// off clamped to [lo, hi]: a row's bounds inside its block's nonzeros.
__device__ __forceinline__ uint64_t within(uint64_t off, uint64_t lo, uint64_t hi) {
  return off < lo ? lo : off > hi ? hi : off;
}

// A product vals[k] * x[c] in the accumulator type: the 16-bit floats widened first (their
// product is exact in float), every other type as it is.
template <typename T>
__device__ __forceinline__ typename Elem<T>::Acc product(T v, T x) {
  return mul(to_acc(v), to_acc(x));
}

// A matrix value, loaded evict-first where the arch layer has such a load (32 and 64 bits).
template <typename T> __device__ __forceinline__ T load_matrix_value(const T* p) {
  typedef typename Elem<T>::U U;
  if constexpr (sizeof(U) >= 4)
    return from_bits<T>(arch::load_streaming((const U*)p));
  else
    return *p;
}

template <typename T>
__global__ void spmv_kernel(wk_status* st, const uint32_t* row_offsets, const uint32_t* cols,
                            const T* vals, const T* x, uint64_t x_len, uint64_t nnz,
                            uint64_t rows, uint32_t vector, T* y) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t row = t / vector;
  unsigned j = (unsigned)(t % vector);
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
  A r = bfly<OP_SUM, A>(WK_FULL_MASK, acc, vector);
  if (row < rows && j == 0) y[row] = from_acc<T>(r);
}

// Nonzeros per ownership chunk (a power of two <= kSpmvWindow): enough chunks to fill the GPU
// for small matrices, 2048 for large ones (eight products per thread). Depends on nnz only, so
// the scratch size and the launch agree.
const uint64_t kSpmvWindow = 4096;
uint64_t spmv_chunk(uint64_t nnz) {
  uint64_t c = 2048;
  while (c > 256 && nnz / c < 1024) c /= 2;
  return c;
}
uint64_t spmv_chunks(uint64_t nnz) { return nnz == 0 ? 1 : (nnz + spmv_chunk(nnz) - 1) / spmv_chunk(nnz); }

// row_begin[c] = the first row whose start, as a chunk (clamped to the last chunk), is >= c;
// row_begin[chunks] = rows. Thread r writes the chunks in (chunk(r-1), chunk(r)].
__global__ void spmv_row_begin_kernel(const uint32_t* row_offsets, uint64_t rows, uint64_t nnz,
                                      uint64_t chunk, uint64_t chunks, uint64_t* row_begin) {
  const uint64_t r = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (r > rows) return;
  const uint64_t last = chunks - 1;
  auto chunk_of = [&](uint64_t row) {
    const uint64_t c = clamp_offset(row_offsets[row], nnz) / chunk;
    return c < last ? c : last;
  };
  const uint64_t hi = r == rows ? chunks : chunk_of(r);
  const uint64_t lo = r == 0 ? 0 : chunk_of(r - 1) + 1;
  for (uint64_t c = lo; c <= hi; ++c) row_begin[c] = r;
}

const unsigned kGather = 8;

// prod[k - w0] = vals[k] * x[cols[k]] for k in [w0, w1), every thread of the block; the column
// and value loads, then the gathers, all in flight before the first store. The matrix is read
// once and loaded evict-first, so it streams past x in L2 rather than evicting it.
template <typename T, typename P>
__device__ __forceinline__ void gather_products(wk_status* st, const uint32_t* cols, const T* vals,
                                                const T* x, uint64_t x_len, uint64_t w0,
                                                uint64_t w1, P prod) {
  typedef typename Elem<T>::Acc A;
  const uint64_t cnt = w1 - w0;
  for (uint64_t i0 = threadIdx.x; i0 < cnt; i0 += (uint64_t)kGather * blockDim.x) {
    uint32_t c[kGather];
    A v[kGather], xv[kGather];
#pragma unroll
    for (unsigned u = 0; u < kGather; ++u) {
      const uint64_t i = i0 + (uint64_t)u * blockDim.x;
      c[u] = i < cnt ? arch::load_streaming(cols + w0 + i) : 0;
      v[u] = i < cnt ? to_acc(load_matrix_value(vals + w0 + i)) : A(0);
    }
#pragma unroll
    for (unsigned u = 0; u < kGather; ++u) {
      const uint64_t i = i0 + (uint64_t)u * blockDim.x;
      // Defence in depth, as spmv_kernel: a column past x is reported, never loaded.
      const bool in_x = c[u] < x_len;
      if (i < cnt && !in_x) report(st, WK_ERR_INDEX, c[u]);
      xv[u] = i < cnt && in_x ? to_acc(x[c[u]]) : A(0);
    }
#pragma unroll
    for (unsigned u = 0; u < kGather; ++u) {
      const uint64_t i = i0 + (uint64_t)u * blockDim.x;
      if (i < cnt) prod[i] = mul(v[u], xv[u]);
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(kBlock)
    spmv_chunk_kernel(wk_status* st, const uint32_t* row_offsets, const uint32_t* cols,
                      const T* vals, const T* x, uint64_t x_len, uint64_t nnz, uint32_t vector,
                      const uint64_t* row_begin, T* y) {
  // Products and sums in the accumulator type (float for the 16-bit floats), each row rounded
  // once.
  typedef typename Elem<T>::Acc A;
  typedef Op<OP_SUM, A> O;
  WK_SHARED(A, prod, kSpmvWindow);
  const uint64_t rb = row_begin[blockIdx.x], re = row_begin[blockIdx.x + 1];
  // No row starts in this chunk: a long row of an earlier block covers it.
  if (rb == re) return;
  // Offsets are clamped to nnz (and k1 to k0) so no load leaves cols/vals whatever the launch
  // gets; the host validated them.
  const uint64_t k0 = clamp_offset(row_offsets[rb], nnz);
  const uint64_t k1 = max_u64(k0, clamp_offset(row_offsets[re], nnz));
  const bool fits = k1 - k0 <= kSpmvWindow;
  uint64_t w1 = fits ? k1 : k0 + kSpmvWindow;
  gather_products(st, cols, vals, x, x_len, k0, w1, prod);
  __syncthreads();

  // Rows fully in the window, a group of V lanes each; every thread runs the same trips, so the
  // groups' butterflies always see their whole warp.
  const unsigned V = vector;
  const unsigned groups = blockDim.x / V;
  const unsigned g = threadIdx.x / V, j = threadIdx.x % V;
  const uint64_t nrows = re - rb - (fits ? 0 : 1);
  for (uint64_t base = 0; base < nrows; base += groups) {
    const uint64_t row = rb + base + g;
    const bool live = base + g < nrows;
    A acc = O::identity();
    if (live) {
      const uint64_t b = within(row_offsets[row], k0, k1);
      const uint64_t e = within(row_offsets[row + 1], b, k1);
      for (uint64_t k = b + j; k < e; k += V) acc = O::combine(acc, prod[k - k0]);
    }
    const A r = bfly<OP_SUM, A>(WK_FULL_MASK, acc, V);
    if (live && j == 0) y[row] = from_acc<T>(r);
  }
  if (fits) return;

  // The last row runs past the window: lanes 0..V-1 fold it window by window (lane j's next
  // item is k), the block refilling the window between.
  const uint64_t last = re - 1;
  const bool mine = threadIdx.x < V;
  A acc = O::identity();
  uint64_t k = within(row_offsets[last], k0, k1) + j;
  uint64_t w0 = k0;
  for (;;) {
    if (mine) {
      // Eight shared loads in flight before their eight in-order combines.
      for (; k + 7 * (uint64_t)V < w1; k += 8 * (uint64_t)V) {
        A b[8];
#pragma unroll
        for (unsigned u = 0; u < 8; ++u) b[u] = prod[k + u * V - w0];
#pragma unroll
        for (unsigned u = 0; u < 8; ++u) acc = O::combine(acc, b[u]);
      }
      for (; k < w1; k += V) acc = O::combine(acc, prod[k - w0]);
    }
    if (w1 >= k1) break;
    __syncthreads();
    w0 = w1;
    w1 = k1 - w0 < kSpmvWindow ? k1 : w0 + kSpmvWindow;
    gather_products(st, cols, vals, x, x_len, w0, w1, prod);
    __syncthreads();
  }
  if (threadIdx.x < WK_WARP_SIZE) {
    const A r = bfly<OP_SUM, A>(WK_FULL_MASK, mine ? acc : O::identity(), V);
    if (threadIdx.x == 0) y[last] = from_acc<T>(r);
  }
}

}  // namespace

// Monotone in nnz, so that sizing the scratch for n nonzeros (GpuBackend::reserve) covers every
// matrix with fewer: spmv_chunks is not (the chunk shrinks for small matrices), but a chunk is
// never below 256 nonzeros, so chunks <= nnz / 256 + 1, plus the sentinel.
uint64_t spmv_scratch(uint64_t nnz) { return round_up((nnz / 256 + 2) * sizeof(uint64_t)); }

int spmv_balanced_launch(void* stream, wk_status* st, uint32_t dtype, const uint32_t* row_offsets,
                         const uint32_t* cols, const void* vals, const void* x, uint64_t x_len,
                         uint64_t rows, uint64_t nnz, uint32_t vector, void* scratch, uint64_t scratch_bytes,
                         void* y) {
  if (!pow2_upto(vector, WK_MAX_VECTOR) || vector > kBlock) return WK_ERR_ARG;
  if (rows == 0) return 0;
  // No nonzeros: every row is empty, the vector kernel writes the identities.
  if (nnz == 0) return spmv_launch(stream, st, dtype, row_offsets, cols, vals, x, x_len, 0, rows, vector, y);
  const uint64_t chunk = spmv_chunk(nnz), chunks = spmv_chunks(nnz);
  unsigned pre_grid;
  if (chunks > 0x7fffffffull || !grid_for(rows + 1, kBlock, &pre_grid)) return WK_ERR_ARG;
  if (scratch_bytes < spmv_scratch(nnz)) return WK_ERR_SCRATCH;
  uint64_t* row_begin = (uint64_t*)scratch;
  host::stream_t s = as_stream(stream);
  WK_LAUNCH(pre_grid, kBlock, 0, s, spmv_row_begin_kernel)(row_offsets, rows, nnz, chunk,
                                                           chunks, row_begin);
  int rc = host::launch_error();
  if (rc) return rc;
  return with_dtype_io(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    WK_LAUNCH((unsigned)chunks, kBlock, 0, s, spmv_chunk_kernel<T>)(
        st, row_offsets, cols, (const T*)vals, (const T*)x, x_len, nnz, vector, row_begin, (T*)y);
    return host::launch_error();
  });
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
