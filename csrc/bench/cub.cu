// CUB baselines, compiled from the CUB headers of the CUDA wheel and measured in the same process
// and on the same stream as wavekit's launchers.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/functional>

#include "../wavekit/launch.h"
#include "../wavekit/ops.h"
#include "bench.h"

namespace {

using WK_NS::DT_F32;
using WK_NS::DT_F64;
using WK_NS::DT_I32;
using WK_NS::DT_I64;

cudaStream_t as_stream(void* s) { return (cudaStream_t)s; }

template <typename T>
int32_t reduce_t(cudaStream_t s, uint32_t op, const void* in, uint64_t n, void* out, void* temp,
                 size_t* bytes) {
  const T* i = (const T*)in;
  T* o = (T*)out;
  switch (op) {
    case WK_NS::OP_SUM: return (int32_t)cub::DeviceReduce::Sum(temp, *bytes, i, o, n, s);
    case WK_NS::OP_MIN: return (int32_t)cub::DeviceReduce::Min(temp, *bytes, i, o, n, s);
    case WK_NS::OP_MAX: return (int32_t)cub::DeviceReduce::Max(temp, *bytes, i, o, n, s);
    default: return WK_ERR_ARG;
  }
}

// Sum (inclusive or exclusive) and inclusive Max (cuda::maximum: a plain compare, so no NaN
// rule; the bench's data has no NaN).
template <typename T>
int32_t scan_t(cudaStream_t s, uint32_t op, uint32_t exclusive, const void* in, void* out,
               uint64_t n, void* temp, size_t* bytes) {
  const T* i = (const T*)in;
  T* o = (T*)out;
  if (op == WK_NS::OP_MAX && !exclusive)
    return (int32_t)cub::DeviceScan::InclusiveScan(temp, *bytes, i, o, cuda::maximum<T>{}, n, s);
  if (op != WK_NS::OP_SUM) return WK_ERR_ARG;
  if (exclusive) return (int32_t)cub::DeviceScan::ExclusiveSum(temp, *bytes, i, o, n, s);
  return (int32_t)cub::DeviceScan::InclusiveSum(temp, *bytes, i, o, n, s);
}

template <typename T> struct Greater {
  T threshold;
  __host__ __device__ bool operator()(T x) const { return x > threshold; }
};

template <typename T>
int32_t select_gt(cudaStream_t s, const void* in, uint64_t n, double threshold, void* out,
                  int64_t* count, void* temp, size_t* temp_bytes) {
  return (int32_t)cub::DeviceSelect::If(temp, *temp_bytes, (const T*)in, (T*)out, count,
                                        (int64_t)n, Greater<T>{(T)threshold}, s);
}

}  // namespace

extern "C" uint32_t wk_bench_cub_version(void) { return CUB_VERSION; }

extern "C" int32_t wk_bench_cub_reduce(void* stream, uint32_t dtype, uint32_t op, const void* in,
                                       uint64_t n, void* out, void* temp, size_t* temp_bytes) {
  cudaStream_t s = as_stream(stream);
  switch (dtype) {
    case DT_I32: return reduce_t<int32_t>(s, op, in, n, out, temp, temp_bytes);
    case DT_F32: return reduce_t<float>(s, op, in, n, out, temp, temp_bytes);
    case DT_F64: return reduce_t<double>(s, op, in, n, out, temp, temp_bytes);
    default: return WK_ERR_DTYPE;
  }
}

extern "C" int32_t wk_bench_cub_scan(void* stream, uint32_t dtype, uint32_t op,
                                     uint32_t exclusive, const void* in, void* out, uint64_t n,
                                     void* temp, size_t* temp_bytes) {
  cudaStream_t s = as_stream(stream);
  switch (dtype) {
    case DT_I32: return scan_t<int32_t>(s, op, exclusive, in, out, n, temp, temp_bytes);
    case DT_I64: return scan_t<int64_t>(s, op, exclusive, in, out, n, temp, temp_bytes);
    case DT_F32: return scan_t<float>(s, op, exclusive, in, out, n, temp, temp_bytes);
    case DT_F64: return scan_t<double>(s, op, exclusive, in, out, n, temp, temp_bytes);
    default: return WK_ERR_DTYPE;
  }
}

extern "C" int32_t wk_bench_cub_segreduce(void* stream, const float* in, float* out,
                                          const uint32_t* offsets, uint64_t count, void* temp,
                                          size_t* temp_bytes) {
  return (int32_t)cub::DeviceSegmentedReduce::Sum(temp, *temp_bytes, in, out, (int64_t)count,
                                                  offsets, offsets + 1, as_stream(stream));
}

extern "C" int32_t wk_bench_cub_select_gt(void* stream, uint32_t dtype, const void* in,
                                          uint64_t n, double threshold, void* out,
                                          int64_t* count, void* temp, size_t* temp_bytes) {
  switch (dtype) {
    case WK_NS::DT_F32:
      return select_gt<float>(as_stream(stream), in, n, threshold, out, count, temp, temp_bytes);
    case WK_NS::DT_F64:
      return select_gt<double>(as_stream(stream), in, n, threshold, out, count, temp, temp_bytes);
    default: return WK_ERR_ARG;
  }
}
