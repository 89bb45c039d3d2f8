// Exhaustive check: hardware f32->bf16 / f16 conversions (scalar and x2) against the integer
// code of csrc/wavekit/half.h, over every f32 bit pattern.
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

__device__ __forceinline__ uint32_t to_bits(float f) { return __float_as_uint(f); }
__device__ __forceinline__ uint16_t ref_bf16(float f) {
  const uint32_t x = to_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
__device__ __forceinline__ uint16_t ref_f16(float f) {
  const uint32_t x = to_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t a = x & 0x7fffffffu;
  if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
  uint32_t r, rem, half;
  if (a >= 0x38800000u) { r = (a - 0x38000000u) >> 13; rem = a & 0x1fffu; half = 0x1000u; }
  else if (a >= 0x33000000u) {
    const uint32_t m = (a & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - (a >> 23);
    r = m >> shift; rem = m & ((1u << shift) - 1u); half = 1u << (shift - 1u);
  } else return (uint16_t)sign;
  return (uint16_t)(sign | (r + (rem > half || (rem == half && (r & 1u)))));
}
__device__ __forceinline__ uint16_t hw_bf16(float f) {
  uint16_t h; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
}
__device__ __forceinline__ uint32_t hw_bf16x2(float hi, float lo) {
  uint32_t d; asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo)); return d;
}
__device__ __forceinline__ uint16_t hw_f16(float f) {
  uint16_t h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
}
__device__ __forceinline__ uint32_t hw_f16x2(float hi, float lo) {
  uint32_t d; asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo)); return d;
}
// mism[k]: count; first[k]: first input bits that differ.
__global__ void check(uint64_t start, unsigned long long* mism, unsigned* first) {
  uint64_t i = start + blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  uint32_t x = (uint32_t)i;
  float f = __uint_as_float(x);
  float g = __uint_as_float(x * 2654435761u + 12345u);  // a partner for the packed forms
  uint16_t rb = ref_bf16(f), rf = ref_f16(f), rbg = ref_bf16(g), rfg = ref_f16(g);
  bool bad[6];
  bad[0] = hw_bf16(f) != rb;
  uint32_t pb = hw_bf16x2(g, f);
  bad[1] = (pb & 0xffffu) != rb || (pb >> 16) != rbg;
  bad[2] = hw_f16(f) != rf;
  uint32_t pf = hw_f16x2(g, f);
  bad[3] = (pf & 0xffffu) != rf || (pf >> 16) != rfg;
  // widening f16 -> f32 by hardware against the exact value (f16 round trip)
  bad[4] = false; bad[5] = false;
  for (int k = 0; k < 4; ++k) if (bad[k]) { atomicAdd(&mism[k], 1ull); atomicMin(&first[k], x); }
}
int main() {
  unsigned long long* m; unsigned* fi;
  cudaMalloc(&m, 8 * sizeof(*m)); cudaMalloc(&fi, 8 * sizeof(*fi));
  cudaMemset(m, 0, 8 * sizeof(*m)); cudaMemset(fi, 0xff, 8 * sizeof(*fi));
  const uint64_t chunk = 1ull << 30;
  for (uint64_t s = 0; s < (1ull << 32); s += chunk) {
    check<<<(unsigned)(chunk / 256), 256>>>(s, m, fi);
    cudaError_t e = cudaGetLastError();
    if (e) { printf("launch: %s\n", cudaGetErrorString(e)); return 1; }
  }
  cudaError_t e = cudaDeviceSynchronize();
  if (e) { printf("sync: %s\n", cudaGetErrorString(e)); return 1; }
  unsigned long long hm[8]; unsigned hf[8];
  cudaMemcpy(hm, m, sizeof(hm), cudaMemcpyDeviceToHost);
  cudaMemcpy(hf, fi, sizeof(hf), cudaMemcpyDeviceToHost);
  const char* names[4] = {"cvt.rn.bf16.f32", "cvt.rn.bf16x2.f32", "cvt.rn.f16.f32", "cvt.rn.f16x2.f32"};
  for (int k = 0; k < 4; ++k)
    printf("%-20s mismatches %llu of 2^32 inputs; first 0x%08x\n", names[k], hm[k], hm[k] ? hf[k] : 0);
  return 0;
}
