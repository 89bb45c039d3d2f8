// A counting pass over an array, shared by count_if and partition (its part sizes), and the
// grid-stride loop of 16-byte loads it runs on, which the histogram kernels take too.
#pragma once

#include "dispatch.h"

namespace WK_NS {

// Calls f(x) for each element of in[0, n) that the thread at `first` of a grid-stride loop of
// `stride` threads takes: 16-byte vectors when `in` is aligned, kInFlight of them loaded before
// any element is used, then the elements past the last whole vector one at a time.
template <unsigned kInFlight, typename T, typename F>
__device__ __forceinline__ void for_each_strided(const T* in, uint64_t n, uint64_t first,
                                                 uint64_t stride, F&& f) {
  const unsigned V = 16 / sizeof(T);
  const bool vec_ok = ((uintptr_t)in % 16) == 0;
  const uint64_t nvec = vec_ok ? n / V : 0;
  const uint4* p = reinterpret_cast<const uint4*>(in);
  uint64_t i = first;
  for (; i + (kInFlight - 1) * stride < nvec; i += kInFlight * stride) {
    uint4 r[kInFlight];
#pragma unroll
    for (unsigned u = 0; u < kInFlight; ++u) r[u] = p[i + u * stride];
#pragma unroll
    for (unsigned u = 0; u < kInFlight; ++u) {
      T x[V];
      __builtin_memcpy(x, &r[u], sizeof(r[u]));
#pragma unroll
      for (unsigned s = 0; s < V; ++s) f(x[s]);
    }
  }
  for (; i < nvec; i += stride) {
    const uint4 r = p[i];
    T x[V];
    __builtin_memcpy(x, &r, sizeof(r));
#pragma unroll
    for (unsigned s = 0; s < V; ++s) f(x[s]);
  }
  for (uint64_t e = nvec * V + first; e < n; e += stride) f(in[e]);
}

// Counts the elements of `in` by `classify(x)`, which returns up to two counts packed in one
// 64-bit word (the first in the low 32 bits, the second in the high 32), so one add per element
// serves both. 16-byte loads, four in flight per thread; counts summed per thread, per warp
// (shuffles), then one atomic per block and count: at most kMaxGrid global atomics per call.
// `outs` is 1 or 2: the counters of out[] that receive the sums (zeroed before the launch).
// No carry reaches the high half: a lane counts at most n / (kBlock x grid) elements and a warp
// WK_WARP_SIZE times that, far below 2^32 for any n the launchers accept (< 2^43).
template <typename T, typename Classify>
__global__ void __launch_bounds__(kBlock)
    count_kernel(Classify classify, const T* in, uint64_t n, unsigned long long* out,
                 unsigned outs) {
  WK_SHARED(uint64_t, warp_count, kBlock / WK_WARP_SIZE);
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  const uint64_t tid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t mine = 0;
  for_each_strided<4>(in, n, tid, stride, [&](T x) { mine += classify(x); });
  mine = prims::bfly<OP_SUM, uint64_t>(WK_FULL_MASK, mine, WK_WARP_SIZE);
  if (prims::lane() == 0) warp_count[threadIdx.x / WK_WARP_SIZE] = mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long lo = 0, hi = 0;
    for (unsigned w = 0; w < kBlock / WK_WARP_SIZE; ++w) {
      lo += (uint32_t)warp_count[w];
      hi += warp_count[w] >> 32;
    }
    if (lo) atomicAdd(out, lo);
    if (outs > 1 && hi) atomicAdd(out + 1, hi);
  }
}

}  // namespace WK_NS
