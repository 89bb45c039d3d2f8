// What the rewriter puts in place of an `#include` of a library the executor does not model
// (cuBLAS, cuRAND, cuFFT, cuSPARSE, cuSOLVER, CUTLASS/CuTe, CUB, Thrust, libcu++, half
// precision, wmma, and their ROCm counterparts): the names a file's declarations outside
// device code use (handles, status codes, states), so that a file whose host code calls a
// library still builds for the kernels that do not. Nothing here runs: a use of the library in
// code the checked kernel reaches is refused before compiling (csrc/src/plain/reach.rs),
// and the host bodies that call it are emptied by the rewriter.
#pragma once

#ifndef WK_PLAIN_VENDOR_H
#define WK_PLAIN_VENDOR_H

struct wk_plain_opaque;
namespace cub {}
namespace hipcub {}
namespace rocprim {}
namespace thrust {}
namespace cutlass {}
namespace cute {}
namespace rocwmma {}
namespace nvcuda {
namespace wmma {}
}  // namespace nvcuda

// cuBLAS / hipBLAS / rocBLAS
typedef wk_plain_opaque* cublasHandle_t;
typedef wk_plain_opaque* cublasLtHandle_t;
typedef int cublasStatus_t;
enum cublasOperation_t { CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C };
enum cublasFillMode_t { CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER };
enum { CUBLAS_STATUS_SUCCESS = 0 };
// The compute types and math modes programs keep in globals (llm.c's common.h).
enum cublasComputeType_t { CUBLAS_COMPUTE_16F = 64, CUBLAS_COMPUTE_32F = 68,
                           CUBLAS_COMPUTE_32F_FAST_TF32 = 77, CUBLAS_COMPUTE_64F = 70 };
enum cublasMath_t { CUBLAS_DEFAULT_MATH = 0, CUBLAS_TF32_TENSOR_OP_MATH = 3 };
typedef wk_plain_opaque* hipblasHandle_t;
typedef int hipblasStatus_t;
enum hipblasOperation_t { HIPBLAS_OP_N = 111, HIPBLAS_OP_T, HIPBLAS_OP_C };
typedef wk_plain_opaque* rocblas_handle;
typedef int rocblas_status;
typedef int rocblas_int;
enum rocblas_operation { rocblas_operation_none = 111, rocblas_operation_transpose };

// cuRAND / hipRAND / rocRAND
typedef wk_plain_opaque* curandGenerator_t;
typedef int curandStatus_t;
enum curandRngType { CURAND_RNG_PSEUDO_DEFAULT = 100, CURAND_RNG_PSEUDO_XORWOW = 101 };
struct curandStateXORWOW {
  unsigned d, v[5];
};
typedef curandStateXORWOW curandState_t;
typedef curandStateXORWOW curandState;
struct curandStatePhilox4_32_10 {
  unsigned c[4], k[2];
};
typedef curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;
struct curandStateMRG32k3a {
  unsigned s[6];
};
typedef curandStateMRG32k3a curandStateMRG32k3a_t;
typedef wk_plain_opaque* hiprandGenerator_t;
typedef int hiprandStatus_t;
typedef curandStateXORWOW hiprandState_t;
typedef curandStateXORWOW hiprandState;

// cuFFT / hipFFT
typedef int cufftHandle;
typedef int cufftResult;
typedef float cufftReal;
typedef double cufftDoubleReal;
typedef float2 cufftComplex;
typedef double2 cufftDoubleComplex;
enum cufftType { CUFFT_R2C = 0x2a, CUFFT_C2R = 0x2c, CUFFT_C2C = 0x29, CUFFT_D2Z = 0x6a,
                 CUFFT_Z2D = 0x6c, CUFFT_Z2Z = 0x69 };
#ifndef CUFFT_FORWARD
#define CUFFT_FORWARD -1
#define CUFFT_INVERSE 1
#endif
typedef int hipfftHandle;
typedef int hipfftResult;
typedef float2 hipfftComplex;
typedef double2 hipfftDoubleComplex;

// cuSPARSE / hipSPARSE / cuSOLVER
typedef wk_plain_opaque* cusparseHandle_t;
typedef wk_plain_opaque* cusparseMatDescr_t;
typedef wk_plain_opaque* cusparseSpMatDescr_t;
typedef wk_plain_opaque* cusparseDnVecDescr_t;
typedef wk_plain_opaque* cusparseDnMatDescr_t;
typedef int cusparseStatus_t;
typedef wk_plain_opaque* hipsparseHandle_t;
typedef wk_plain_opaque* hipsparseMatDescr_t;
typedef int hipsparseStatus_t;
typedef wk_plain_opaque* cusolverDnHandle_t;
typedef int cusolverStatus_t;

// Half precision: declared, never defined (a pointer to them parses; their arithmetic is
// refused where a kernel reaches it).
struct __half;
struct __half2;
struct __nv_bfloat16;
struct __nv_bfloat162;
struct hip_bfloat16;
typedef __half half;
typedef __half2 half2;

#endif  // WK_PLAIN_VENDOR_H
