// CUB's DevicePartition::If as the baseline of the partition rows (f32, f64, x > 0), timed in the same
// process and on the same stream as wavekit's launchers. CUB writes the rejected part in reverse
// order; the caller compares it reversed.
#include <cub/device/device_partition.cuh>

#include "../wavekit/launch.h"
#include "../wavekit/ops.h"
#include "bench.h"

namespace {
struct Positive {
  template <typename T> __host__ __device__ bool operator()(T x) const { return x > T(0); }
};

template <typename T>
int32_t partition_positive(cudaStream_t s, const void* in, void* out, int64_t* count, uint64_t n,
                           void* temp, size_t* temp_bytes) {
  return (int32_t)cub::DevicePartition::If(temp, *temp_bytes, (const T*)in, (T*)out, count,
                                           (int64_t)n, Positive(), s);
}
}  // namespace

extern "C" int32_t wk_bench_cub_partition_positive(void* stream, uint32_t dtype, const void* in,
                                                   void* out, int64_t* count, uint64_t n,
                                                   void* temp, size_t* temp_bytes) {
  const cudaStream_t s = (cudaStream_t)stream;
  switch (dtype) {
    case WK_NS::DT_F32: return partition_positive<float>(s, in, out, count, n, temp, temp_bytes);
    case WK_NS::DT_F64: return partition_positive<double>(s, in, out, count, n, temp, temp_bytes);
    default: return WK_ERR_ARG;
  }
}
