// The seed ladder (seed 003, from the book's 10-warp/reduce*.cu, and seed 002's reductions): the
// same float sum written six ways, each step one change from the last. Steps 1-4 end every block
// with an atomicAdd into one float (so their sums depend on the order blocks finish); steps 5-6
// are grid-stride with two launches and a tree for the block sums.
//   1 shared memory + __syncthreads down to one value
//   2 __syncthreads while the stride is >= a warp, __syncwarp for the last warp
//   3 the last warp reduced with __shfl_down_sync in registers
//   4 the same with a cooperative-groups thread_block_tile
//   5 grid-stride with more work per thread, two passes, d_y allocated per call (cudaMalloc)
//   6 the same with static __device__ scratch instead of the per-call allocation
#include <cooperative_groups.h>

#include "../wavekit/launch.h"
#include "../wavekit/width.h"
#include "bench.h"

namespace cg = cooperative_groups;

namespace {

const int kBlock = 128;
const int kGrid = 10240;
const int kFinalBlock = 1024;
const unsigned kSteps = 6;

__device__ float static_y[kGrid];

__global__ void reduce_syncthreads(const float* x, float* y, int n) {
  extern __shared__ float s_y[];
  const int tid = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + tid;
  s_y[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int offset = blockDim.x >> 1; offset > 0; offset >>= 1) {
    if (tid < offset) s_y[tid] += s_y[tid + offset];
    __syncthreads();
  }
  if (tid == 0) atomicAdd(y, s_y[0]);
}

__global__ void reduce_syncwarp(const float* x, float* y, int n) {
  extern __shared__ float s_y[];
  const int tid = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + tid;
  s_y[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int offset = blockDim.x >> 1; offset >= WK_WARP_SIZE; offset >>= 1) {
    if (tid < offset) s_y[tid] += s_y[tid + offset];
    __syncthreads();
  }
  for (int offset = WK_WARP_SIZE / 2; offset > 0; offset >>= 1) {
    if (tid < offset) s_y[tid] += s_y[tid + offset];
    __syncwarp();
  }
  if (tid == 0) atomicAdd(y, s_y[0]);
}

__global__ void reduce_shfl(const float* x, float* y, int n) {
  extern __shared__ float s_y[];
  const int tid = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + tid;
  s_y[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int offset = blockDim.x >> 1; offset >= WK_WARP_SIZE; offset >>= 1) {
    if (tid < offset) s_y[tid] += s_y[tid + offset];
    __syncthreads();
  }
  float v = s_y[tid];
  for (int offset = WK_WARP_SIZE / 2; offset > 0; offset >>= 1)
    v += __shfl_down_sync(WK_FULL_MASK, v, offset);
  if (tid == 0) atomicAdd(y, v);
}

__global__ void reduce_cg(const float* x, float* y, int n) {
  extern __shared__ float s_y[];
  const int tid = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + tid;
  s_y[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int offset = blockDim.x >> 1; offset >= WK_WARP_SIZE; offset >>= 1) {
    if (tid < offset) s_y[tid] += s_y[tid + offset];
    __syncthreads();
  }
  float v = s_y[tid];
  cg::thread_block_tile<WK_WARP_SIZE> g = cg::tiled_partition<WK_WARP_SIZE>(cg::this_thread_block());
  for (int offset = g.size() >> 1; offset > 0; offset >>= 1) v += g.shfl_down(v, offset);
  if (tid == 0) atomicAdd(y, v);
}

// Steps 5-6: each thread folds a grid-stride slice, then the block tree; one partial per block.
__global__ void reduce_gridstride(const float* x, float* y, int n) {
  extern __shared__ float s_y[];
  const int tid = threadIdx.x;
  float v = 0.0f;
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += stride) v += x[i];
  s_y[tid] = v;
  __syncthreads();
  for (int offset = blockDim.x >> 1; offset >= WK_WARP_SIZE; offset >>= 1) {
    if (tid < offset) s_y[tid] += s_y[tid + offset];
    __syncthreads();
  }
  v = s_y[tid];
  cg::thread_block_tile<WK_WARP_SIZE> g = cg::tiled_partition<WK_WARP_SIZE>(cg::this_thread_block());
  for (int offset = g.size() >> 1; offset > 0; offset >>= 1) v += g.shfl_down(v, offset);
  if (tid == 0) y[blockIdx.x] = v;
}

int32_t finish(cudaStream_t s, const float* d_result, float* result) {
  if (!result) return (int32_t)cudaGetLastError();
  cudaError_t e = cudaMemcpyAsync(result, d_result, sizeof(float), cudaMemcpyDeviceToHost, s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  return (int32_t)e;
}

int32_t two_pass(cudaStream_t s, const float* in, int n, float* d_y) {
  reduce_gridstride<<<kGrid, kBlock, sizeof(float) * kBlock, s>>>(in, d_y, n);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return (int32_t)e;
  reduce_gridstride<<<1, kFinalBlock, sizeof(float) * kFinalBlock, s>>>(d_y, d_y, kGrid);
  return (int32_t)cudaGetLastError();
}

}  // namespace

extern "C" uint32_t wk_bench_ladder_steps(void) { return kSteps; }

extern "C" const char* wk_bench_ladder_name(uint32_t step) {
  switch (step) {
    case 1: return "shared memory + __syncthreads";
    case 2: return "+ __syncwarp for the last warp";
    case 3: return "+ shuffles for the last warp";
    case 4: return "+ cooperative-group tile";
    case 5: return "grid-stride, 2 passes, cudaMalloc per call";
    case 6: return "+ static scratch";
    default: return "";
  }
}

// result == NULL: queue the work and return without waiting (for event timing); steps 5's
// allocation and free still happen inside the call, as they do in the seed.
extern "C" int32_t wk_bench_ladder(void* stream, uint32_t step, const float* in, uint64_t n,
                                   float* d_y, float* result) {
  if (n == 0 || n > 0x7fffffffull) return WK_ERR_ARG;
  cudaStream_t s = (cudaStream_t)stream;
  const int ni = (int)n;
  const unsigned grid = (unsigned)((n + kBlock - 1) / kBlock);
  const size_t smem = sizeof(float) * kBlock;
  if (step >= 1 && step <= 4) {
    cudaError_t e = cudaMemsetAsync(d_y, 0, sizeof(float), s);
    if (e != cudaSuccess) return (int32_t)e;
    switch (step) {
      case 1: reduce_syncthreads<<<grid, kBlock, smem, s>>>(in, d_y, ni); break;
      case 2: reduce_syncwarp<<<grid, kBlock, smem, s>>>(in, d_y, ni); break;
      case 3: reduce_shfl<<<grid, kBlock, smem, s>>>(in, d_y, ni); break;
      default: reduce_cg<<<grid, kBlock, smem, s>>>(in, d_y, ni); break;
    }
    return finish(s, d_y, result);
  }
  if (step == 5) {
    float* y = nullptr;
    cudaError_t e = cudaMalloc(&y, sizeof(float) * kGrid);
    if (e != cudaSuccess) return (int32_t)e;
    int32_t rc = two_pass(s, in, ni, y);
    if (rc == 0) rc = finish(s, y, result);
    e = cudaFree(y);
    return rc ? rc : (int32_t)e;
  }
  if (step == 6) {
    float* y = nullptr;
    cudaError_t e = cudaGetSymbolAddress((void**)&y, static_y);
    if (e != cudaSuccess) return (int32_t)e;
    int32_t rc = two_pass(s, in, ni, y);
    return rc ? rc : finish(s, y, result);
  }
  return WK_ERR_ARG;
}
