// What every kernel of the hazard corpus includes: the portable device layer, the executor's
// checked 32-bit built-ins (executor builds only), and the corpus's one entry-point shape.
//
// Each corpus file holds one bug the way ports write it, as a `template <bool kFixed>` kernel
// `name(const int* in, int* out)` whose <true> instantiation is the same kernel corrected (its
// fixed twin), and one entry point that launches one or the other:
//   int wk_simt<width>_corpus_<name>(void* stream, int fixed, const int* in, int* out)
// WK_CORPUS_RUN(name, grid, block, count, stride) defines it. `in` holds WK_CORPUS_IN values,
// `out` room for WK_CORPUS_OUT; the launch must write out[0..count), element i by thread
// i * stride (modulo the threads), which the executor checks. The line the executor names in
// its report carries a `// BUG` comment (tests/simt_corpus.rs reads it from here); an unwritten
// output is reported at the WK_CORPUS_RUN line. corpus.def lists the bugs and the widths each
// breaks at.
#pragma once

#include "../prelude.h"

#if defined(WK_VENDOR_HOST)
#include "../checked.h"
// The executor fills `out` with its poison and, after the launch, reports the elements no
// thread wrote (element i is thread i * stride of the grid, modulo its threads).
#define WK_CORPUS_EXPECT_WRITTEN(out, count, stride) \
  ::wk_simt::expect_written((out), (count), sizeof(*(out)), (stride), #out, WK_SIMT_HERE)
#else
// On a GPU the harness poisons `out` itself (csrc/simt/corpus/cuda/main.cu).
#define WK_CORPUS_EXPECT_WRITTEN(out, count, stride) ((void)0)
#endif

namespace WK_NS {
namespace corpus {

// The sum of `v` over the caller's warp, in every lane; every lane of the warp calls it. The
// right warp sum, for kernels whose bug lies elsewhere.
__device__ __forceinline__ int warp_sum(int v) {
  for (unsigned off = WK_WARP_SIZE / 2; off > 0; off /= 2)
    v += (int)arch::shfl_xor_sync(WK_FULL_MASK, (uint32_t)v, off, WK_WARP_SIZE);
  return v;
}

// How many lanes of the caller's warp lie inside its block: the width, or fewer in the last
// warp of a block that is not a whole number of warps.
__device__ __forceinline__ unsigned warp_lanes_in_block() {
  const unsigned rest = blockDim.x - (threadIdx.x - arch::lane_id());
  return rest < WK_WARP_SIZE ? rest : WK_WARP_SIZE;
}

}  // namespace corpus
}  // namespace WK_NS

#define WK_CORPUS_IN 1024
#define WK_CORPUS_OUT 1024

#define WK_CORPUS_ENTRY(name)                                                     \
  extern "C" int WK_SIMT_EXPORT(corpus_##name)(void* stream, int fixed, const int* in, \
                                                 int* out)

#define WK_CORPUS_RUN(name, grid, block, count, stride)                                   \
  WK_CORPUS_ENTRY(name) {                                                                 \
    using namespace WK_NS::corpus;                                                        \
    WK_NS::host::stream_t s = (WK_NS::host::stream_t)stream;                              \
    WK_CORPUS_EXPECT_WRITTEN(out, count, stride);                                         \
    if (fixed)                                                                            \
      WK_LAUNCH(grid, block, 0, s, name<true>)(in, out);                                  \
    else                                                                                  \
      WK_LAUNCH(grid, block, 0, s, name<false>)(in, out);                                 \
    return WK_NS::host::launch_error();                                                   \
  }

// What table.cu lists for each bug: `widths` has bit 0 set if it breaks at 32 lanes, bit 1 at
// 64 (corpus.def spells them WK_CORPUS_AT32, WK_CORPUS_AT64).
extern "C" {
typedef int (*wk_corpus_fn)(void* stream, int fixed, const int* in, int* out);
struct wk_corpus_entry {
  const char* name;
  unsigned widths;
  wk_corpus_fn run;
};
}
#define WK_CORPUS_AT32 1u
#define WK_CORPUS_AT64 2u
extern "C" size_t WK_SIMT_EXPORT(corpus_count)(void);
// Entry i, or null past the end.
extern "C" const wk_corpus_entry* WK_SIMT_EXPORT(corpus_entry)(size_t i);
