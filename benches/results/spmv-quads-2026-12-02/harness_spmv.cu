// SpMV experiment: the copied spmv.cu (window / staged rows / blocks via macros), planned launch
// as Csr::new + spmv do, against cuSPARSE (default alg, preprocessed) in the same process.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <algorithm>
#include <functional>
#include <cstring>
#include "exp_spmv.cu"
#include "bench/bench.h"
#define CK(x) do { cudaError_t e = (x); if (e) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
static uint64_t splitmix(uint64_t x) { uint64_t z = x + 0x9E3779B97F4A7C15ull; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; z = (z ^ (z >> 27)) * 0x94D049BB133111EBull; return z ^ (z >> 31); }
static void gen(uint64_t nnz, int kind, std::vector<uint32_t>& ro, std::vector<uint32_t>& cols, std::vector<float>& vals, std::vector<float>& x) {
  std::vector<uint32_t> lens; uint64_t total = 0, i = 0;
  while (total < nnz) {
    uint64_t r = splitmix(6ull << 40 | i); uint64_t len;
    if (kind == 0) len = 8 + r % 57;
    else { double u = ((double)(r >> 11) + 1.0) / (double)(1ull << 53); len = (uint64_t)(4.0 / pow(u, 1.0 / 1.2)); len = std::min<uint64_t>(std::max<uint64_t>(len, 1), kind == 2 ? 256 : 4096); }
    len = std::min(len, nnz - total); lens.push_back((uint32_t)len); total += len; ++i;
  }
  uint64_t rows = lens.size(); ro.assign(rows + 1, 0);
  for (uint64_t r = 0; r < rows; ++r) ro[r + 1] = ro[r] + lens[r];
  cols.resize(nnz); vals.resize(nnz); x.resize(rows);
  for (uint64_t k = 0; k < nnz; ++k) { cols[k] = (uint32_t)(splitmix(7ull << 40 | k) % rows); vals[k] = (float)((splitmix(8ull << 40 | k) >> 40) * 0x1.0p-24) * 2.f - 1.f; }
  for (uint64_t r = 0; r < rows; ++r) x[r] = (float)((splitmix(9ull << 40 | r) >> 40) * 0x1.0p-24) * 2.f - 1.f;
}
static uint32_t auto_vector(uint64_t items, uint64_t segs) { uint64_t p = 1; while (2 * p * segs < items && p < 32) p *= 2; return (uint32_t)p; }
int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 30;
  std::vector<int> lgs = {20, 22, 24, 28};
  if (argc > 2) { lgs.clear(); for (int a = 2; a < argc; ++a) lgs.push_back(atoi(argv[a])); }
  char* flush; size_t fl = 256 << 20; CK(cudaMalloc(&flush, fl));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  const char* kinds[] = {"regular", "power-law", "power-law<=256"}; int nk = getenv("KINDS") ? atoi(getenv("KINDS")) : 2;
  for (int kind = 0; kind < nk; ++kind) for (int lg : lgs) {
    uint64_t nnz = 1ull << lg;
    std::vector<uint32_t> ro, cols; std::vector<float> vals, x; gen(nnz, kind, ro, cols, vals, x);
    uint64_t rows = x.size(); uint32_t longest = 0; for (uint64_t r = 0; r < rows; ++r) longest = std::max(longest, ro[r + 1] - ro[r]);
    uint32_t V = auto_vector(nnz, rows);
    uint32_t *dro, *dc; float *dv, *dx, *dy, *dy2; wk_status* st;
    CK(cudaMalloc(&dro, ro.size() * 4)); CK(cudaMalloc(&dc, nnz * 4)); CK(cudaMalloc(&dv, nnz * 4)); CK(cudaMalloc(&dx, rows * 4)); CK(cudaMalloc(&dy, rows * 4)); CK(cudaMalloc(&dy2, rows * 4)); CK(cudaMalloc(&st, 4096)); CK(cudaMemset(st, 0, 4096));
    CK(cudaMemcpy(dro, ro.data(), ro.size() * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dc, cols.data(), nnz * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dv, vals.data(), nnz * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dx, x.data(), rows * 4, cudaMemcpyHostToDevice));
    uint64_t pb = wk_cuda::spmv_scratch(rows + nnz); void* plan; CK(cudaMalloc(&plan, pb));
    if (wk_cuda::spmv_plan_launch(nullptr, dro, rows, nnz, plan, pb)) { printf("plan failed\n"); return 1; }
    auto ours = [&] { int rc = wk_cuda::spmv_planned_launch(nullptr, st, wk_cuda::DT_F32, dro, dc, dv, dx, rows, rows, nnz, V, plan, pb, longest, dy); if (rc) { printf("rc %d\n", rc); exit(1);} };
    void* sp; size_t sb = 0;
    if (wk_bench_cusparse_spmv_plan(nullptr, dro, dc, dv, dx, dy2, rows, rows, nnz, 0, &sp, &sb)) { printf("cusparse: %s\n", wk_bench_cusparse_error()); return 1; }
    void* sbuf; CK(cudaMalloc(&sbuf, sb ? sb : 1)); if (wk_bench_cusparse_spmv_preprocess(sp, sbuf)) { printf("pre: %s\n", wk_bench_cusparse_error()); return 1; }
    auto theirs = [&] { if (wk_bench_cusparse_spmv(sp, sbuf)) { printf("sp: %s\n", wk_bench_cusparse_error()); exit(1);} };
    auto chunk = [&](unsigned variant) { return [&, variant] { int rc = wk_cuda::spmv_balanced_launch_b(nullptr, st, wk_cuda::DT_F32, dro, dc, dv, dx, rows, rows, nnz, V, plan, pb, dy, variant); if (rc) { printf("rc %d\n", rc); exit(1);} }; };
    std::vector<std::pair<const char*, std::function<void()>>> cands = {
      {"cusparse", theirs}, {"planned", ours}, {"chunk+quads", chunk(256 | 1024)}, {"chunk-noquads", chunk(256 | 1024 | 2048)}, {"chunk-groupsonly", chunk(256 | 1024 | 512)}};
    std::vector<double> tot(cands.size(), 0.0); std::vector<uint64_t> hs(cands.size(), 0);
    std::vector<float> y(rows), y2(rows);
    theirs(); CK(cudaDeviceSynchronize()); CK(cudaMemcpy(y2.data(), dy2, rows * 4, cudaMemcpyDeviceToHost));
    for (size_t c = 1; c < cands.size(); ++c) {
      CK(cudaMemset(dy, 0xff, rows * 4)); cands[c].second(); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(y.data(), dy, rows * 4, cudaMemcpyDeviceToHost));
      uint64_t h = 1469598103934665603ull; double err = 0;
      for (uint64_t r = 0; r < rows; ++r) { uint32_t u; memcpy(&u, &y[r], 4); h = (h ^ u) * 1099511628211ull; err = std::max(err, (double)fabsf(y[r] - y2[r]) / (fabsf(y2[r]) + 1e-2)); }
      hs[c] = h;
      if (err > 1e-2) { printf("MISMATCH %s vs cusparse %g\n", cands[c].first, err); return 1; }
    }
    float ms;
    for (int r = 0; r < reps; ++r) for (size_t w = 0; w < cands.size(); ++w) {
      size_t c = (w + r) % cands.size();
      CK(cudaMemsetAsync(flush, r & 255, fl));
      cudaEventRecord(a); cands[c].second(); cudaEventRecord(b); CK(cudaEventSynchronize(b));
      cudaEventElapsedTime(&ms, a, b); tot[c] += ms;
    }
    printf("%s 2^%d V=%u", kinds[kind], lg, V);
    for (size_t c = 0; c < cands.size(); ++c) printf(" | %s %.2f us (%.3fx)", cands[c].first, tot[c] / reps * 1000, tot[0] / tot[c]);
    printf(" | hashes");
    for (size_t c = 1; c < cands.size(); ++c) printf(" %016llx", (unsigned long long)hs[c]);
    printf("%s\n", (hs[1] == hs[2] && hs[2] == hs[3] && hs[3] == hs[4]) ? " SAME" : " DIFFER");
    fflush(stdout);
    wk_bench_cusparse_free(sp); cudaFree(sbuf); cudaFree(plan); cudaFree(dro); cudaFree(dc); cudaFree(dv); cudaFree(dx); cudaFree(dy); cudaFree(dy2); cudaFree(st);
  }
  return 0;
}
