// One file, several kernels, of which some use what the executor cannot model: a grid-wide
// barrier, inline PTX, cuRAND and cuBLAS (whose headers are included for the host code). Each
// kernel is checked for what it reaches, not for the rest of the file.
#include <cooperative_groups.h>
#include <cublas_v2.h>
#include <curand_kernel.h>
#include <cstdio>
namespace cg = cooperative_groups;

__device__ unsigned lane_ptx() {
  unsigned id;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
  return id;
}

__device__ float noise(curandState* s) { return curand_uniform(s); }

// Every thread adds its value, then after the grid's barrier thread 0 reads the total.
__global__ void grid_total(const int* in, int* out) {
  cg::grid_group grid = cg::this_grid();
  atomicAdd(out, in[grid.thread_rank()]);
  grid.sync();
  if (grid.thread_rank() == 0) out[1] = out[0];
}

// The grid's ranks without its barrier: thread_rank, size and num_blocks run.
__global__ void grid_ranks(int* out) {
  cg::grid_group grid = cg::this_grid();
  out[grid.thread_rank()] = (int)(grid.thread_rank() * 1000 + grid.size() * 10 + grid.num_blocks());
}

__global__ void lanes(int* out) { out[threadIdx.x] = lane_ptx(); }

__global__ void jitter(float* out, curandState* states) {
  out[threadIdx.x] = noise(&states[threadIdx.x]);
}

__global__ void twice(const int* in, int* out) { out[threadIdx.x] = 2 * in[threadIdx.x]; }

int main() {
  cublasHandle_t h;
  cublasCreate(&h);
  int* d = nullptr;
  cudaMalloc(&d, 64 * sizeof(int));
  twice<<<1, 64>>>(d, d);
  cublasDestroy(h);
  printf("done\n");
  return 0;
}
