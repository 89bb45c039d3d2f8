// CUB's DevicePartition::If as the baseline of the partition row (f32, x > 0), timed in the same
// process and on the same stream as wavekit's launchers. CUB writes the rejected part in reverse
// order; the caller compares it reversed.
#include <cub/device/device_partition.cuh>

#include "../wavekit/launch.h"
#include "bench.h"

namespace {
struct Positive {
  __host__ __device__ bool operator()(float x) const { return x > 0.0f; }
};
}  // namespace

extern "C" int32_t wk_bench_cub_partition_positive(void* stream, const float* in, float* out,
                                                   int64_t* count, uint64_t n, void* temp,
                                                   size_t* temp_bytes) {
  return (int32_t)cub::DevicePartition::If(temp, *temp_bytes, in, out, count, (int64_t)n,
                                           Positive(), (cudaStream_t)stream);
}
