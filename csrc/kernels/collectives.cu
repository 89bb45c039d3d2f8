// Warp collectives over sub-width segments, block reduce, segmented reduce and SpMV, each in
// the canonical order of docs/SEMANTICS.md.
#include "dispatch.h"

namespace WK_NS {
using namespace prims;

namespace {

// Launched in full blocks; lanes past n hold the identity, so a short last segment is padded.
template <int OP, typename T>
__global__ void warp_reduce_kernel(wk_status* st, uint32_t warp_size, const T* vals, uint64_t n,
                                   uint32_t width, T* out) {
  if (!width_ok(st, warp_size)) return;
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  T v = t < n ? vals[t] : Op<OP, T>::identity();
  T r = bfly<OP, T>(WK_FULL_MASK, v, width);
  if (t < n && t % width == 0) out[t / width] = r;
}

template <int OP, typename T>
__global__ void warp_scan_kernel(wk_status* st, uint32_t warp_size, uint32_t exclusive,
                                 const T* vals, uint64_t n, uint32_t width, T* out) {
  if (!width_ok(st, warp_size)) return;
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  T v = t < n ? vals[t] : Op<OP, T>::identity();
  T r = kogge_stone<OP, T>(WK_FULL_MASK, v, width);
  if (exclusive) {
    T prev = shfl_up(WK_FULL_MASK, r, 1, width);
    r = (lane() & (width - 1)) == 0 ? Op<OP, T>::identity() : prev;
  }
  if (t < n) out[t] = r;
}

// One block per result: blockDim == block, the last block padded with the identity.
template <int OP, typename T>
__global__ void block_reduce_kernel(const T* in, uint64_t n, T* out) {
  WK_SHARED(T, groups, WK_MAX_GROUPS);
  uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  T v = e < n ? in[e] : Op<OP, T>::identity();
  T r = group_reduce<OP, T>(v, groups);
  if (threadIdx.x == 0) out[blockIdx.x] = r;
}

// `vector` lanes per segment (row): lane j folds items j, j+V, ... from the identity, then
// bfly over the V lanes. Segments past `count` fold nothing and write nothing.
template <int OP, typename T>
__global__ void segmented_kernel(const T* in, uint64_t n, const uint32_t* offsets,
                                 uint64_t seg_size, uint64_t count, uint32_t vector, T* out) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t seg = t / vector;
  unsigned j = (unsigned)(t % vector);
  T acc = Op<OP, T>::identity();
  if (seg < count) {
    uint64_t begin, end;
    if (offsets) {
      begin = offsets[seg];
      end = offsets[seg + 1];
    } else {
      begin = seg * seg_size;
      end = begin + seg_size < n ? begin + seg_size : n;
    }
    // Eight loads in flight before the eight in-order combines; the order is unchanged.
    const unsigned kBatch = 8;
    uint64_t k = begin + j;
    for (; k + (kBatch - 1) * (uint64_t)vector < end; k += kBatch * (uint64_t)vector) {
      T x[kBatch];
#pragma unroll
      for (unsigned u = 0; u < kBatch; ++u) x[u] = in[k + u * (uint64_t)vector];
#pragma unroll
      for (unsigned u = 0; u < kBatch; ++u) acc = Op<OP, T>::combine(acc, x[u]);
    }
    for (; k < end; k += vector) acc = Op<OP, T>::combine(acc, in[k]);
  }
  T r = bfly<OP, T>(WK_FULL_MASK, acc, vector);
  if (seg < count && j == 0) out[seg] = r;
}

template <typename T>
__global__ void spmv_kernel(const uint32_t* row_offsets, const uint32_t* cols, const T* vals,
                            const T* x, uint64_t rows, uint32_t vector, T* y) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t row = t / vector;
  unsigned j = (unsigned)(t % vector);
  T acc = Op<OP_SUM, T>::identity();
  if (row < rows) {
    typedef Op<OP_SUM, T> O;
    const uint64_t end = row_offsets[row + 1];
    uint64_t k = row_offsets[row] + j;
    // Four products' loads in flight before the in-order adds; the order is unchanged.
    for (; k + 3 * (uint64_t)vector < end; k += 4 * (uint64_t)vector) {
      uint32_t c0 = cols[k], c1 = cols[k + vector], c2 = cols[k + 2 * vector], c3 = cols[k + 3 * vector];
      T p0 = mul(vals[k], x[c0]), p1 = mul(vals[k + vector], x[c1]);
      T p2 = mul(vals[k + 2 * vector], x[c2]), p3 = mul(vals[k + 3 * vector], x[c3]);
      acc = O::combine(O::combine(O::combine(O::combine(acc, p0), p1), p2), p3);
    }
    for (; k < end; k += vector) acc = O::combine(acc, mul(vals[k], x[cols[k]]));
  }
  T r = bfly<OP_SUM, T>(WK_FULL_MASK, acc, vector);
  if (row < rows && j == 0) y[row] = r;
}

bool pow2_upto(uint32_t v, uint32_t limit) { return v != 0 && (v & (v - 1)) == 0 && v <= limit; }

}  // namespace

int warp_reduce_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                       uint32_t op, const void* vals, uint64_t n, uint32_t width, void* out) {
  unsigned grid;
  if (!pow2_upto(width, warp_size) || !grid_for(n, kBlock, &grid)) return WK_ERR_ARG;
  return with_dtype(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    return with_op<T>(op, [&](auto ot) {
      WK_LAUNCH(grid, kBlock, 0, as_stream(stream), warp_reduce_kernel<decltype(ot)::value, T>)(
          st, warp_size, (const T*)vals, n, width, (T*)out);
      return host::launch_error();
    });
  });
}

int warp_scan_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                     uint32_t op, uint32_t exclusive, const void* vals, uint64_t n,
                     uint32_t width, void* out) {
  unsigned grid;
  if (!pow2_upto(width, warp_size) || !grid_for(n, kBlock, &grid)) return WK_ERR_ARG;
  return with_dtype(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    return with_op<T>(op, [&](auto ot) {
      WK_LAUNCH(grid, kBlock, 0, as_stream(stream), warp_scan_kernel<decltype(ot)::value, T>)(
          st, warp_size, exclusive, (const T*)vals, n, width, (T*)out);
      return host::launch_error();
    });
  });
}

int block_reduce_launch(void* stream, wk_status*, uint32_t dtype, uint32_t op, const void* in,
                        uint64_t n, uint32_t block, void* out) {
  unsigned grid;
  if (block == 0 || block % WK_LOGICAL_GROUP != 0 || block > WK_MAX_BLOCK ||
      !grid_for(n, block, &grid))
    return WK_ERR_ARG;
  return with_dtype(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    return with_op<T>(op, [&](auto ot) {
      WK_LAUNCH(grid, block, 0, as_stream(stream), block_reduce_kernel<decltype(ot)::value, T>)(
          (const T*)in, n, (T*)out);
      return host::launch_error();
    });
  });
}

int segmented_reduce_launch(void* stream, wk_status*, uint32_t dtype, uint32_t op, const void* in,
                            uint64_t n, const uint32_t* offsets, uint64_t seg_size,
                            uint64_t count, uint32_t vector, void* out) {
  unsigned grid;
  if (!pow2_upto(vector, WK_MAX_VECTOR) || (!offsets && seg_size == 0) ||
      count > (~0ull) / vector || !grid_for(count * vector, kBlock, &grid))
    return WK_ERR_ARG;
  return with_dtype(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    return with_op<T>(op, [&](auto ot) {
      WK_LAUNCH(grid, kBlock, 0, as_stream(stream), segmented_kernel<decltype(ot)::value, T>)(
          (const T*)in, n, offsets, seg_size, count, vector, (T*)out);
      return host::launch_error();
    });
  });
}

int spmv_launch(void* stream, wk_status*, uint32_t dtype, const uint32_t* row_offsets,
                const uint32_t* cols, const void* vals, const void* x, uint64_t rows,
                uint32_t vector, void* y) {
  unsigned grid;
  if (!pow2_upto(vector, WK_MAX_VECTOR) || rows > (~0ull) / vector ||
      !grid_for(rows * vector, kBlock, &grid))
    return WK_ERR_ARG;
  return with_dtype(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    WK_LAUNCH(grid, kBlock, 0, as_stream(stream), spmv_kernel<T>)(row_offsets, cols, (const T*)vals,
                                                           (const T*)x, rows, vector, (T*)y);
    return host::launch_error();
  });
}

}  // namespace WK_NS
