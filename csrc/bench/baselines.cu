// Same-run baselines (copy, read, one-global-counter atomics), the host-latency shield used by
// event timing, and the entry points to variants of wavekit's own kernels.
#include "bench.h"
#include "row_codes.h"

namespace {

cudaStream_t as_stream(void* s) { return (cudaStream_t)s; }

const unsigned kBlock = 256;
const unsigned kUnroll = 4;

// Enough resident blocks of kBlock threads to fill every SM.
unsigned full_grid(const void* kernel) {
  int dev = 0, sms = 0, per_sm = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBlock, 0) != cudaSuccess)
    return 1024;
  return (unsigned)(sms * (per_sm > 0 ? per_sm : 1));
}

// Every byte read once, four 16-byte loads in flight per thread; the xor of everything is
// stored only if it equals a value it cannot be asked for, so the loads are never dead.
__global__ void __launch_bounds__(kBlock) read_kernel(const uint4* p, uint64_t nvec, uint32_t* sink) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t acc = 0;
  for (; i + (kUnroll - 1) * stride < nvec; i += kUnroll * stride) {
    uint4 r[kUnroll];
#pragma unroll
    for (unsigned u = 0; u < kUnroll; ++u) r[u] = p[i + u * stride];
#pragma unroll
    for (unsigned u = 0; u < kUnroll; ++u) acc ^= r[u].x ^ r[u].y ^ r[u].z ^ r[u].w;
  }
  for (; i < nvec; i += stride) acc ^= p[i].x ^ p[i].y ^ p[i].z ^ p[i].w;
  if (acc == 0x9e3779b9u && threadIdx.x == (acc & 0xff)) *sink = acc;
}

__device__ __forceinline__ uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void delay_kernel(uint64_t ns) {
  const uint64_t start = global_ns();
  while (global_ns() - start < ns) {
  }
}

// One atomicAdd on one counter per selected element (nvcc may aggregate a warp's adds to the
// same address itself; that is part of what this baseline measures).
__global__ void __launch_bounds__(kBlock)
    count_atomic_kernel(const float* in, uint64_t n, float threshold, unsigned long long* out) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    if (in[i] < threshold) atomicAdd(out, 1ull);
}

}  // namespace

extern "C" int32_t wk_bench_copy(void* stream, void* dst, const void* src, uint64_t bytes) {
  return (int32_t)cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, as_stream(stream));
}

extern "C" int32_t wk_bench_read(void* stream, const void* src, uint64_t bytes, uint32_t* sink) {
  if (bytes % 16 != 0 || (uintptr_t)src % 16 != 0) return WK_ERR_ARG;
  static unsigned grid = full_grid((const void*)read_kernel);
  read_kernel<<<grid, kBlock, 0, as_stream(stream)>>>((const uint4*)src, bytes / 16, sink);
  return (int32_t)cudaGetLastError();
}

extern "C" int32_t wk_bench_delay(void* stream, uint32_t micros) {
  delay_kernel<<<1, 1, 0, as_stream(stream)>>>((uint64_t)micros * 1000);
  return (int32_t)cudaGetLastError();
}

extern "C" int32_t wk_bench_count_atomic(void* stream, const float* in, uint64_t n, float threshold,
                                         unsigned long long* out) {
  cudaError_t e = cudaMemsetAsync(out, 0, sizeof(*out), as_stream(stream));
  if (e != cudaSuccess) return (int32_t)e;
  static unsigned grid = full_grid((const void*)count_atomic_kernel);
  count_atomic_kernel<<<grid, kBlock, 0, as_stream(stream)>>>(in, n, threshold, out);
  return (int32_t)cudaGetLastError();
}

extern "C" int32_t wk_bench_reduce_k(void* stream, uint32_t dtype, uint32_t op, const void* in,
                                     uint64_t n, void* scratch, uint64_t scratch_bytes, void* out,
                                     uint32_t k) {
  return WK_NS::device_reduce_shaped(stream, dtype, op, in, n, scratch, scratch_bytes, out,
                                     wk_bench::reduce_shape(k));
}

extern "C" int32_t wk_bench_scan_b(void* stream, uint32_t dtype, uint32_t exclusive,
                                   const void* in, uint64_t n, void* scratch,
                                   uint64_t scratch_bytes, void* out, uint32_t variant,
                                   uint32_t tag) {
  return WK_NS::device_scan_shaped(stream, nullptr, dtype, WK_NS::OP_SUM, exclusive, in, n,
                                   scratch, scratch_bytes, out, wk_bench::scan_shape(variant),
                                   tag);
}

extern "C" int32_t wk_bench_histogram_mode(void* stream, const uint32_t* keys, uint64_t n,
                                           uint32_t bins, uint64_t* out, int32_t mode) {
  if (mode < 0 || mode > WK_NS::HIST_SLICED) return WK_ERR_ARG;
  return WK_NS::histogram_shaped(stream, keys, n, bins, out, (WK_NS::HistMode)mode);
}
