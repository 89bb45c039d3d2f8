// CUB's DeviceReduce::ArgMin / ArgMax as the baselines of the argmin / argmax rows (f32, f64 and
// the 16-bit floats as __half / __nv_bfloat16), timed in the same process and on the same stream
// as wavekit's launchers. CUB picks the first of equal extremes, as wavekit does; the rows'
// inputs hold no NaN, where the two rules part.
#include <cub/device/device_reduce.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../wavekit/launch.h"
#include "../wavekit/ops.h"
#include "bench.h"

namespace {

template <typename T>
int32_t arg_t(cudaStream_t s, uint32_t op, const void* in, uint64_t n, void* value,
              int64_t* index, void* temp, size_t* bytes) {
  const T* i = (const T*)in;
  T* v = (T*)value;
  switch (op) {
    case WK_NS::OP_MIN:
      return (int32_t)cub::DeviceReduce::ArgMin(temp, *bytes, i, v, index, (int64_t)n, s);
    case WK_NS::OP_MAX:
      return (int32_t)cub::DeviceReduce::ArgMax(temp, *bytes, i, v, index, (int64_t)n, s);
    default: return WK_ERR_ARG;
  }
}

}  // namespace

// op is OP_MIN or OP_MAX; the index is written as an int64_t.
extern "C" int32_t wk_bench_cub_arg_reduce(void* stream, uint32_t dtype, uint32_t op,
                                           const void* in, uint64_t n, void* value,
                                           int64_t* index, void* temp, size_t* temp_bytes) {
  cudaStream_t s = (cudaStream_t)stream;
  switch (dtype) {
    case WK_NS::DT_F32: return arg_t<float>(s, op, in, n, value, index, temp, temp_bytes);
    case WK_NS::DT_F64: return arg_t<double>(s, op, in, n, value, index, temp, temp_bytes);
    case WK_NS::DT_F16: return arg_t<__half>(s, op, in, n, value, index, temp, temp_bytes);
    case WK_NS::DT_BF16: return arg_t<__nv_bfloat16>(s, op, in, n, value, index, temp, temp_bytes);
    default: return WK_ERR_DTYPE;
  }
}
