// histogram: counts per bin, keys past the bins counted apart (docs/SEMANTICS.md "histogram").
#include "count.h"
#include "shapes.h"

namespace WK_NS {
using namespace prims;

namespace {

// 16-byte loads a thread issues before it counts their keys (plain adds).
const unsigned kHistInFlight = 4;
// Keys a block counts at least, where the input has them: each block flushes every nonzero
// count of its shared histogram to the global one, and with four keys a thread (the grid of one
// vector a thread), 2^20 keys into 256 bins made as many global atomics as a quarter of the keys
// (0.79-0.83x CUB HistogramEven, H100 2026-12-07).
const uint64_t kHistBlockKeys = (uint64_t)kBlock * 4 * kHistInFlight * 2;

// The keys a thread of a grid-stride loop takes, added by `add(bin, count)` with the warp's
// vote MODE (HIST_MATCH or HIST_ADAPTIVE: shapes.h's HistMode).
template <int MODE, typename Add>
__device__ __forceinline__ void add_voting(const uint32_t* keys, uint64_t n, uint32_t bins,
                                           uint64_t tid, uint64_t stride, Add& add) {
  const bool vec_ok = ((uintptr_t)keys % 16) == 0;
  const uint64_t nvec = vec_ok ? n / 4 : 0;
  const uint4* p = reinterpret_cast<const uint4*>(keys);
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
}

// Histogram of keys (keys at or past `bins` land in out[bins]), four keys per 16-byte load,
// each added the way MODE says (shapes.h's HistMode); SHARED: small histograms count in shared
// memory first, then add to the global counts.
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
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  const uint64_t tid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  // The plain adds need no vote, and take kHistInFlight vectors a thread before counting any.
  if constexpr (MODE == HIST_PLAIN)
    for_each_strided<kHistInFlight>(keys, n, tid, stride,
                                    [&](uint32_t k) { add(k < bins ? k : bins, 1); });
  else
    add_voting<MODE>(keys, n, bins, tid, stride, add);
  if (SHARED) {
    __syncthreads();
    for (unsigned i = threadIdx.x; i <= bins; i += blockDim.x)
      if (local[i]) atomicAdd(out + i, (unsigned long long)local[i]);
  }
}

const uint32_t kSharedBins = 8191;

// Histograms too wide for one block's shared memory: the bins are cut into `slices` slices of
// `slice_bins` 32-bit counts, each as large as a block's shared memory allows, and block b counts
// slice b % slices of the keys of chunk b / slices (a grid stride over the keys; the blocks of
// one chunk read the same keys at about the same time, so the second read comes from L2).
// Each block flushes its nonzero counts to the global counts once; slice 0 also counts the keys
// past the bins.
const unsigned kSliceBlock = 1024;

__global__ void __launch_bounds__(kSliceBlock)
    histogram_slice_kernel(const uint32_t* keys, uint64_t n, uint32_t bins, uint32_t slice_bins,
                           uint32_t slices, unsigned long long* out) {
  WK_DYNAMIC_SHARED(unsigned, local);
  const uint32_t slice = blockIdx.x % slices;
  const uint64_t chunk = blockIdx.x / slices, chunks = gridDim.x / slices;
  const uint32_t lo = slice * slice_bins;
  const uint32_t width = bins - lo < slice_bins ? bins - lo : slice_bins;
  for (unsigned i = threadIdx.x; i < width; i += blockDim.x) local[i] = 0;
  __syncthreads();
  uint64_t outside = 0;
  auto count = [&](uint32_t k) {
    // Keys below the slice wrap to a large offset, so one compare finds the slice's keys.
    const uint32_t d = k - lo;
    if (d < width)
      atomicAdd(local + d, 1u);
    else if (slice == 0 && k >= bins)
      ++outside;
  };
  for_each_strided<4>(keys, n, chunk * blockDim.x + threadIdx.x, chunks * blockDim.x, count);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < width; b += blockDim.x)
    if (local[b]) atomicAdd(out + lo + b, (unsigned long long)local[b]);
  if (slice == 0) {
    const uint64_t w = bfly<OP_SUM, uint64_t>(WK_FULL_MASK, outside, WK_WARP_SIZE);
    if (lane() == 0 && w) atomicAdd(out + bins, (unsigned long long)w);
  }
}

// Grid of the sliced histogram: `slices` blocks per chunk, one block per multiprocessor in all
// (a slice's counts take most of its shared memory), fewer chunks when there are too few keys
// per bin for a block's flush of its slice to be worth it, and enough chunks that no block
// counts 2^31 keys or more into its 32-bit counts.
int histogram_sliced(host::stream_t s, const uint32_t* keys, uint64_t n, uint32_t bins,
                     unsigned long long* out) {
  const size_t max_shared = host::max_dynamic_shared();
  const uint64_t max_bins = max_shared / sizeof(unsigned);
  if (max_bins == 0) return WK_ERR_ARG;
  const uint64_t slices = ((uint64_t)bins + max_bins - 1) / max_bins;
  const uint64_t slice_bins = ((uint64_t)bins + slices - 1) / slices;
  const size_t smem = (size_t)slice_bins * sizeof(unsigned);
  const unsigned sms = host::multiprocessors();
  uint64_t chunks = sms / slices;
  const uint64_t kKeysPerBin = 4;
  const uint64_t worth = n / (slice_bins * kKeysPerBin);
  if (worth < chunks) chunks = worth;
  const uint64_t needed = (n >> 31) + 1;
  if (chunks < needed) chunks = needed;
  if (chunks == 0) chunks = 1;
  if (chunks * slices > 0x7fffffffull) return WK_ERR_ARG;
  int rc = host::allow_dynamic_shared(histogram_slice_kernel, smem);
  if (rc) return rc;
  WK_LAUNCH((unsigned)(chunks * slices), kSliceBlock, smem, s, histogram_slice_kernel)(
      keys, n, bins, (uint32_t)slice_bins, (uint32_t)slices, out);
  return host::launch_error();
}

}  // namespace

int histogram_shaped(void* stream, const uint32_t* keys, uint64_t n, uint32_t bins,
                     uint64_t* out, HistMode mode) {
  if (bins == 0) return WK_ERR_ARG;
  int rc = host::memset_async(out, 0, ((uint64_t)bins + 1) * sizeof(uint64_t), as_stream(stream));
  if (rc) return rc;
  if (mode == HIST_SLICED) return histogram_sliced(as_stream(stream), keys, n, bins, (unsigned long long*)out);
  const bool shared = bins <= kSharedBins && mode != HIST_GLOBAL;
  const size_t smem = shared ? ((size_t)bins + 1) * sizeof(unsigned) : 0;
  // Shared counts: blocks of at least kHistBlockKeys keys (the flush's share of the atomics).
  const uint64_t fewest = n / kHistBlockKeys ? n / kHistBlockKeys : 1;
  const unsigned grid = shared && strided_grid(n / 4) > fewest ? (unsigned)fewest
                                                                : strided_grid(n / 4);
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

// Measured on an H100 (BENCHMARKS.md at commit ea727a9): with the counts in shared memory, plain
// atomics run at copy bandwidth on uniform and on skewed keys alike, and match_any only costs (5x
// slower on uniform keys). Wider histograms count in shared memory a slice of bins at a time; with
// the counts in global memory (mode 2, the launcher's choice before slicing: 1.5% of copy on
// uniform keys), aggregation was what avoided serialising a hot bin's adds.
int histogram_launch(void* stream, wk_status*, const uint32_t* keys, uint64_t n, uint32_t bins,
                     uint64_t* out) {
  return histogram_shaped(stream, keys, n, bins, out,
                          bins <= kSharedBins ? HIST_PLAIN : HIST_SLICED);
}

}  // namespace WK_NS
