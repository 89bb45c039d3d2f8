// CUB's DeviceReduce::ReduceByKey and DeviceScan::InclusiveScanByKey as the baselines of the
// by_key rows (u32 keys, f32 values, Sum), timed in the same process and on the same stream as
// wavekit's launchers.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>

#include "../wavekit/launch.h"
#include "bench.h"

extern "C" int32_t wk_bench_cub_reduce_by_key(void* stream, const uint32_t* keys,
                                              const float* vals, uint32_t* keys_out,
                                              float* vals_out, int64_t* count, uint64_t n,
                                              void* temp, size_t* temp_bytes) {
  return (int32_t)cub::DeviceReduce::ReduceByKey(temp, *temp_bytes, keys, keys_out, vals,
                                                 vals_out, count, ::cuda::std::plus<float>(),
                                                 (int64_t)n, (cudaStream_t)stream);
}

extern "C" int32_t wk_bench_cub_scan_by_key(void* stream, const uint32_t* keys,
                                            const float* vals, float* out, uint64_t n,
                                            void* temp, size_t* temp_bytes) {
  return (int32_t)cub::DeviceScan::InclusiveScanByKey(temp, *temp_bytes, keys, vals, out,
                                                      ::cuda::std::plus<float>(), (int64_t)n,
                                                      ::cuda::std::equal_to<uint32_t>(),
                                                      (cudaStream_t)stream);
}
