// Seed 001 (HIP SpMV): a vector reduce whose second __syncthreads sits inside
// `if (vec_id_in_block < THREADS_PER_BLOCK / REDUCE_SIZE)`. Warps that skip the branch go on to
// the next iteration's barrier, so the block's barriers pair up wrongly and shared memory is
// overwritten while other warps still read it. The fix closes the branch before the barrier and
// reopens it after.
#include "../prelude.h"

namespace WK_NS {
namespace pitfalls {

constexpr int THREADS_PER_BLOCK = 256;
constexpr int VECTOR_SIZE = 4;
constexpr int REDUCE_SIZE = 8;

template <bool kFixed>
__global__ void spmv_vector_reduce(const int* x, int* y, int alpha, int iters) {
  const int g_tid = threadIdx.x + blockDim.x * blockIdx.x;
  const int tid_in_block = g_tid % blockDim.x;
  WK_SHARED(int, SH, THREADS_PER_BLOCK);
  constexpr int VECTOR_NUM = THREADS_PER_BLOCK / VECTOR_SIZE;
  const int tid_in_vector = g_tid % VECTOR_SIZE;
  const int vec_id_in_block = tid_in_block / VECTOR_SIZE;
  WK_SHARED(int, lds_y, VECTOR_NUM);
  const bool reducer = vec_id_in_block < THREADS_PER_BLOCK / REDUCE_SIZE;
  // The seed's mask-free __shfl_down becomes a *_sync shuffle over the lanes of the branch,
  // computed before the branch.
  const wk_lanemask_t vmask = arch::ballot_sync(WK_FULL_MASK, reducer);

  int K = 0;
  for (int i = 0; i < iters; i++) {
    const int index = i * THREADS_PER_BLOCK + g_tid;
    SH[tid_in_block] = x[index];
    __syncthreads();  // sync1

    if (reducer) {
      int sum = 0;
      for (int j = 0; j < REDUCE_SIZE / VECTOR_SIZE; j++) {
        const int lds_index = vec_id_in_block * REDUCE_SIZE + tid_in_vector + j * VECTOR_SIZE;
        sum += SH[lds_index];
      }
      for (int j = VECTOR_SIZE >> 1; j > 0; j >>= 1)
        sum += (int)arch::shfl_down_sync(vmask, (uint32_t)sum, j, VECTOR_SIZE);
      if (tid_in_vector == 0) lds_y[vec_id_in_block] = sum;
      if (!kFixed) {
        __syncthreads();  // sync2, inside the branch: the bug
        if (tid_in_block < THREADS_PER_BLOCK / REDUCE_SIZE) {
          const int local_sum = lds_y[tid_in_block];
          y[K + tid_in_block] = alpha * local_sum;
        }
      }
    }
    if (kFixed) {
      __syncthreads();  // sync2, reached by every thread
      if (reducer && tid_in_block < THREADS_PER_BLOCK / REDUCE_SIZE) {
        const int local_sum = lds_y[tid_in_block];
        y[K + tid_in_block] = alpha * local_sum;
      }
    }
    K += THREADS_PER_BLOCK / REDUCE_SIZE;
  }
}

}  // namespace pitfalls
}  // namespace WK_NS

// x holds iters * 256 values, y receives iters * 32 sums of 8 consecutive values times alpha.
extern "C" int WK_SIMT_EXPORT(pitfall_spmv_reduce)(void* stream, int fixed, const int* x, int* y,
                                                   int alpha, int iters) {
  using namespace WK_NS::pitfalls;
  if (fixed)
    WK_LAUNCH(1, THREADS_PER_BLOCK, 0, stream, spmv_vector_reduce<true>)(x, y, alpha, iters);
  else
    WK_LAUNCH(1, THREADS_PER_BLOCK, 0, stream, spmv_vector_reduce<false>)(x, y, alpha, iters);
  return WK_NS::host::launch_error();
}
