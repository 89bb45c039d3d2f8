// Test hook for the look-back (look_back.h): one warp publishes statuses the caller chose for
// tiles 0 .. tiles-1, then folds the exclusive prefix of tile `tiles` through look_back. A real
// scan's tiles nearly always find an inclusive prefix a few tiles back, so the paths for long
// chains of aggregates (the float stash, and the fold forward past it) are only reached here.
#include "device.h"
#include "look_back.h"

namespace WK_NS {

namespace {

template <int OP, typename T, typename Status>
__global__ void look_back_probe_kernel(Status status, const uint32_t* flags, const T* values,
                                       uint64_t tiles, T* out) {
  WK_SHARED(T, stash, StashFor<T>::size);
  WK_SHARED(unsigned, stash_flags, StashFor<T>::flags);
  for (uint64_t i = threadIdx.x; i < tiles; i += blockDim.x) status.publish(i, flags[i], values[i]);
  arch::fence_device();
  __syncthreads();
  const T x = look_back<OP, T>(status, tiles, stash, stash_flags);
  if (threadIdx.x == 0) *out = x;
}

}  // namespace

int look_back_probe_launch(void* stream, uint32_t dtype, uint32_t op, const uint32_t* flags,
                           const void* values, uint64_t tiles, void* scratch,
                           uint64_t scratch_bytes, void* out) {
  if (tiles == 0 || tiles > 0x7fffffffull) return WK_ERR_ARG;
  return with_dtype(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    // The scan's layout for a scan of `tiles` full tiles.
    if (scratch_bytes < device_scan_scratch(sizeof(T), tiles * WK_SCAN_TILE)) return WK_ERR_SCRATCH;
    typename StatusFor<T>::type status;
    const uint64_t zeroed = status_layout<T>((char*)scratch, tiles, &status);
    int rc = host::memset_async(scratch, 0, zeroed, as_stream(stream));
    if (rc) return rc;
    return with_op<T>(op, [&](auto ot) {
      WK_LAUNCH(1, WK_WARP_SIZE, 0, as_stream(stream),
                look_back_probe_kernel<decltype(ot)::value, T, typename StatusFor<T>::type>)(
          status, flags, (const T*)values, tiles, (T*)out);
      return host::launch_error();
    });
  });
}

}  // namespace WK_NS
