// An example user kernel written against wavekit's public device API (csrc/wavekit.h,
// docs/DEVICE_API.md): for each thread, how many lanes of its warp hold a positive value. The
// same file builds with nvcc, with hipcc for wave64 and wave32 GPUs, and for the SIMT executor
// at 32 and 64 lanes, where every launch is checked for hazards:
//
//   wavekit check examples/warp_count.cu --kernel count_positive --block 128 --len 100
//
// tests/user_kernel.rs builds it through wavekit_kernels::user::executor (tests/build.rs) and
// runs both kernels at both widths.
#include <wavekit.h>

WK_KERNELS_BEGIN

// out[i] = how many lanes of thread i's warp have a positive in[i], for the n live threads. Every
// lane takes part in the ballot (threads past n vote false), so the full mask is right for a
// launch of whole warps.
__global__ void count_positive(const int* in, int* out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool live = i < n;
  const wk_lanemask_t positive = arch::ballot_sync(WK_FULL_MASK, live && in[i] > 0);
  if (live) out[i] = arch::popc(positive);
}

// The same count as a CUDA port first writes it: __popc takes 32 bits, so on a wave64 GPU the
// ballot's lanes 32..63 are not counted. The executor reports it at 64 lanes (MaskNarrowed).
__global__ void count_positive_popc(const int* in, int* out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool live = i < n;
  const wk_lanemask_t positive = arch::ballot_sync(WK_FULL_MASK, live && in[i] > 0);
  if (live) out[i] = __popc(positive);  // wave64: lanes 32..63 lost
}

WK_KERNELS_END

WK_EXPORT_KERNEL(count_positive);
WK_EXPORT_KERNEL(count_positive_popc);
