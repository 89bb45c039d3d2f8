// The left fold of n >= 1 values: docs/SEMANTICS.md device_scan step 5's X over a whole array
// of tile aggregates. wavekit-dist's sharded scan folds the aggregates of every tile before a
// rank's first one with it (docs/dist.md), so on the last of R ranks it is a chain of about
// (R - 1) / R of the array's tiles, and that chain is the scan's part that does not shrink with R.
#include "device.h"

namespace WK_NS {

namespace {

const unsigned kFoldThreads = 256;
const unsigned kFoldChunk = 2048;
// Values thread 0 holds in registers ahead of the chain.
const unsigned kAhead = 16;

// B and P below: the block's shared array, a pointer on the GPU, the executor's handle.

// Any order (ops.h's OrderFree: only float Sum and Product round, and only they need the
// chain): each thread folds a strided share with four accumulators (four loads in flight),
// then a tree over the block.
template <int OP, typename T, typename B>
__device__ __forceinline__ void fold_any_order(const T* in, uint64_t n, T* out, B buf) {
  typedef Op<OP, T> O;
  const unsigned t = threadIdx.x;
  T a[4];
#pragma unroll
  for (unsigned j = 0; j < 4; ++j) a[j] = O::identity();
  uint64_t i = t;
  for (; i + 3 * kFoldThreads < n; i += 4 * kFoldThreads) {
#pragma unroll
    for (unsigned j = 0; j < 4; ++j) a[j] = O::combine(a[j], in[i + j * kFoldThreads]);
  }
  for (; i < n; i += kFoldThreads) a[0] = O::combine(a[0], in[i]);
  buf[t] = O::combine(O::combine(a[0], a[1]), O::combine(a[2], a[3]));
  __syncthreads();
  for (unsigned s = kFoldThreads / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] = O::combine(buf[t], buf[t + s]);
    __syncthreads();
  }
  if (t == 0) *out = buf[0];
}

// A whole chunk of the chain. The loads of the next kAhead values issue before the combines of
// the current ones, so each combine waits only for the one before it (the old form, eight
// loads then eight combines, also waited a shared-memory latency every eight values: 4.9 ns a
// value on an H200).
template <typename O, typename T, typename P>
__device__ __forceinline__ T fold_chunk(T x, P cur) {
  T v[kAhead];
#pragma unroll
  for (unsigned j = 0; j < kAhead; ++j) v[j] = cur[j];
  for (unsigned i = kAhead; i < kFoldChunk; i += kAhead) {
    T w[kAhead];
#pragma unroll
    for (unsigned j = 0; j < kAhead; ++j) w[j] = cur[i + j];
#pragma unroll
    for (unsigned j = 0; j < kAhead; ++j) x = O::combine(x, v[j]);
#pragma unroll
    for (unsigned j = 0; j < kAhead; ++j) v[j] = w[j];
  }
#pragma unroll
  for (unsigned j = 0; j < kAhead; ++j) x = O::combine(x, v[j]);
  return x;
}

// In order: thread 0 folds a chunk of shared memory while warps 1.. load the next chunk into
// the other buffer. (A thread folding straight from global memory waits a memory latency per
// value: on an H200 a warp that shuffled each batch's values to every lane took 60 ns a value.)
template <int OP, typename T, typename B>
__device__ __forceinline__ void fold_in_order(const T* in, uint64_t n, T* out, B buf) {
  typedef Op<OP, T> O;
  const unsigned t = threadIdx.x;
  // Chunk c holds in[1 + c * kFoldChunk ..]; in[0] starts the fold.
  const uint64_t m = n - 1;
  const uint64_t chunks = (m + kFoldChunk - 1) / kFoldChunk;
  for (unsigned i = t; i < kFoldChunk; i += kFoldThreads)
    if (1 + i < n) buf[i] = in[1 + i];
  __syncthreads();
  T x = in[0];
  for (uint64_t c = 0; c < chunks; ++c) {
    const auto cur = buf + (c & 1) * kFoldChunk;
    if (t >= WK_WARP_SIZE) {
      const auto nxt = buf + ((c + 1) & 1) * kFoldChunk;
      const uint64_t from = 1 + (c + 1) * kFoldChunk;
      for (unsigned i = t - WK_WARP_SIZE; i < kFoldChunk; i += kFoldThreads - WK_WARP_SIZE)
        if (from + i < n) nxt[i] = in[from + i];
    } else if (t == 0) {
      const uint64_t left = m - c * kFoldChunk;
      if (left >= kFoldChunk) {
        x = fold_chunk<O>(x, cur);
      } else {
        for (unsigned i = 0; i < (unsigned)left; ++i) x = O::combine(x, cur[i]);
      }
    }
    __syncthreads();
  }
  if (t == 0) *out = x;
}

template <int OP, typename T>
__global__ void __launch_bounds__(kFoldThreads) fold_left_kernel(const T* in, uint64_t n, T* out) {
  WK_SHARED(T, buf, 2 * kFoldChunk);
  if (OrderFree<OP, T>::value) {
    fold_any_order<OP>(in, n, out, buf);
  } else {
    fold_in_order<OP>(in, n, out, buf);
  }
}

}  // namespace

int fold_left_launch(void* stream, wk_status*, uint32_t dtype, uint32_t op, const void* in,
                     uint64_t n, void* out) {
  if (n == 0) return WK_ERR_ARG;
  return with_dtype(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    return with_op<T>(op, [&](auto ot) {
      const int O = decltype(ot)::value;
      WK_LAUNCH(1, kFoldThreads, 0, as_stream(stream), fold_left_kernel<O, T>)(
          (const T*)in, n, (T*)out);
      return host::launch_error();
    });
  });
}

}  // namespace WK_NS
