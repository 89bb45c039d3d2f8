// histogram: counts per bin, keys past the bins counted apart (docs/SEMANTICS.md "histogram").
#include "device.h"

namespace WK_NS {
using namespace prims;

namespace {

// Histogram of keys (keys at or past `bins` land in out[bins]), four keys per 16-byte load.
// Each key is added by one of three methods, all giving the same counts:
//   HIST_PLAIN     one atomic per key;
//   HIST_MATCH     warp-aggregated: lanes holding the same bin (match_any) elect the lowest,
//                  which adds the group's size once;
//   HIST_ADAPTIVE  every 16th round a warp aggregates and counts its distinct bins; while
//                  they are many (little to aggregate, uniform input) it adds plainly, so
//                  uniform input pays almost nothing for the match and skewed input gains.
// Small histograms count in shared memory first (SHARED), then add to the global counts.
// HIST_GLOBAL is HIST_PLAIN without the shared-memory counts: the naive baseline.
enum HistMode { HIST_PLAIN = 0, HIST_MATCH = 1, HIST_ADAPTIVE = 2, HIST_GLOBAL = 3 };

template <int MODE, bool SHARED>
__global__ void __launch_bounds__(kBlock)
    histogram_kernel(const uint32_t* keys, uint64_t n, uint32_t bins, unsigned long long* out) {
  WK_DYNAMIC_SHARED(unsigned, local);
  if (SHARED) {
    for (unsigned i = threadIdx.x; i <= bins; i += blockDim.x) local[i] = 0;
    __syncthreads();
  }
  auto add = [&](uint32_t bin, unsigned c) {
    if (SHARED)
      atomicAdd(local + bin, c);
    else
      atomicAdd(out + bin, (unsigned long long)c);
  };
  const bool vec_ok = ((uintptr_t)keys % 16) == 0;
  const uint64_t nvec = vec_ok ? n / 4 : 0;
  const uint4* p = reinterpret_cast<const uint4*>(keys);
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  const uint64_t tid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  // Warps iterate in step (the trip count is uniform per warp) so every lane can vote.
  const uint64_t warp_first = tid - lane();
  unsigned round = 0;
  bool aggregate = MODE == HIST_MATCH;
  for (uint64_t w0 = warp_first; w0 < nvec; w0 += stride) {
    const uint64_t i = w0 + lane();
    const bool valid = i < nvec;
    uint4 r = valid ? p[i] : make_uint4(0, 0, 0, 0);
    uint32_t k4[4] = {r.x, r.y, r.z, r.w};
    const wk_lanemask_t live = arch::ballot_sync(WK_FULL_MASK, valid);
#pragma unroll
    for (unsigned s = 0; s < 4; ++s) {
      const uint32_t bin = k4[s] < bins ? k4[s] : bins;
      if (MODE == HIST_PLAIN) {
        if (valid) add(bin, 1);
        continue;
      }
      const bool probe = MODE == HIST_ADAPTIVE && (round & 15) == 0;
      ++round;
      if (!valid) continue;
      if (aggregate || probe) {
        const wk_lanemask_t peers = match_any_sync(NATIVE, live, bin);
        const bool leader = (unsigned)arch::lowest_lane(peers) == lane();
        if (probe) {
          const unsigned distinct = arch::popc(arch::ballot_sync(live, leader));
          aggregate = distinct * 4 <= (unsigned)arch::popc(live) * 3;
        }
        if (leader) add(bin, (unsigned)arch::popc(peers));
      } else {
        add(bin, 1);
      }
    }
  }
  for (uint64_t e = nvec * 4 + tid; e < n; e += stride) {
    uint32_t k = keys[e];
    add(k < bins ? k : bins, 1);
  }
  if (SHARED) {
    __syncthreads();
    for (unsigned i = threadIdx.x; i <= bins; i += blockDim.x)
      if (local[i]) atomicAdd(out + i, (unsigned long long)local[i]);
  }
}

const uint32_t kSharedBins = 8191;

}  // namespace

int histogram_launch_mode(void* stream, const uint32_t* keys, uint64_t n, uint32_t bins,
                          uint64_t* out, int mode) {
  if (bins == 0) return WK_ERR_ARG;
  int rc = host::memset_async(out, 0, ((uint64_t)bins + 1) * sizeof(uint64_t), as_stream(stream));
  if (rc) return rc;
  const bool shared = bins <= kSharedBins && mode != HIST_GLOBAL;
  const size_t smem = shared ? ((size_t)bins + 1) * sizeof(unsigned) : 0;
  const unsigned grid = strided_grid(n / 4);
  host::stream_t s = as_stream(stream);
  unsigned long long* o = (unsigned long long*)out;
#define WK_HIST(M)                                                                            \
  if (shared)                                                                                 \
    WK_LAUNCH(grid, kBlock, smem, s, histogram_kernel<M, true>)(keys, n, bins, o);                   \
  else                                                                                        \
    WK_LAUNCH(grid, kBlock, 0, s, histogram_kernel<M, false>)(keys, n, bins, o);
  switch (mode) {
    case HIST_PLAIN: WK_HIST(HIST_PLAIN) break;
    case HIST_MATCH: WK_HIST(HIST_MATCH) break;
    case HIST_ADAPTIVE: WK_HIST(HIST_ADAPTIVE) break;
    case HIST_GLOBAL: WK_HIST(HIST_PLAIN) break;
    default: return WK_ERR_ARG;
  }
#undef WK_HIST
  return host::launch_error();
}

// Measured on an H100 (BENCHMARKS.md): with the counts in shared memory, plain atomics run at
// copy bandwidth on uniform and on skewed keys alike, and match_any only costs (5x slower on
// uniform keys); with the counts in global memory, aggregation is what avoids serialising a
// hot bin's adds, so the adaptive method is used there.
int histogram_launch(void* stream, wk_status*, const uint32_t* keys, uint64_t n, uint32_t bins,
                     uint64_t* out) {
  return histogram_launch_mode(stream, keys, n, bins, out,
                               bins <= kSharedBins ? HIST_PLAIN : HIST_ADAPTIVE);
}

}  // namespace WK_NS
