// The hazard corpus as a CUDA program, for compute-sanitizer (scripts/corpus-sanitize.sh builds
// it with nvcc at 32 lanes and runs every bug under each tool):
//   corpus_cuda list                  each bug and the widths it breaks at
//   corpus_cuda run NAME bug|fixed    runs the bug or its twin on device 0 with the input
//                                     tests/simt_corpus.rs gives the executor
// `run` poisons the output with 0x5A bytes as the executor does and prints the first output.
// Exit status: 0, 1 for a CUDA error, 2 for bad arguments.
#include <stdio.h>
#include <string.h>

#include "../corpus.h"

static int usage() {
  fprintf(stderr, "usage: corpus_cuda list | corpus_cuda run NAME bug|fixed\n");
  return 2;
}

static const char* widths(unsigned w) {
  return w == (WK_CORPUS_AT32 | WK_CORPUS_AT64) ? "32,64" : w == WK_CORPUS_AT32 ? "32" : "64";
}

int main(int argc, char** argv) {
  const size_t n = WK_SIMT_EXPORT(corpus_count)();
  if (argc == 2 && !strcmp(argv[1], "list")) {
    for (size_t i = 0; i < n; ++i) {
      const wk_corpus_entry* e = WK_SIMT_EXPORT(corpus_entry)(i);
      printf("%s %s\n", e->name, widths(e->widths));
    }
    return 0;
  }
  if (argc != 4 || strcmp(argv[1], "run") || (strcmp(argv[3], "bug") && strcmp(argv[3], "fixed")))
    return usage();
  const wk_corpus_entry* e = nullptr;
  for (size_t i = 0; i < n && !e; ++i)
    if (!strcmp(WK_SIMT_EXPORT(corpus_entry)(i)->name, argv[2])) e = WK_SIMT_EXPORT(corpus_entry)(i);
  if (!e) return usage();
  const int fixed = !strcmp(argv[3], "fixed");

  static int host_in[WK_CORPUS_IN], host_out[WK_CORPUS_OUT];
  for (int i = 0; i < WK_CORPUS_IN; ++i) host_in[i] = (i * 37 + 11) % 101 - 50;
  int *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, sizeof host_in) || cudaMalloc(&out, sizeof host_out) ||
      cudaMemcpy(in, host_in, sizeof host_in, cudaMemcpyHostToDevice) ||
      cudaMemset(out, 0x5A, sizeof host_out)) {
    fprintf(stderr, "setup failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  const int launch = e->run(nullptr, fixed, in, out);
  const cudaError_t sync = cudaDeviceSynchronize();
  const cudaError_t copy = cudaMemcpy(host_out, out, sizeof host_out, cudaMemcpyDeviceToHost);
  printf("%s %s: launch %s, sync %s, out[0] %d\n", e->name, argv[3],
         cudaGetErrorString((cudaError_t)launch), cudaGetErrorString(sync), host_out[0]);
  return launch || sync || copy ? 1 : 0;
}
