// Seed 003's reduction ladder and cooperative-group tile, run from the fragments the seed
// prints (003_*.inc, copied unmodified): the seed shows loop bodies, not whole kernels, so
// each kernel here declares what its fragments use, as the book's reduce.cu does (`real`,
// FULL_MASK, tid, n, the dynamic shared s_y), and ends with the book's atomicAdd where the
// fragment does not.
#include <cooperative_groups.h>
using namespace cooperative_groups;

typedef float real;
const unsigned FULL_MASK = 0xffffffff;

// Shared memory down to one warp with __syncthreads, then __syncwarp for the last 32 sums.
__global__ void reduce_syncwarp(const real *d_x, real *d_y, const int N) {
  const int tid = threadIdx.x;
  const int n = blockIdx.x * blockDim.x + tid;
  extern __shared__ real s_y[];
  s_y[tid] = (n < N) ? d_x[n] : 0.0;
  __syncthreads();
#include "003_syncwarp.inc"
  if (tid == 0) {
    atomicAdd(d_y, s_y[0]);
  }
}

// The last warp reduced with __shfl_down_sync(FULL_MASK, ...) in registers.
__global__ void reduce_shfl(const real *d_x, real *d_y, const int N) {
  const int tid = threadIdx.x;
  const int n = blockIdx.x * blockDim.x + tid;
  extern __shared__ real s_y[];
  s_y[tid] = (n < N) ? d_x[n] : 0.0;
  __syncthreads();
#include "003_shfl.inc"
}

// The same with a thread_block_tile<32>.
__global__ void reduce_cg(const real *d_x, real *d_y, const int N) {
  const int tid = threadIdx.x;
  const int n = blockIdx.x * blockDim.x + tid;
  extern __shared__ real s_y[];
#include "003_block_loop.inc"
  real y = s_y[tid];
#include "003_tile.inc"
  if (tid == 0) {
    atomicAdd(d_y, y);
  }
}
