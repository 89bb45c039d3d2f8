// block_reduce: one canonical-order result per block of elements (docs/SEMANTICS.md
// "block_reduce").
#include "dispatch.h"

namespace WK_NS {
using namespace prims;

namespace {

// One block per result: blockDim == block, the last block padded with the identity.
template <int OP, typename T>
__global__ void block_reduce_kernel(const T* in, uint64_t n, T* out) {
  WK_SHARED(T, groups, WK_MAX_GROUPS);
  uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  T v = e < n ? in[e] : Op<OP, T>::identity();
  T r = group_reduce<OP, T>(v, groups);
  if (threadIdx.x == 0) out[blockIdx.x] = r;
}

}  // namespace

int block_reduce_launch(void* stream, wk_status*, uint32_t dtype, uint32_t op, const void* in,
                        uint64_t n, uint32_t block, void* out) {
  unsigned grid;
  if (block == 0 || block % WK_LOGICAL_GROUP != 0 || block > WK_MAX_BLOCK ||
      !grid_for(n, block, &grid))
    return WK_ERR_ARG;
  return with_dtype(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    return with_op<T>(op, [&](auto ot) {
      WK_LAUNCH(grid, block, 0, as_stream(stream), block_reduce_kernel<decltype(ot)::value, T>)(
          (const T*)in, n, (T*)out);
      return host::launch_error();
    });
  });
}

}  // namespace WK_NS
