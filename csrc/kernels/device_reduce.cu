// Canonical device reduce in one launch: one 4096-element tile per block of 256 threads (16-byte
// vector loads, each lane folding its 16 elements in (chunk, slot) order), the tile partial by
// group reduce, then the last block to finish (atomic ticket) reduces the partials by the same
// rule, level after level, until one value remains (docs/SEMANTICS.md "Device reduce").
#include "device.h"

namespace WK_NS {
using namespace prims;

namespace {

// Lane `l`'s fold of tile `tile` of src[0..n): element e = c*256*V + l*V + s of the tile, for
// chunks c and slots s in order. Full, aligned tiles of plain memory load 16-byte vectors.
template <int OP, typename T, bool VOLATILE>
__device__ __forceinline__ T fold_lane(const T* src, uint64_t n, uint64_t tile, bool vec_ok) {
  typedef Op<OP, T> O;
  const unsigned V = WK_REDUCE_VECTOR_BYTES / sizeof(T);
  const unsigned chunks = WK_REDUCE_ITEMS_PER_LANE / V;
  const unsigned l = threadIdx.x;
  uint64_t base = tile * WK_REDUCE_TILE;
  T acc = O::identity();
  if (!VOLATILE && vec_ok && base + WK_REDUCE_TILE <= n) {
    const uint4* p = reinterpret_cast<const uint4*>(src + base);
    uint4 buf[chunks];
#pragma unroll
    for (unsigned c = 0; c < chunks; ++c) buf[c] = p[c * WK_REDUCE_TILE_LANES + l];
#pragma unroll
    for (unsigned c = 0; c < chunks; ++c) {
      T vals[V];
      __builtin_memcpy(vals, &buf[c], sizeof(buf[c]));
#pragma unroll
      for (unsigned s = 0; s < V; ++s) acc = O::combine(acc, vals[s]);
    }
    return acc;
  }
  for (unsigned c = 0; c < chunks; ++c) {
    for (unsigned s = 0; s < V; ++s) {
      uint64_t e = base + (uint64_t)c * WK_REDUCE_TILE_LANES * V + (uint64_t)l * V + s;
      if (e < n) {
        T x = VOLATILE ? *(const volatile T*)(src + e) : src[e];
        acc = O::combine(acc, x);
      }
    }
  }
  return acc;
}

template <int OP, typename T>
__global__ void __launch_bounds__(WK_REDUCE_TILE_LANES)
    reduce_kernel(const T* in, uint64_t n, T* partials, T* level, unsigned* ticket, T* out) {
  WK_SHARED(T, groups, WK_MAX_GROUPS);
  WK_SHARED_VAR(bool, last);
  bool vec_ok = ((uintptr_t)in % WK_REDUCE_VECTOR_BYTES) == 0;
  T p = group_reduce<OP, T>(fold_lane<OP, T, false>(in, n, blockIdx.x, vec_ok), groups);
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) *out = p;
    return;
  }
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = p;
    arch::fence_device();
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  arch::fence_device();
  uint64_t m = gridDim.x;
  T* src = partials;
  T* dst = level;
  while (m > 1) {
    uint64_t tiles = (m + WK_REDUCE_TILE - 1) / WK_REDUCE_TILE;
    for (uint64_t k = 0; k < tiles; ++k) {
      T r = group_reduce<OP, T>(fold_lane<OP, T, true>(src, m, k, false), groups);
      if (threadIdx.x == 0) dst[k] = r;
    }
    __syncthreads();
    m = tiles;
    T* tmp = src;
    src = dst;
    dst = tmp;
  }
  if (threadIdx.x == 0) *out = *(const volatile T*)src;
}

uint64_t round_up(uint64_t b) { return (b + 255) / 256 * 256; }

}  // namespace

uint64_t device_reduce_scratch(uint32_t elem_size, uint64_t n) {
  uint64_t tiles = (n + WK_REDUCE_TILE - 1) / WK_REDUCE_TILE;
  uint64_t level = (tiles + WK_REDUCE_TILE - 1) / WK_REDUCE_TILE;
  return 256 + round_up(tiles * elem_size) + round_up(level * elem_size);
}

int device_reduce_launch(void* stream, wk_status*, uint32_t dtype, uint32_t op, const void* in,
                         uint64_t n, void* scratch, uint64_t scratch_bytes, void* out) {
  uint64_t tiles = (n + WK_REDUCE_TILE - 1) / WK_REDUCE_TILE;
  if (n == 0 || tiles > 0x7fffffffull) return WK_ERR_ARG;
  return with_dtype(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    if (scratch_bytes < device_reduce_scratch(sizeof(T), n)) return WK_ERR_SCRATCH;
    char* s = (char*)scratch;
    unsigned* ticket = (unsigned*)s;
    T* partials = (T*)(s + 256);
    T* level = (T*)(s + 256 + round_up(tiles * sizeof(T)));
    if (tiles > 1) {
      int rc = host::memset_async(ticket, 0, sizeof(unsigned), as_stream(stream));
      if (rc) return rc;
    }
    return with_op<T>(op, [&](auto ot) {
      WK_LAUNCH((unsigned)tiles, WK_REDUCE_TILE_LANES, 0, as_stream(stream), reduce_kernel<decltype(ot)::value, T>)(
              (const T*)in, n, partials, level, ticket, (T*)out);
      return host::launch_error();
    });
  });
}

}  // namespace WK_NS
