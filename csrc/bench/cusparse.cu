// cuSPARSE's CSR SpMV (cusparseSpMV, f32) as the bench's in-process SpMV baseline, timed on the
// same stream and buffers as wavekit's launcher.
//
// The library is opened at run time (dlopen of libcusparse.so.12, or the path in
// WAVEKIT_CUSPARSE) rather than linked: the header comes from the pinned nvidia-cusparse wheel
// (scripts/setup-cuda.sh), and no binary of the `cuda` feature needs the 160 MB library to
// start; where it is missing, the SpMV rows simply have no cuSPARSE baseline.
#include <cusparse.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "../wavekit/launch.h"
#include "bench.h"

namespace {

struct Api {
  void* lib;
  decltype(&cusparseCreate) create;
  decltype(&cusparseDestroy) destroy;
  decltype(&cusparseSetStream) set_stream;
  decltype(&cusparseGetVersion) version;
  decltype(&cusparseGetErrorString) error_string;
  decltype(&cusparseCreateConstCsr) create_csr;
  decltype(&cusparseDestroySpMat) destroy_mat;
  decltype(&cusparseCreateConstDnVec) create_x;
  decltype(&cusparseCreateDnVec) create_y;
  decltype(&cusparseDestroyDnVec) destroy_vec;
  decltype(&cusparseSpMV_bufferSize) buffer_size;
  decltype(&cusparseSpMV_preprocess) preprocess;
  decltype(&cusparseSpMV) spmv;
};

char g_error[512] = "cuSPARSE not loaded yet";

template <typename F> bool sym(void* lib, const char* name, F* f) {
  *f = (F)dlsym(lib, name);
  if (!*f) snprintf(g_error, sizeof g_error, "%s: no symbol %s", "libcusparse", name);
  return *f != nullptr;
}

const Api* api() {
  static Api a = {};
  static bool tried = false;
  static bool ok = false;
  if (tried) return ok ? &a : nullptr;
  tried = true;
  const char* path = getenv("WAVEKIT_CUSPARSE");
  a.lib = dlopen(path && *path ? path : "libcusparse.so.12", RTLD_NOW | RTLD_LOCAL);
  if (!a.lib) {
    const char* e = dlerror();
    snprintf(g_error, sizeof g_error, "cannot load cuSPARSE (%s); put libcusparse.so.12 on "
             "LD_LIBRARY_PATH or name it in WAVEKIT_CUSPARSE", e ? e : "dlopen failed");
    return nullptr;
  }
  ok = sym(a.lib, "cusparseCreate", &a.create) && sym(a.lib, "cusparseDestroy", &a.destroy) &&
       sym(a.lib, "cusparseSetStream", &a.set_stream) &&
       sym(a.lib, "cusparseGetVersion", &a.version) &&
       sym(a.lib, "cusparseGetErrorString", &a.error_string) &&
       sym(a.lib, "cusparseCreateConstCsr", &a.create_csr) &&
       sym(a.lib, "cusparseDestroySpMat", &a.destroy_mat) &&
       sym(a.lib, "cusparseCreateConstDnVec", &a.create_x) &&
       sym(a.lib, "cusparseCreateDnVec", &a.create_y) &&
       sym(a.lib, "cusparseDestroyDnVec", &a.destroy_vec) &&
       sym(a.lib, "cusparseSpMV_bufferSize", &a.buffer_size) &&
       sym(a.lib, "cusparseSpMV_preprocess", &a.preprocess) && sym(a.lib, "cusparseSpMV", &a.spmv);
  return ok ? &a : nullptr;
}

// A failed cuSPARSE call: its message kept for wk_bench_cusparse_error, WK_ERR_ARG returned.
int32_t fail(const Api* a, const char* call, cusparseStatus_t s) {
  snprintf(g_error, sizeof g_error, "%s: %s", call, a->error_string(s));
  return WK_ERR_ARG;
}

struct Plan {
  cusparseHandle_t handle;
  cusparseConstSpMatDescr_t mat;
  cusparseConstDnVecDescr_t x;
  cusparseDnVecDescr_t y;
  cusparseSpMVAlg_t alg;
};

const float kOne = 1.0f;
const float kZero = 0.0f;

#define WK_SP(call)                                        \
  do {                                                     \
    cusparseStatus_t s_ = (call);                          \
    if (s_ != CUSPARSE_STATUS_SUCCESS) {                   \
      int32_t rc_ = fail(a, #call, s_);                    \
      wk_bench_cusparse_free(p);                           \
      return rc_;                                          \
    }                                                      \
  } while (0)

}  // namespace

extern "C" int32_t wk_bench_cusparse_version(void) {
  const Api* a = api();
  if (!a) return 0;
  cusparseHandle_t h;
  if (a->create(&h) != CUSPARSE_STATUS_SUCCESS) return 0;
  int v = 0;
  a->version(h, &v);
  a->destroy(h);
  return v;
}

extern "C" const char* wk_bench_cusparse_error(void) { return g_error; }

extern "C" void wk_bench_cusparse_free(void* plan) {
  const Api* a = api();
  Plan* p = (Plan*)plan;
  if (!a || !p) return;
  if (p->y) a->destroy_vec(p->y);
  if (p->x) a->destroy_vec((cusparseDnVecDescr_t)p->x);
  if (p->mat) a->destroy_mat(p->mat);
  if (p->handle) a->destroy(p->handle);
  delete p;
}

extern "C" int32_t wk_bench_cusparse_spmv_plan(void* stream, const uint32_t* row_offsets,
                                               const uint32_t* cols, const float* vals,
                                               const float* x, float* y, uint64_t rows,
                                               uint64_t ncols, uint64_t nnz, uint32_t alg,
                                               void** plan, size_t* buffer_bytes) {
  const Api* a = api();
  *plan = nullptr;
  if (!a) return WK_ERR_ARG;
  if (rows > 0x7fffffffull || ncols > 0x7fffffffull || nnz > 0x7fffffffull) return WK_ERR_ARG;
  Plan* p = new Plan();
  p->alg = (cusparseSpMVAlg_t)alg;
  WK_SP(a->create(&p->handle));
  WK_SP(a->set_stream(p->handle, (cudaStream_t)stream));
  // Offsets and column indices are 32-bit, below 2^31 (checked above), as cuSPARSE's 32I.
  WK_SP(a->create_csr(&p->mat, (int64_t)rows, (int64_t)ncols, (int64_t)nnz, row_offsets, cols,
                      vals, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                      CUDA_R_32F));
  WK_SP(a->create_x(&p->x, (int64_t)ncols, x, CUDA_R_32F));
  WK_SP(a->create_y(&p->y, (int64_t)rows, y, CUDA_R_32F));
  WK_SP(a->buffer_size(p->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &kOne, p->mat, p->x, &kZero,
                       p->y, CUDA_R_32F, p->alg, buffer_bytes));
  *plan = p;
  return 0;
}

extern "C" int32_t wk_bench_cusparse_spmv_preprocess(void* plan, void* buffer) {
  const Api* a = api();
  Plan* p = (Plan*)plan;
  if (!a || !p) return WK_ERR_ARG;
  cusparseStatus_t s = a->preprocess(p->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &kOne, p->mat,
                                     p->x, &kZero, p->y, CUDA_R_32F, p->alg, buffer);
  return s == CUSPARSE_STATUS_SUCCESS ? 0 : fail(a, "cusparseSpMV_preprocess", s);
}

extern "C" int32_t wk_bench_cusparse_spmv(void* plan, void* buffer) {
  const Api* a = api();
  Plan* p = (Plan*)plan;
  if (!a || !p) return WK_ERR_ARG;
  cusparseStatus_t s = a->spmv(p->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &kOne, p->mat, p->x,
                               &kZero, p->y, CUDA_R_32F, p->alg, buffer);
  return s == CUSPARSE_STATUS_SUCCESS ? 0 : fail(a, "cusparseSpMV", s);
}
