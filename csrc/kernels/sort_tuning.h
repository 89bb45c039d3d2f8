// The onesweep pass's tile shape by key and value size (sort.cu), kept apart from the
// algorithm as CUB keeps its policies in dispatch/tuning. A stable sort's output is unique
// (docs/SEMANTICS.md "sort"), so a shape changes the speed only, never a result.
//
// Each shape keeps the kernel's static shared memory under 48 KB, the most every vendor gives
// without opting in: the warps' digit counts (warps x 256 words) and the staged tile, keys and
// values one after the other through one array of the wider of the two.
#pragma once

namespace WK_NS {

// The most static shared memory a block may declare on every vendor without opting in.
const unsigned kStaticShared = 48 * 1024;

// How a warp of the onesweep pass finds the lanes that hold its digit: one ballot a digit bit
// (CUB's WARP_MATCH_ANY, its default), or a shared word a digit that each lane ORs its bit into
// (CUB's WARP_MATCH_ATOMIC_OR; where its array fits beside the tile). The atomicOr ranking
// issues about 30 instructions an item, the ballots about 25 since arch::ballot_agree, but the
// lanes of one digit meet on one word. Side by side (lent H100, 2026-12-08,
// benches/results/sort-arg-2026-12-08/), the atomicOr ranking ran 1.04-1.07x the ballots' speed
// on uniform u32 / f32 keys, but 0.89-0.98x on CUB's low-entropy keys and 0.86-0.96x on keys 7
// in 8 one value, as CUB documents. A sort should not lose 14% on its users' skewed keys to win 6%
// on uniform ones, so GPU builds keep the ballots (CUB's default too); the executor runs the
// atomicOr ranking, so that CI verifies both.
#if defined(WK_VENDOR_HOST)
constexpr bool kOnesweepMatchOr = true;
#else
constexpr bool kOnesweepMatchOr = false;
#endif

struct OnesweepShape {
  unsigned threads;     // a multiple of 64 (whole warps at 32 and 64 lanes), at least kRadix
  unsigned items;       // keys a thread ranks
  unsigned min_blocks;  // blocks a multiprocessor holds at once: the register budget
};

// Measured on an H100 (2026-12-07, 2^20-2^28 random keys beside CUB): keys alone at 256 x 16
// (four blocks a multiprocessor); pairs of 4-byte keys and values at 384 x 16 (two), where
// staging keys and values one after the other freed the shared memory for the larger tile;
// pairs with an 8-byte side at 256 x 8, which keeps them within four blocks' registers.
constexpr OnesweepShape onesweep_shape(unsigned key_size, unsigned value_size) {
  return value_size == 0                   ? OnesweepShape{256, 16, 4}
         : key_size > 4 || value_size > 4 ? OnesweepShape{256, 8, 4}
                                          : OnesweepShape{384, 16, 2};
}

inline unsigned onesweep_tile(unsigned key_size, unsigned value_size) {
  return onesweep_shape(key_size, value_size).threads * onesweep_shape(key_size, value_size).items;
}

}  // namespace WK_NS
