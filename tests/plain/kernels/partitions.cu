// Cooperative groups' partitions (CUDA 11): labeled_partition and binary_partition of a tile of
// 32 and of a coalesced group, cg::reduce over the coalesced groups they make, and a
// __forceinline__ function passed to cg::reduce as its operator (a call through a pointer,
// which nvcc makes and GCC's always_inline refused). Each output is a number the test works
// out from the input.
// Also what such a program's host side brings: toolkit headers (the profiler's, which NVIDIA's
// matrixMul sample includes; vector_functions.h, which its blog's shuffle-reduction code does)
// and cuBLAS types in its globals (llm.c's common.h).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cublas_v2.h>
#include <cuda_profiler_api.h>
#include <vector_functions.h>
namespace cg = cooperative_groups;

static cublasComputeType_t compute_type = CUBLAS_COMPUTE_32F;

__device__ __forceinline__ int add_op(int a, int b) { return a + b; }

// Each thread's group of the threads of its tile of 32 with its label (the input mod 4): its
// sum, size and the thread's rank in it; and the sum of its half of the tile by parity.
__global__ void labels(const int* in, int* out, int* parity_out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const int v = in[block.thread_rank()];
  cg::coalesced_group same = cg::labeled_partition(tile, v % 4);
  const int sum = cg::reduce(same, v, cg::plus<int>());
  cg::coalesced_group parity = cg::binary_partition(tile, v & 1);
  const int parity_sum = cg::reduce(parity, v, add_op);
  out[block.thread_rank()] = sum + (int)same.size() * 1000 + (int)same.thread_rank() * 100000;
  parity_out[block.thread_rank()] = parity_sum;
}

// The threads with in[t] > 0 (a coalesced group of the warp's active lanes) split by the label
// of their input mod 3; each writes its group's size and the first value of the group.
__global__ void coalesced(const int* in, int* out) {
  const int v = in[threadIdx.x];
  out[threadIdx.x] = -1;
  if (v > 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    cg::coalesced_group mine = cg::labeled_partition(active, v % 3);
    out[threadIdx.x] = (int)mine.size() * 1000 + mine.shfl(v, 0);
  }
}
