// CUB's DeviceHistogram::HistogramEven as the histogram baseline, compiled from the CUB headers
// of the CUDA wheel and timed in the same process and on the same stream as wavekit's launcher.
#include <cub/device/device_histogram.cuh>

#include "bench.h"

// Keys in [0, bins) each count in their bin; CUB drops the others (wavekit counts them apart).
// Levels 0, 1, ..., bins: bin k holds the keys equal to k.
extern "C" int32_t wk_bench_cub_histogram(void* stream, const uint32_t* keys, uint64_t n,
                                          uint32_t bins, uint32_t* counts, void* temp,
                                          size_t* temp_bytes) {
  if (bins == 0 || bins > 0x7ffffffeu) return -3;  // WK_ERR_ARG
  return (int32_t)cub::DeviceHistogram::HistogramEven(
      temp, *temp_bytes, keys, counts, (int)bins + 1, 0u, bins, (int64_t)n, (cudaStream_t)stream);
}
