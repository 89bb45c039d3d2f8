// The canonical butterfly over Q values a thread holds (docs/SEMANTICS.md "dist_all_reduce"):
// the first `valid` of them, padded with the identity to Q (a power of two), combined level by
// level (k with k + Q/2, then with k + Q/4, ...). Shared by reduce_rows (rows of one buffer) and
// peer_all_reduce (one buffer on each GPU), so both give the same bits.
#pragma once

#include "device.h"

namespace WK_NS {

// Entries past `valid` are the identity, which combines exactly: skipping them gives the same
// bits with fewer operations.
template <int OP, typename T, unsigned Q>
__device__ __forceinline__ T bfly_fold(T (&v)[Q], unsigned valid) {
#pragma unroll
  for (unsigned h = Q / 2; h >= 1; h /= 2) {
#pragma unroll
    for (unsigned k = 0; k < h; ++k)
      if (k + h < valid) v[k] = Op<OP, T>::combine(v[k], v[k + h]);
    valid = valid < h ? valid : h;
  }
  return v[0];
}

}  // namespace WK_NS
