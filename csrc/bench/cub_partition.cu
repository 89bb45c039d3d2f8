// CUB's DevicePartition::If as the baseline of the partition rows (f32, f64, x > 0), timed in the same
// process and on the same stream as wavekit's launchers. CUB writes the rejected part in reverse
// order; the caller compares it reversed (the stable rows) or as it is (partition_reversed). Its
// three-way form is the partition3_reversed rows' baseline (x < -333, then x < 333), its
// unselected part written through a reverse iterator over the first part's buffer, as CUB's
// documentation shows and partition3_reversed lays its output out.
#include <cub/device/device_partition.cuh>
#include <thrust/iterator/reverse_iterator.h>

#include "../wavekit/launch.h"
#include "../wavekit/ops.h"
#include "bench.h"

namespace {
struct Positive {
  template <typename T> __host__ __device__ bool operator()(T x) const { return x > T(0); }
};

// The partition3_reversed rows' predicates (tools/bench/src/partition.rs: Lt(-333), Lt(333)).
struct Below {
  double bound;
  template <typename T> __host__ __device__ bool operator()(T x) const { return x < T(bound); }
};

template <typename T>
int32_t partition_thirds(cudaStream_t s, const void* in, void* out, void* middle, int64_t* counts,
                         uint64_t n, void* temp, size_t* temp_bytes) {
  thrust::reverse_iterator<T*> rest((T*)out + n);
  return (int32_t)cub::DevicePartition::If(temp, *temp_bytes, (const T*)in, (T*)out, (T*)middle,
                                           rest, counts, (int64_t)n, Below{-333.0}, Below{333.0},
                                           s);
}

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

extern "C" int32_t wk_bench_cub_partition_thirds(void* stream, uint32_t dtype, const void* in,
                                                 void* out, void* middle, int64_t* counts,
                                                 uint64_t n, void* temp, size_t* temp_bytes) {
  const cudaStream_t s = (cudaStream_t)stream;
  switch (dtype) {
    case WK_NS::DT_F32:
      return partition_thirds<float>(s, in, out, middle, counts, n, temp, temp_bytes);
    case WK_NS::DT_F64:
      return partition_thirds<double>(s, in, out, middle, counts, n, temp, temp_bytes);
    default: return WK_ERR_ARG;
  }
}
