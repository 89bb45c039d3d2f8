// count_if: elements that satisfy a predicate (docs/SEMANTICS.md "count_if").
#include "dispatch.h"

namespace WK_NS {
using namespace prims;

namespace {

// count_if: 16-byte loads, four in flight per thread, counts summed per thread, then per warp
// (shuffles), then one atomic per block: at most kMaxGrid global atomics per call.
template <typename T>
__global__ void __launch_bounds__(kBlock)
    count_if_kernel(uint32_t pred, uint64_t a, uint64_t b, const T* in, uint64_t n,
                    unsigned long long* out) {
  WK_SHARED(unsigned, warp_count, kBlock / WK_WARP_SIZE);
  const unsigned V = 16 / sizeof(T);
  const unsigned kUnroll = 4;
  T va = from_bits<T>((typename Elem<T>::U)a);
  T vb = from_bits<T>((typename Elem<T>::U)b);
  const bool vec_ok = ((uintptr_t)in % 16) == 0;
  const uint64_t nvec = vec_ok ? n / V : 0;
  const uint4* p = reinterpret_cast<const uint4*>(in);
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  const uint64_t tid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned mine = 0;
  uint64_t i = tid;
  for (; i + (kUnroll - 1) * stride < nvec; i += kUnroll * stride) {
    uint4 r[kUnroll];
#pragma unroll
    for (unsigned u = 0; u < kUnroll; ++u) r[u] = p[i + u * stride];
#pragma unroll
    for (unsigned u = 0; u < kUnroll; ++u) {
      T x[V];
      __builtin_memcpy(x, &r[u], sizeof(r[u]));
#pragma unroll
      for (unsigned s = 0; s < V; ++s) mine += eval_pred(pred, x[s], va, vb) ? 1 : 0;
    }
  }
  for (; i < nvec; i += stride) {
    uint4 r = p[i];
    T x[V];
    __builtin_memcpy(x, &r, sizeof(r));
#pragma unroll
    for (unsigned s = 0; s < V; ++s) mine += eval_pred(pred, x[s], va, vb) ? 1 : 0;
  }
  for (uint64_t e = nvec * V + tid; e < n; e += stride) mine += eval_pred(pred, in[e], va, vb) ? 1 : 0;
  mine = bfly<OP_SUM, unsigned>(WK_FULL_MASK, mine, WK_WARP_SIZE);
  if (lane() == 0) warp_count[threadIdx.x / WK_WARP_SIZE] = mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long total = 0;
    for (unsigned w = 0; w < kBlock / WK_WARP_SIZE; ++w) total += warp_count[w];
    if (total) atomicAdd(out, total);
  }
}

}  // namespace

int count_if_launch(void* stream, wk_status*, uint32_t dtype, uint32_t pred, uint64_t a,
                    uint64_t b, const void* in, uint64_t n, void*, uint64_t, uint64_t* out) {
  if (pred > 6) return WK_ERR_ARG;
  int rc = host::memset_async(out, 0, sizeof(uint64_t), as_stream(stream));
  if (rc) return rc;
  return with_dtype(dtype, [&](auto tag) {
    typedef typename decltype(tag)::type T;
    WK_LAUNCH(strided_grid(n / (16 / sizeof(T))), kBlock, 0, as_stream(stream), count_if_kernel<T>)(
        pred, a, b, (const T*)in, n, (unsigned long long*)out);
    return host::launch_error();
  });
}

}  // namespace WK_NS
