// Warp primitives: votes, shuffles, match, activemask, the syncwarp transpose, and tiles.
// Each thread is lane t % W of warp t / W; a warp's members are the host mask less the lanes
// past the launch (docs/SEMANTICS.md "Launches, warps, members"). Non-members call nothing.
#include "dispatch.h"

namespace WK_NS {
using namespace prims;

namespace {

struct WarpPos {
  uint64_t t;
  unsigned lane;
  wk_lanemask_t members;
};

__device__ __forceinline__ WarpPos warp_pos(uint64_t threads, uint64_t mask) {
  WarpPos p;
  p.t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  p.lane = (unsigned)(p.t % WK_WARP_SIZE);
  p.members = (wk_lanemask_t)mask & live_lanes(p.t / WK_WARP_SIZE, threads);
  return p;
}

__global__ void vote_kernel(wk_status* st, uint32_t warp_size, int impl, uint32_t kind,
                            const uint8_t* preds, uint64_t threads, uint64_t mask,
                            uint64_t* out) {
  if (!width_ok(st, warp_size)) return;
  WarpPos p = warp_pos(threads, mask);
  if (!contains(p.members, p.lane)) return;
  out[p.t] = vote(impl, kind, p.members, preds[p.t] != 0, 0, WK_WARP_SIZE);
}

template <typename T>
__global__ void shfl_kernel(wk_status* st, uint32_t warp_size, uint32_t kind, const T* vals,
                            uint64_t threads, uint64_t mask, uint32_t arg, uint32_t width,
                            T* out) {
  if (!width_ok(st, warp_size)) return;
  WarpPos p = warp_pos(threads, mask);
  if (!contains(p.members, p.lane)) return;
  out[p.t] = shfl(kind, p.members, vals[p.t], arg, width);
}

template <typename T>
__global__ void match_kernel(wk_status* st, uint32_t warp_size, int impl, uint32_t kind,
                             const T* vals, uint64_t threads, uint64_t mask, uint64_t* out_mask,
                             uint8_t* out_pred) {
  if (!width_ok(st, warp_size)) return;
  WarpPos p = warp_pos(threads, mask);
  if (!contains(p.members, p.lane)) return;
  typename Elem<T>::U v = to_bits(vals[p.t]);
  bool pred = true;
  wk_lanemask_t r = kind == 0 ? match_any_sync(impl, p.members, v)
                              : match_all_sync(impl, p.members, v, &pred);
  out_mask[p.t] = (uint64_t)r;
  out_pred[p.t] = pred ? 1 : 0;
}

__global__ void activemask_kernel(wk_status* st, uint32_t warp_size, int impl, uint64_t threads,
                                  uint64_t mask, uint64_t* out) {
  if (!width_ok(st, warp_size)) return;
  WarpPos p = warp_pos(threads, mask);
  if (contains(p.members, p.lane)) {
    out[p.t] = (uint64_t)activemask(impl);
  }
}

// Seed 000's transpose: the warp is W/8 rows of 8; store row-major, sync, read column-major.
template <typename T>
__global__ void transpose_kernel(wk_status* st, uint32_t warp_size, int impl, const T* vals,
                                 uint64_t threads, uint64_t mask, T* out) {
  WK_SHARED(T, slots, kBlock);
  if (!width_ok(st, warp_size)) return;
  WarpPos p = warp_pos(threads, mask);
  if (!contains(p.members, p.lane)) return;
  unsigned base = threadIdx.x - p.lane;
  T v = vals[p.t];
  slots[base + p.lane] = v;
  syncwarp(impl, p.members);
  const unsigned rows = WK_WARP_SIZE / 8;
  unsigned src = (p.lane % rows) * 8 + p.lane / rows;
  // A non-member source stored nothing; its lane's result is undefined (None), so the
  // caller's own value stands in rather than reading an unwritten slot.
  out[p.t] = contains(p.members, src) ? slots[base + src] : v;
}

// Tiles: every thread of a tile takes part (no mask); threads past the launch pad the last
// block with zeros and write nothing.
template <typename T>
__global__ void tile_shfl_kernel(wk_status* st, uint32_t warp_size, uint32_t kind, const T* vals,
                                 uint64_t threads, uint32_t tile, uint32_t arg, T* out) {
  if (!width_ok(st, warp_size)) return;
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  T v = t < threads ? vals[t] : T(0);
  T r = shfl(kind, segment_lanes(tile), v, arg, tile);
  if (t < threads) out[t] = r;
}

__global__ void tile_vote_kernel(wk_status* st, uint32_t warp_size, int impl, uint32_t kind,
                                 const uint8_t* preds, uint64_t threads, uint32_t tile,
                                 uint64_t* out) {
  if (!width_ok(st, warp_size)) return;
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  bool p = t < threads ? preds[t] != 0 : false;
  unsigned base = lane() & ~(tile - 1);
  uint64_t r = vote(impl, kind, segment_lanes(tile), p, base, tile);
  if (t < threads) out[t] = r;
}

template <int OP, typename T>
__global__ void tile_reduce_kernel(wk_status* st, uint32_t warp_size, const T* vals,
                                   uint64_t threads, uint32_t tile, T* out) {
  if (!width_ok(st, warp_size)) return;
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  T v = t < threads ? vals[t] : Op<OP, T>::identity();
  T r = bfly<OP, T>(segment_lanes(tile), v, tile);
  if (t < threads) out[t] = r;
}

}  // namespace

int vote_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t impl, uint32_t kind,
                const uint8_t* preds, uint64_t threads, uint64_t mask, uint64_t* out) {
  unsigned grid;
  if (kind > 3 || !grid_for(threads, kBlock, &grid)) return WK_ERR_ARG;
  WK_LAUNCH(grid, kBlock, 0, as_stream(stream), vote_kernel)(st, warp_size, (int)impl, kind, preds,
                                                     threads, mask, out);
  return host::launch_error();
}

int shfl_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype, uint32_t kind,
                const void* vals, uint64_t threads, uint64_t mask, uint32_t arg, uint32_t width,
                void* out) {
  unsigned grid;
  if (kind > 3 || width == 0 || (width & (width - 1)) != 0 || width > warp_size ||
      arg >= warp_size || !grid_for(threads, kBlock, &grid))
    return WK_ERR_ARG;
  return with_dtype(dtype, [&](auto tag) {
    typedef typename decltype(tag)::type T;
    WK_LAUNCH(grid, kBlock, 0, as_stream(stream), shfl_kernel<T>)(st, warp_size, kind, (const T*)vals,
                                                           threads, mask, arg, width, (T*)out);
    return host::launch_error();
  });
}

int match_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t impl, uint32_t dtype,
                 uint32_t kind, const void* vals, uint64_t threads, uint64_t mask,
                 uint64_t* out_mask, uint8_t* out_pred) {
  unsigned grid;
  if (kind > 1 || !grid_for(threads, kBlock, &grid)) return WK_ERR_ARG;
  return with_dtype(dtype, [&](auto tag) {
    typedef typename decltype(tag)::type T;
    WK_LAUNCH(grid, kBlock, 0, as_stream(stream), match_kernel<T>)(
        st, warp_size, (int)impl, kind, (const T*)vals, threads, mask, out_mask, out_pred);
    return host::launch_error();
  });
}

int activemask_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t impl,
                      uint64_t threads, uint64_t mask, uint64_t* out) {
  unsigned grid;
  if (!grid_for(threads, kBlock, &grid)) return WK_ERR_ARG;
  WK_LAUNCH(grid, kBlock, 0, as_stream(stream), activemask_kernel)(st, warp_size, (int)impl, threads,
                                                           mask, out);
  return host::launch_error();
}

int transpose_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t impl,
                     uint32_t dtype, const void* vals, uint64_t threads, uint64_t mask,
                     void* out) {
  unsigned grid;
  if (!grid_for(threads, kBlock, &grid)) return WK_ERR_ARG;
  return with_dtype(dtype, [&](auto tag) {
    typedef typename decltype(tag)::type T;
    WK_LAUNCH(grid, kBlock, 0, as_stream(stream), transpose_kernel<T>)(
        st, warp_size, (int)impl, (const T*)vals, threads, mask, (T*)out);
    return host::launch_error();
  });
}

int tile_shfl_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                     uint32_t kind, const void* vals, uint64_t threads, uint32_t tile,
                     uint32_t arg, void* out) {
  unsigned grid;
  if (kind > 3 || tile == 0 || (tile & (tile - 1)) != 0 || tile > warp_size ||
      !grid_for(threads, kBlock, &grid))
    return WK_ERR_ARG;
  return with_dtype(dtype, [&](auto tag) {
    typedef typename decltype(tag)::type T;
    WK_LAUNCH(grid, kBlock, 0, as_stream(stream), tile_shfl_kernel<T>)(
        st, warp_size, kind, (const T*)vals, threads, tile, arg, (T*)out);
    return host::launch_error();
  });
}

int tile_vote_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t impl,
                     uint32_t kind, const uint8_t* preds, uint64_t threads, uint32_t tile,
                     uint64_t* out) {
  unsigned grid;
  if (kind > 3 || tile == 0 || (tile & (tile - 1)) != 0 || tile > warp_size ||
      !grid_for(threads, kBlock, &grid))
    return WK_ERR_ARG;
  WK_LAUNCH(grid, kBlock, 0, as_stream(stream), tile_vote_kernel)(st, warp_size, (int)impl, kind, preds,
                                                          threads, tile, out);
  return host::launch_error();
}

int tile_reduce_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                       uint32_t op, const void* vals, uint64_t threads, uint32_t tile,
                       void* out) {
  unsigned grid;
  if (tile == 0 || (tile & (tile - 1)) != 0 || tile > warp_size || !grid_for(threads, kBlock, &grid))
    return WK_ERR_ARG;
  return with_dtype(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    return with_op<T>(op, [&](auto ot) {
      WK_LAUNCH(grid, kBlock, 0, as_stream(stream), tile_reduce_kernel<decltype(ot)::value, T>)(
          st, warp_size, (const T*)vals, threads, tile, (T*)out);
      return host::launch_error();
    });
  });
}

}  // namespace WK_NS
