// block_reduce: one canonical-order result per block of elements (docs/SEMANTICS.md
// "block_reduce").
#include "dispatch.h"

namespace WK_NS {
using namespace prims;

namespace {

// One block per result: blockDim == block, the last block padded with the identity.
// Combined in the accumulator type A (float for the 16-bit floats), the result rounded once.
template <int OP, typename T>
__global__ void block_reduce_kernel(const T* in, uint64_t n, T* out) {
  typedef typename Elem<T>::Acc A;
  WK_SHARED(A, groups, WK_MAX_GROUPS);
  uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const A v = e < n ? to_acc(in[e]) : Op<OP, A>::identity();
  const A r = group_reduce<OP, A>(v, groups);
  if (threadIdx.x == 0) out[blockIdx.x] = from_acc<T>(r);
}

}  // namespace

int block_reduce_launch(void* stream, wk_status*, uint32_t dtype, uint32_t op, const void* in,
                        uint64_t n, uint32_t block, void* out) {
  unsigned grid;
  if (block == 0 || block % WK_LOGICAL_GROUP != 0 || block > WK_MAX_BLOCK ||
      !grid_for(n, block, &grid))
    return WK_ERR_ARG;
  return with_dtype_io(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    return with_op<T>(op, [&](auto ot) {
      WK_LAUNCH(grid, block, 0, as_stream(stream), block_reduce_kernel<decltype(ot)::value, T>)(
          (const T*)in, n, (T*)out);
      return host::launch_error();
    });
  });
}

}  // namespace WK_NS
