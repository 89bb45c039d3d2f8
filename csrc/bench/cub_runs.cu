// CUB's DeviceRunLengthEncode::Encode and DeviceSelect::Unique as the baselines of the runs rows
// (u32 keys), timed in the same process and on the same stream as wavekit's launchers.
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_select.cuh>

#include "../wavekit/launch.h"
#include "bench.h"

extern "C" int32_t wk_bench_cub_run_length_encode(void* stream, const uint32_t* keys,
                                                  uint32_t* keys_out, uint32_t* lengths,
                                                  int64_t* count, uint64_t n, void* temp,
                                                  size_t* temp_bytes) {
  return (int32_t)cub::DeviceRunLengthEncode::Encode(temp, *temp_bytes, keys, keys_out, lengths,
                                                     count, (int64_t)n, (cudaStream_t)stream);
}

extern "C" int32_t wk_bench_cub_unique(void* stream, const uint32_t* keys, uint32_t* keys_out,
                                       int64_t* count, uint64_t n, void* temp,
                                       size_t* temp_bytes) {
  return (int32_t)cub::DeviceSelect::Unique(temp, *temp_bytes, keys, keys_out, count, (int64_t)n,
                                            (cudaStream_t)stream);
}
