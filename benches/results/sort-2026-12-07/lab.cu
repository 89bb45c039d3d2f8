// Sort lab (not part of the build): wavekit's onesweep shapes beside CUB in one process.
#include "kernels/sort.cu"
#include <cub/cub.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>
namespace wk_cuda { uint64_t top_k_select_scratch(uint32_t, uint64_t) { return 0; } }
using namespace wk_cuda;

#define CK(x) do { cudaError_t e = (x); if (e) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

template <unsigned T_, unsigned I_, unsigned M_> struct Sh {
  static const unsigned threads = T_, items = I_, min_blocks = M_;
};

static int reps = 10;
template <class F> float med(F f) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> ts;
  f(); CK(cudaDeviceSynchronize());
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(a); f(); cudaEventRecord(b); CK(cudaEventSynchronize(b));
    float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms);
  }
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}

template <typename U> U rnd(std::mt19937_64& g) { return (U)g(); }

template <typename U, typename V, bool PAIRS> struct Row {
  uint64_t n; U *k, *ko, *kc; V *v, *vo, *vc; void* scratch; size_t sbytes; void* cub_tmp; size_t cub_bytes;
  wk_status* st; RankSpec r;
  Row(uint64_t n_) : n(n_) {
    std::mt19937_64 g(n);
    std::vector<U> hk(n); for (auto& x : hk) x = rnd<U>(g);
    CK(cudaMalloc(&k, n * sizeof(U))); CK(cudaMalloc(&ko, n * sizeof(U))); CK(cudaMalloc(&kc, n * sizeof(U)));
    CK(cudaMemcpy(k, hk.data(), n * sizeof(U), cudaMemcpyHostToDevice));
    v = vo = vc = nullptr;
    if (PAIRS) {
      std::vector<V> hv(n); for (uint64_t i = 0; i < n; ++i) hv[i] = (V)(i * 2654435761u);
      CK(cudaMalloc(&v, n * sizeof(V))); CK(cudaMalloc(&vo, n * sizeof(V))); CK(cudaMalloc(&vc, n * sizeof(V)));
      CK(cudaMemcpy(v, hv.data(), n * sizeof(V), cudaMemcpyHostToDevice));
    }
    const uint32_t dt = sizeof(U) == 4 ? DT_U32 : DT_U64;
    rank_spec(dt, 0, sizeof(U) * 8, 0, &r);
    // Room for the smallest tile any shape below uses (256 x 8 keys), past the layout's end.
    sbytes = SortScratch::layout(nullptr, sizeof(U), PAIRS ? sizeof(V) : 0, n, kMaxPasses, false).total +
             (n / 2048 + 2) * kRadix * 4 + 4096;
    CK(cudaMalloc(&scratch, sbytes));
    CK(cudaMalloc(&st, sizeof(wk_status))); CK(cudaMemset(st, 0, sizeof(wk_status)));
    cub_tmp = nullptr; cub_bytes = 0;
    if (PAIRS) cub::DeviceRadixSort::SortPairs(nullptr, cub_bytes, k, kc, v, vc, (int)n);
    else cub::DeviceRadixSort::SortKeys(nullptr, cub_bytes, k, kc, (int)n);
    CK(cudaMalloc(&cub_tmp, cub_bytes));
  }
  ~Row() { cudaFree(k); cudaFree(ko); cudaFree(kc); if (PAIRS) { cudaFree(v); cudaFree(vo); cudaFree(vc); } cudaFree(scratch); cudaFree(cub_tmp); cudaFree(st); }
  void cub() {
    if (PAIRS) cub::DeviceRadixSort::SortPairs(cub_tmp, cub_bytes, k, kc, v, vc, (int)n);
    else cub::DeviceRadixSort::SortKeys(cub_tmp, cub_bytes, k, kc, (int)n);
  }
  template <class SH> int ours() {
    const SortScratch sc = SortScratch::layout(scratch, sizeof(U), PAIRS ? sizeof(V) : 0, n, kMaxPasses, false);
    return sort_typed<U, V, PAIRS ? 1 : 0, SH>(0, st, 32, r, k, PAIRS ? v : nullptr, n, ko, PAIRS ? vo : nullptr, sc);
  }
  bool same() {
    std::vector<U> a(n), b(n);
    CK(cudaMemcpy(a.data(), ko, n * sizeof(U), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), kc, n * sizeof(U), cudaMemcpyDeviceToHost));
    if (a != b) return false;
    if (PAIRS) {
      std::vector<V> c(n), d(n);
      CK(cudaMemcpy(c.data(), vo, n * sizeof(V), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(d.data(), vc, n * sizeof(V), cudaMemcpyDeviceToHost));
      if (c != d) return false;
    }
    wk_status h; CK(cudaMemcpy(&h, st, sizeof h, cudaMemcpyDeviceToHost));
    return h.code == 0;
  }
  template <class SH> void variant(const char* row, const char* name, float cub_ms) {
    CK(cudaMemset(ko, 0, n * sizeof(U)));
    if (ours<SH>()) { printf("%s %s launch failed\n", row, name); return; }
    CK(cudaDeviceSynchronize());
    const bool ok = same();
    const float ms = med([&] { ours<SH>(); });
    printf("%-22s n=2^%-2d %-14s %8.3f ms  cub %8.3f ms  %.3fx  %s\n", row, 63 - __builtin_clzll(n), name, ms, cub_ms, cub_ms / ms, ok ? "ok" : "MISMATCH");
    fflush(stdout);
  }
};

template <typename U, typename V, bool PAIRS> void run_row(const char* row, uint64_t n) {
  Row<U, V, PAIRS> x(n);
  x.cub(); CK(cudaDeviceSynchronize());
  const float c = med([&] { x.cub(); });
  x.template variant<Tuned<U, V, PAIRS ? 1 : 0>>(row, "tuned", c);
  if constexpr (sizeof(U) == 4 && !PAIRS) {
    x.template variant<Sh<256, 16, 3>>(row, "256x16/3", c);
    x.template variant<Sh<384, 16, 2>>(row, "384x16/2", c);
    x.template variant<Sh<384, 20, 2>>(row, "384x20/2", c);
    x.template variant<Sh<256, 20, 3>>(row, "256x20/3", c);
  }
  if constexpr (sizeof(U) == 4 && PAIRS) {
    x.template variant<Sh<384, 20, 2>>(row, "384x20/2", c);
    x.template variant<Sh<256, 16, 4>>(row, "256x16/4", c);
    x.template variant<Sh<256, 16, 3>>(row, "256x16/3", c);
  }
  if constexpr (sizeof(U) == 8) {
    x.template variant<Sh<256, 12, 3>>(row, "256x12/3", c);
    x.template variant<Sh<256, 8, 4>>(row, "256x8/4", c);
    x.template variant<Sh<384, 10, 2>>(row, "384x10/2", c);
  }
}

// One sort of each kind by CUB and by the tree's shape, for ncu (kernel names tell them apart).
void profile(int l) {
  const uint64_t n = 1ull << l;
  { Row<uint32_t, uint32_t, false> x(n); x.cub(); x.ours<Tuned<uint32_t, uint32_t, 0>>(); CK(cudaDeviceSynchronize()); printf("keys u32 2^%d %s\n", l, x.same() ? "ok" : "MISMATCH"); }
  { Row<uint32_t, uint32_t, true> x(n); x.cub(); x.ours<Tuned<uint32_t, uint32_t, 1>>(); CK(cudaDeviceSynchronize()); printf("pairs 2^%d %s\n", l, x.same() ? "ok" : "MISMATCH"); }
}

int main(int argc, char** argv) {
  if (argc > 2 && !strcmp(argv[1], "profile")) { profile(atoi(argv[2])); return 0; }
  std::vector<int> logs = {20, 24, 28};
  if (argc > 1) { logs.clear(); for (char* p = strtok(argv[1], ","); p; p = strtok(nullptr, ",")) logs.push_back(atoi(p)); }
  if (argc > 2) reps = atoi(argv[2]);
  cudaDeviceProp pr; cudaGetDeviceProperties(&pr, 0); printf("device %s\n", pr.name);
  for (int l : logs) {
    const uint64_t n = 1ull << l;
    run_row<uint32_t, uint32_t, false>("keys u32", n);
    run_row<uint32_t, uint32_t, true>("pairs u32+u32", n);
    run_row<uint64_t, uint32_t, false>("keys u64", n);
  }
  return 0;
}
