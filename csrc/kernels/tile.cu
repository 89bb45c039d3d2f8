// tile: cooperative-group tiles, tile_shfl, tile_vote and tile_reduce (docs/SEMANTICS.md "tile").
#include "dispatch.h"

namespace WK_NS {
using namespace prims;

namespace {

// Tiles: every thread of a tile takes part (the tile's lanes are the mask); threads past the
// launch pad the last block with zeros and write nothing. `arg` is any int, as cooperative
// groups pass it on to __shfl*_sync(tile mask, v, arg, tile): prims::shfl cuts it to its low
// log2(W) bits; a Xor naming an earlier tile reads outside the mask (undefined, None on the host).
template <typename T>
__global__ void tile_shfl_kernel(wk_status* st, uint32_t warp_size, uint32_t kind, const T* vals,
                                 uint64_t threads, uint32_t tile, int32_t arg, T* out) {
  if (!width_ok(st, warp_size)) return;
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  T v = t < threads ? vals[t] : from_bits<T>(0);
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
  // In the accumulator type A (float for the 16-bit floats), rounded once.
  typedef typename Elem<T>::Acc A;
  const A v = t < threads ? to_acc(vals[t]) : Op<OP, A>::identity();
  const A r = bfly<OP, A>(segment_lanes(tile), v, tile);
  if (t < threads) out[t] = from_acc<T>(r);
}

}  // namespace

int tile_shfl_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                     uint32_t kind, const void* vals, uint64_t threads, uint32_t tile,
                     int32_t arg, void* out) {
  unsigned grid;
  if (kind > 3 || tile == 0 || (tile & (tile - 1)) != 0 || tile > warp_size ||
      !grid_for(threads, kBlock, &grid))
    return WK_ERR_ARG;
  return with_dtype_io(dtype, [&](auto tag) {
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
  return with_dtype_io(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    return with_op<T>(op, [&](auto ot) {
      WK_LAUNCH(grid, kBlock, 0, as_stream(stream), tile_reduce_kernel<decltype(ot)::value, T>)(
          st, warp_size, (const T*)vals, threads, tile, (T*)out);
      return host::launch_error();
    });
  });
}

}  // namespace WK_NS
