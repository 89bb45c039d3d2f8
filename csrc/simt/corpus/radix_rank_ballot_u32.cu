// A one-sweep radix sort's warp ranking (the multi-split): each lane finds the lanes holding
// its digit with one ballot per digit bit, and a port keeps each ballot in `unsigned`, as CUDA
// code declares it. On 64 lanes the cut ballots leave lanes 32..63 no peers in their own half:
// each of them ranks as if it came right after the lower half's keys of its digit, so the
// upper lanes of one digit all write one slot and the slots after it are never written.
// Breaks at 64. Fixed: the ballots in wk_lanemask_t.
#include "corpus.h"

namespace WK_NS {
namespace corpus {

template <bool kFixed>
__global__ void radix_rank_ballot_u32(const int* in, int* out) {
  const unsigned tid = threadIdx.x, lane = arch::lane_id();
  const unsigned digit = (unsigned)in[tid] & 3;
  wk_lanemask_t peers = WK_FULL_MASK;
  for (unsigned b = 0; b < 2; ++b) {
    const bool set = (digit >> b) & 1;
    if (kFixed) {
      const wk_lanemask_t ones = arch::ballot_sync(WK_FULL_MASK, set);
      peers &= set ? ones : ~ones;
    } else {
      const unsigned ones = arch::ballot_sync(WK_FULL_MASK, set);  // cut here
      peers &= set ? ones : ~ones;
    }
  }
  // Where the digit's keys start in the warp's slots: the keys of the smaller digits.
  unsigned start = 0;
  for (unsigned d = 0; d < 4; ++d) {
    const wk_lanemask_t of_d = arch::ballot_sync(WK_FULL_MASK, digit == d);
    if (d < digit) start += arch::popc(of_d);
  }
  const unsigned rank = arch::popc(peers & arch::lanemask_lt());
  out[tid - lane + start + rank] = in[tid];
}

}  // namespace corpus
}  // namespace WK_NS

// One block of 128 threads; each warp's keys stably sorted by their low two bits into the
// warp's own slots of out[].
WK_CORPUS_RUN(radix_rank_ballot_u32, 1, 128, 128, 1)
