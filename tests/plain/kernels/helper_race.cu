// Races inside a __device__ helper and a function template, called from the kernel: each
// report names this file and the helper's line.
__device__ void stage(int* s, int v) {
  s[threadIdx.x % 32] = v;  // RACE: threads t and t + 32 write the same slot
}

template <class T>
__device__ T peek(const T* s) {
  return s[(threadIdx.x + 1) % 32];  // READ: another thread's slot, unordered with its write
}

__global__ void helper_race(const int* in, int* out) {
  __shared__ int s[32];
  stage(s, in[threadIdx.x]);
  out[threadIdx.x] = peek(s);
}
