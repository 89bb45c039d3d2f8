// CUDA's vector types and make_* functions (lang.h has uint2 and uint4), its integer min/max,
// the float built-ins kernels call, and the host runtime's types and constants, so that
// declarations outside function bodies (a `cudaError_t check(...)`) build. Host function bodies
// are emptied by the rewriter, so no runtime call is ever made here.
#pragma once

#include <math.h>

#include <algorithm>
#include <type_traits>

namespace wk_plain {
// The component type and count of a CUDA vector type (a kernel may take a pointer to them).
template <class V>
struct vector_parts {
  typedef void elem;
  static constexpr int n = 0;
};
}  // namespace wk_plain
#define WK_PLAIN_PARTS(V, T, k)      \
  namespace wk_plain {               \
  template <>                        \
  struct vector_parts<V> {           \
    typedef T elem;                  \
    static constexpr int n = k;      \
  };                                 \
  }

#define WK_PLAIN_VEC1(T, N, A) \
  struct __align__(A) N##1 {   \
    T x;                       \
  };                           \
  inline N##1 make_##N##1(T x) { return N##1{x}; }
#define WK_PLAIN_VEC2(T, N, A) \
  struct __align__(A) N##2 {   \
    T x, y;                    \
  };                           \
  inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }
#define WK_PLAIN_VEC3(T, N) \
  struct N##3 {             \
    T x, y, z;              \
  };                        \
  inline N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }
#define WK_PLAIN_VEC4(T, N, A) \
  struct __align__(A) N##4 {   \
    T x, y, z, w;              \
  };                           \
  inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
#define WK_PLAIN_VECS(T, N)                                                      \
  WK_PLAIN_VEC1(T, N, sizeof(T))                                                 \
  WK_PLAIN_VEC2(T, N, 2 * sizeof(T)) WK_PLAIN_VEC3(T, N) WK_PLAIN_VEC4(T, N, 4 * sizeof(T))

WK_PLAIN_VECS(signed char, char)
WK_PLAIN_VECS(unsigned char, uchar)
WK_PLAIN_VECS(short, short)
WK_PLAIN_VECS(unsigned short, ushort)
WK_PLAIN_VECS(int, int)
WK_PLAIN_VECS(long, long)
WK_PLAIN_VECS(unsigned long, ulong)
WK_PLAIN_VECS(long long, longlong)
WK_PLAIN_VECS(unsigned long long, ulonglong)
WK_PLAIN_VECS(float, float)
WK_PLAIN_VECS(double, double)
// uint2 and uint4 come from csrc/simt/lang.h.
WK_PLAIN_VEC1(unsigned, uint, sizeof(unsigned))
WK_PLAIN_VEC3(unsigned, uint)
inline uint2 make_uint2(unsigned x, unsigned y) { return uint2{x, y}; }
#define WK_PLAIN_ALL_PARTS(T, N) \
  WK_PLAIN_PARTS(N##1, T, 1) WK_PLAIN_PARTS(N##2, T, 2) WK_PLAIN_PARTS(N##3, T, 3) WK_PLAIN_PARTS(N##4, T, 4)
WK_PLAIN_ALL_PARTS(signed char, char)
WK_PLAIN_ALL_PARTS(unsigned char, uchar)
WK_PLAIN_ALL_PARTS(short, short)
WK_PLAIN_ALL_PARTS(unsigned short, ushort)
WK_PLAIN_ALL_PARTS(int, int)
WK_PLAIN_ALL_PARTS(unsigned, uint)
WK_PLAIN_ALL_PARTS(long, long)
WK_PLAIN_ALL_PARTS(unsigned long, ulong)
WK_PLAIN_ALL_PARTS(long long, longlong)
WK_PLAIN_ALL_PARTS(unsigned long long, ulonglong)
WK_PLAIN_ALL_PARTS(float, float)
WK_PLAIN_ALL_PARTS(double, double)
#undef WK_PLAIN_ALL_PARTS
#undef WK_PLAIN_PARTS
#undef WK_PLAIN_VECS
#undef WK_PLAIN_VEC1
#undef WK_PLAIN_VEC2
#undef WK_PLAIN_VEC3
#undef WK_PLAIN_VEC4

// CUDA's overloads of min and max, for mixed integer and float arguments too.
template <class A, class B>
inline typename std::common_type<A, B>::type min(A a, B b) {
  typedef typename std::common_type<A, B>::type C;
  return (C)b < (C)a ? (C)b : (C)a;
}
template <class A, class B>
inline typename std::common_type<A, B>::type max(A a, B b) {
  typedef typename std::common_type<A, B>::type C;
  return (C)a < (C)b ? (C)b : (C)a;
}
inline int umin(int a, int b) { return min(a, b); }

// Float built-ins: the correctly rounded operation (the executor checks warps, not ulps).
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return powf(10.0f, x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline float __powf(float a, float b) { return powf(a, b); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
inline int __float2int_rz(float x) { return (int)x; }
inline unsigned __float2uint_rn(float x) { return (unsigned)nearbyintf(x); }
inline float __int2float_rn(int x) { return (float)x; }
inline float __uint2float_rn(unsigned x) { return (float)x; }
inline int __float_as_int(float x) {
  int i;
  memcpy(&i, &x, sizeof i);
  return i;
}
inline float __int_as_float(int i) {
  float x;
  memcpy(&x, &i, sizeof x);
  return x;
}
inline unsigned __float_as_uint(float x) { return (unsigned)__float_as_int(x); }
inline float __uint_as_float(unsigned i) { return __int_as_float((int)i); }
inline long long __double_as_longlong(double x) {
  long long i;
  memcpy(&i, &x, sizeof i);
  return i;
}
inline double __longlong_as_double(long long i) {
  double x;
  memcpy(&x, &i, sizeof x);
  return x;
}

// ---- the host runtime's types and constants (CUDA and HIP spellings) ----
typedef int cudaError_t;
typedef int hipError_t;
typedef void* cudaStream_t;
typedef void* hipStream_t;
typedef void* cudaEvent_t;
typedef void* hipEvent_t;
enum { cudaSuccess = 0, hipSuccess = 0, cudaErrorUnknown = 999, hipErrorUnknown = 999 };
enum cudaMemcpyKind {
  cudaMemcpyHostToHost,
  cudaMemcpyHostToDevice,
  cudaMemcpyDeviceToHost,
  cudaMemcpyDeviceToDevice,
  cudaMemcpyDefault
};
enum hipMemcpyKind {
  hipMemcpyHostToHost,
  hipMemcpyHostToDevice,
  hipMemcpyDeviceToHost,
  hipMemcpyDeviceToDevice,
  hipMemcpyDefault
};
// Textures and surfaces parse (a texture reference at namespace scope, a texture object
// parameter) so that the file's other kernels build; reading one in code the checked kernel
// reaches is refused before compiling.
enum cudaTextureReadMode { cudaReadModeElementType, cudaReadModeNormalizedFloat };
template <class T, int Dim = 1, cudaTextureReadMode Mode = cudaReadModeElementType>
struct texture {};
template <class T = void, int Dim = 1>
struct surface {};
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
typedef unsigned long long hipTextureObject_t;
typedef unsigned long long hipSurfaceObject_t;
#define hipReadModeElementType cudaReadModeElementType
#define hipReadModeNormalizedFloat cudaReadModeNormalizedFloat

struct cudaDeviceProp {
  char name[256];
  int warpSize, multiProcessorCount, maxThreadsPerBlock;
  size_t sharedMemPerBlock;
};
typedef cudaDeviceProp hipDeviceProp_t;
