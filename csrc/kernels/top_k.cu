// top_k: the first k of the stable sort (docs/SEMANTICS.md "top_k"): the positions sorted by
// key (an argsort), then the first k gathered.
#include "sort.h"

namespace WK_NS {

int top_k_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype, const void* in,
                 uint64_t n, uint64_t k, uint32_t begin_bit, uint32_t end_bit, uint32_t descending,
                 void* scratch, uint64_t scratch_bytes, void* values_out, uint32_t* indices_out) {
  const uint32_t size = key_size_of(dtype);
  if (!size || k == 0 || k > n || n > 0xffffffffull || !values_out) return WK_ERR_ARG;
  if (scratch_bytes < sort_scratch_bytes(WK_ALGO_TOP_K, size, 4, n)) return WK_ERR_SCRATCH;
  uint32_t* order = (uint32_t*)scratch;
  const uint64_t slot = round_up(n * 4);
  int rc = sort_run(stream, st, warp_size, dtype, 4, WK_SORT_VALUES_INDICES, in, nullptr, n,
                    begin_bit, end_bit, descending, (char*)scratch + slot, scratch_bytes - slot,
                    nullptr, order);
  if (rc) return rc;
  host::stream_t s = as_stream(stream);
  if ((rc = gather_by_index(s, size, in, order, k, values_out))) return rc;
  return indices_out ? gather_by_index(s, 4, order, nullptr, k, indices_out) : 0;
}

}  // namespace WK_NS
