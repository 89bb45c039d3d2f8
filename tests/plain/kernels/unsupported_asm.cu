// A lane id read with inline PTX: the executor cannot run it.
__device__ unsigned lane_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
  return id;
}

__global__ void lanes(int* out) { out[threadIdx.x] = lane_id(); }
