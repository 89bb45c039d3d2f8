// CUB's sorts as the baselines of the sort rows, compiled from the CUB headers of the CUDA wheel
// and timed in the same process and on the same stream as wavekit's launchers: DeviceRadixSort
// keys (f16 and bf16 too) and pairs, DeviceSegmentedSort's stable keys sort, and for argsort and
// top-k CUB's sort of (key, index) pairs (descending for top-k: what getting the k largest costs
// with a full sort).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "../wavekit/launch.h"
#include "../wavekit/ops.h"
#include "bench.h"

namespace {

template <typename K>
int32_t keys_t(cudaStream_t s, const void* in, void* out, uint64_t n, uint32_t descending,
               void* temp, size_t* bytes) {
  const K* i = (const K*)in;
  K* o = (K*)out;
  if (descending)
    return (int32_t)cub::DeviceRadixSort::SortKeysDescending(temp, *bytes, i, o, (int64_t)n, 0,
                                                             (int)(sizeof(K) * 8), s);
  return (int32_t)cub::DeviceRadixSort::SortKeys(temp, *bytes, i, o, (int64_t)n, 0,
                                                 (int)(sizeof(K) * 8), s);
}

template <typename K>
int32_t pairs_t(cudaStream_t s, const void* keys, void* keys_out, const uint32_t* vals,
                uint32_t* vals_out, uint64_t n, uint32_t descending, void* temp, size_t* bytes) {
  const K* k = (const K*)keys;
  K* ko = (K*)keys_out;
  if (descending)
    return (int32_t)cub::DeviceRadixSort::SortPairsDescending(
        temp, *bytes, k, ko, vals, vals_out, (int64_t)n, 0, (int)(sizeof(K) * 8), s);
  return (int32_t)cub::DeviceRadixSort::SortPairs(temp, *bytes, k, ko, vals, vals_out,
                                                  (int64_t)n, 0, (int)(sizeof(K) * 8), s);
}

}  // namespace

extern "C" int32_t wk_bench_cub_sort_keys(void* stream, uint32_t dtype, const void* in, void* out,
                                          uint64_t n, uint32_t descending, void* temp,
                                          size_t* temp_bytes) {
  cudaStream_t s = (cudaStream_t)stream;
  switch (dtype) {
    case WK_NS::DT_U32: return keys_t<uint32_t>(s, in, out, n, descending, temp, temp_bytes);
    case WK_NS::DT_I32: return keys_t<int32_t>(s, in, out, n, descending, temp, temp_bytes);
    case WK_NS::DT_F32: return keys_t<float>(s, in, out, n, descending, temp, temp_bytes);
    case WK_NS::DT_U64: return keys_t<uint64_t>(s, in, out, n, descending, temp, temp_bytes);
    case WK_NS::DT_I64: return keys_t<int64_t>(s, in, out, n, descending, temp, temp_bytes);
    case WK_NS::DT_F64: return keys_t<double>(s, in, out, n, descending, temp, temp_bytes);
    // CUB orders the 16-bit floats by their bits as it does float (-0.0 before +0.0).
    case WK_NS::DT_F16: return keys_t<__half>(s, in, out, n, descending, temp, temp_bytes);
    case WK_NS::DT_BF16: return keys_t<__nv_bfloat16>(s, in, out, n, descending, temp, temp_bytes);
    default: return WK_ERR_DTYPE;
  }
}

extern "C" int32_t wk_bench_cub_sort_pairs(void* stream, uint32_t dtype, const void* keys,
                                           void* keys_out, const uint32_t* vals,
                                           uint32_t* vals_out, uint64_t n, uint32_t descending,
                                           void* temp, size_t* temp_bytes) {
  cudaStream_t s = (cudaStream_t)stream;
  switch (dtype) {
    case WK_NS::DT_U32:
      return pairs_t<uint32_t>(s, keys, keys_out, vals, vals_out, n, descending, temp, temp_bytes);
    case WK_NS::DT_F32:
      return pairs_t<float>(s, keys, keys_out, vals, vals_out, n, descending, temp, temp_bytes);
    case WK_NS::DT_U64:
      return pairs_t<uint64_t>(s, keys, keys_out, vals, vals_out, n, descending, temp, temp_bytes);
    case WK_NS::DT_F64:
      return pairs_t<double>(s, keys, keys_out, vals, vals_out, n, descending, temp, temp_bytes);
    default: return WK_ERR_DTYPE;
  }
}

extern "C" int32_t wk_bench_cub_segmented_sort(void* stream, const uint32_t* keys, uint32_t* out,
                                               uint64_t n, const uint32_t* offsets,
                                               uint64_t count, void* temp, size_t* temp_bytes) {
  return (int32_t)cub::DeviceSegmentedSort::StableSortKeys(
      temp, *temp_bytes, keys, out, (int64_t)n, (int64_t)count, offsets, offsets + 1,
      (cudaStream_t)stream);
}
