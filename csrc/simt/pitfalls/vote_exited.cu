// Seed 000's vote examples: `if (tid > n) return; b[tid] = __all_sync(<full mask>, ...)`. The
// full mask names lanes that already returned: on hardware the vote waits for them (a hang) or
// reads undefined predicates. The fix takes the mask of the staying lanes with a ballot before
// the return. (The seed's `tid > n` is also off by one; both versions here use `tid >= n`.)
#include "../prelude.h"

namespace WK_NS {
namespace pitfalls {

template <bool kFixed>
__global__ void vote_all(const int* a, int* b, unsigned n) {
  const unsigned tid = threadIdx.x;
  const wk_lanemask_t mask = kFixed ? arch::ballot_sync(WK_FULL_MASK, tid < n) : WK_FULL_MASK;
  if (tid >= n) return;
  b[tid] = arch::all_sync(mask, a[tid] > 48);
}

}  // namespace pitfalls
}  // namespace WK_NS

// One block of `threads` (a multiple of the warp width); b[t] for t < n is whether every
// a[u] > 48 for the threads u < n of t's warp.
extern "C" int WK_SIMT_EXPORT(pitfall_vote_all)(void* stream, int fixed, const int* a, int* b,
                                                unsigned threads, unsigned n) {
  using namespace WK_NS::pitfalls;
  if (fixed)
    WK_LAUNCH(1, threads, 0, stream, vote_all<true>)(a, b, n);
  else
    WK_LAUNCH(1, threads, 0, stream, vote_all<false>)(a, b, n);
  return WK_NS::host::launch_error();
}
