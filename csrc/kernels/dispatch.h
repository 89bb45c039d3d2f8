// Host-side helpers shared by the launchers: element-type and op dispatch to kernel templates,
// grid sizing, and the launch-error check every launcher ends with.
#pragma once

#include "../wavekit/launch.h"
#include "../wavekit/prims.h"

namespace WK_NS {

template <typename T> struct TypeTag { typedef T type; };
template <int N> struct OpTag { static const int value = N; };

// Calls f(TypeTag<T>()) for the element type `dtype` names.
template <typename F> int with_dtype(uint32_t dtype, F&& f) {
  switch (dtype) {
    case DT_I32: return f(TypeTag<int32_t>());
    case DT_U32: return f(TypeTag<uint32_t>());
    case DT_I64: return f(TypeTag<int64_t>());
    case DT_U64: return f(TypeTag<uint64_t>());
    case DT_F32: return f(TypeTag<float>());
    case DT_F64: return f(TypeTag<double>());
    default: return WK_ERR_DTYPE;
  }
}

// with_dtype and the 16-bit floats (half.h): for the launchers whose kernels take them
// (device_reduce, device_scan, segmented_reduce, block_reduce and the warp reduces and scan
// combine through to_acc / from_acc; arg_reduce ranks them).
template <typename F> int with_dtype_io(uint32_t dtype, F&& f) {
  switch (dtype) {
    case DT_F16: return f(TypeTag<wk_f16>());
    case DT_BF16: return f(TypeTag<wk_bf16>());
    default: return with_dtype(dtype, f);
  }
}

// Calls f(OpTag<OP>()) for `op`; bitwise ops on floats are refused, never instantiated.
template <typename T, typename F> int with_op(uint32_t op, F&& f) {
  switch (op) {
    case OP_SUM: return f(OpTag<OP_SUM>());
    case OP_PRODUCT: return f(OpTag<OP_PRODUCT>());
    case OP_MIN: return f(OpTag<OP_MIN>());
    case OP_MAX: return f(OpTag<OP_MAX>());
    default: break;
  }
  if constexpr (Elem<T>::is_float) {
    return WK_ERR_ARG;
  } else {
    switch (op) {
      case OP_AND: return f(OpTag<OP_AND>());
      case OP_OR: return f(OpTag<OP_OR>());
      case OP_XOR: return f(OpTag<OP_XOR>());
      default: return WK_ERR_ARG;
    }
  }
}

// Blocks of `block` threads covering `threads`; false when the grid would be too large.
inline bool grid_for(uint64_t threads, unsigned block, unsigned* grid) {
  uint64_t g = (threads + block - 1) / block;
  if (g == 0 || g > 0x7fffffffull) return false;
  *grid = (unsigned)g;
  return true;
}

inline host::stream_t as_stream(void* s) { return (host::stream_t)s; }

// Threads of the element-wise kernels' blocks: a multiple of every warp width.
static const unsigned kBlock = 256;

// Grid-stride kernels (count_if, histogram) stop at this many blocks: enough to fill every GPU
// we run on, and it bounds their per-block atomics on the global result.
static const unsigned kMaxGrid = 4096;

// Blocks of kBlock threads for a grid-stride loop over n items, at least one.
inline unsigned strided_grid(uint64_t n) {
  uint64_t g = (n + kBlock - 1) / kBlock;
  return (unsigned)(g < kMaxGrid ? (g ? g : 1) : kMaxGrid);
}

// A width, tile or vector size: a power of two no larger than `limit`.
inline bool pow2_upto(uint32_t v, uint32_t limit) {
  return v != 0 && (v & (v - 1)) == 0 && v <= limit;
}

}  // namespace WK_NS
