// argmax f64 (and f32) experiment: the copied arg_reduce.cu (variant via macros) against CUB.
#include <cstdio>
#include <cstdlib>
#include <cub/cub.cuh>
#include "exp_arg.cu"
#define CK(x) do { cudaError_t e = (x); if (e) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
__global__ void fill(double* p, uint64_t n, uint64_t seed) {
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
    uint64_t z = i * 0x9E3779B97F4A7C15ull + seed; z ^= z >> 30; z *= 0xBF58476D1CE4E5B9ull; z ^= z >> 27; z *= 0x94D049BB133111EBull; z ^= z >> 31;
    p[i] = (double)(z >> 11) * 0x1.0p-53 * 2.0 - 1.0;
  }
}
__global__ void fillf(float* p, uint64_t n, uint64_t seed) {
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
    uint64_t z = i * 0x9E3779B97F4A7C15ull + seed; z ^= z >> 30; z *= 0xBF58476D1CE4E5B9ull; z ^= z >> 27;
    p[i] = (float)((z >> 40) * 0x1.0p-24) * 2.0f - 1.0f;
  }
}
template <typename T> void run(uint64_t n, int reps, uint32_t dt, void (*fillk)(T*, uint64_t, uint64_t)) {
  T* in; CK(cudaMalloc(&in, n * sizeof(T)));
  fillk<<<4096, 256>>>(in, n, 12345); CK(cudaGetLastError());
  uint64_t sb = wk_cuda::arg_reduce_scratch(n); void* sc; CK(cudaMalloc(&sc, sb));
  T* val; uint64_t* idx; wk_status* st; CK(cudaMalloc(&val, 8)); CK(cudaMalloc(&idx, 8)); CK(cudaMalloc(&st, 4096)); CK(cudaMemset(st, 0, 4096));
  T* cv; int64_t* ci; CK(cudaMalloc(&cv, 8)); CK(cudaMalloc(&ci, 8));
  size_t tb = 0; void* tmp = nullptr;
  CK(cub::DeviceReduce::ArgMax(tmp, tb, in, cv, ci, (int64_t)n)); CK(cudaMalloc(&tmp, tb));
  char* flush; size_t fl = 256 << 20; CK(cudaMalloc(&flush, fl));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  auto ours = [&] { int rc = wk_cuda::arg_reduce_launch(nullptr, st, 32, dt, wk_cuda::OP_MAX, in, n, sc, sb, val, idx); if (rc) { printf("rc %d\n", rc); exit(1);} };
  auto theirs = [&] { CK(cub::DeviceReduce::ArgMax(tmp, tb, in, cv, ci, (int64_t)n)); };
  ours(); theirs(); CK(cudaDeviceSynchronize());
  uint64_t oi; int64_t tki; T tkv; T ov;
  CK(cudaMemcpy(&oi, idx, 8, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&ov, val, sizeof(T), cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&tki, ci, 8, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&tkv, cv, sizeof(T), cudaMemcpyDeviceToHost));
  if (oi != (uint64_t)tki || ov != tkv) { printf("MISMATCH %llu %lld\n", (unsigned long long)oi, (long long)tki); exit(1); }
  double to = 0, tt = 0; float ms;
  for (int r = 0; r < reps; ++r) {
    for (int w = 0; w < 2; ++w) {
      CK(cudaMemsetAsync(flush, r & 255, fl));
      cudaEventRecord(a); if ((r + w) & 1) theirs(); else ours(); cudaEventRecord(b); CK(cudaEventSynchronize(b));
      cudaEventElapsedTime(&ms, a, b); if ((r + w) & 1) tt += ms; else to += ms;
    }
  }
  printf("%s n=2^%d ours %.1f us cub %.1f us ratio(cub/ours) %.3f grid %u\n", sizeof(T) == 8 ? "f64" : "f32", (int)__builtin_ctzll(n), to / reps * 1000, tt / reps * 1000, tt / to, wk_cuda::arg_grid<T>(in, n));
  cudaFree(in); cudaFree(sc); cudaFree(tmp); cudaFree(flush); cudaFree(cv); cudaFree(ci); cudaFree(val); cudaFree(idx); cudaFree(st);
}
int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 30;
  for (int lg : {20, 24, 28}) run<double>(1ull << lg, reps, wk_cuda::DT_F64, fill);
  run<float>(1ull << 28, reps, wk_cuda::DT_F32, fillf);
  return 0;
}
