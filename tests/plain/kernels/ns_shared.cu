// `__shared__` variables at namespace scope, which several kernels and a helper of the file use:
// on the GPU each block of each launch has its own, and so it is on the executor. Each output is
// a number the test works out from the launch's shape.
__shared__ int tile[64];
__shared__ int total;

// Reads the block's tile, which the kernel calling it wrote.
__device__ int tile_sum(int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += tile[i];
  return s;
}

// Each block fills its tile with its own values and reads it back reversed, then thread 0 adds
// it up through the helper.
__global__ void fill(int* out) {
  const int t = threadIdx.x;
  tile[t] = t + 100 * (int)blockIdx.x;
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = tile[blockDim.x - 1 - t] + (t == 0 ? 1000 * tile_sum(blockDim.x) : 0);
}

// Another kernel counting its block's threads in the same variable.
__global__ void count(int* out) {
  const int t = threadIdx.x;
  if (t == 0) total = 0;
  __syncthreads();
  atomicAdd(&total, 1);
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = total;
}

// Reads the tile no thread of this launch wrote: what `fill` left there is not its.
__global__ void stale(int* out) { out[threadIdx.x] = tile[threadIdx.x]; }
