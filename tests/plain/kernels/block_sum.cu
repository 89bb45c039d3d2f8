// A block sum templated on its element type and block size: shared memory down to one warp,
// then shuffles. Right at 32 and 64 lanes (it stops the shared stage at warpSize).
#include <cuda_runtime.h>

template <typename T, int BLOCK>
__global__ void block_sum(const T* in, T* out, int n) {
  __shared__ T partial[BLOCK];
  const int tid = threadIdx.x;
  const int i = blockIdx.x * BLOCK + tid;
  partial[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (int s = BLOCK / 2; s >= warpSize; s >>= 1) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid < warpSize) {
    T v = partial[tid];
    for (int off = warpSize / 2; off > 0; off /= 2) v += __shfl_down_sync(~0ull, v, off);
    if (tid == 0) out[blockIdx.x] = v;
  }
}

// The host side a program has: never run by the executor, whose rewriter empties it.
int main() {
  float* d = nullptr;
  cudaMalloc(&d, 256 * sizeof(float));
  block_sum<float, 128><<<2, 128>>>(d, d, 256);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
