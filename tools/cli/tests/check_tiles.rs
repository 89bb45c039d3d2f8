//! `wavekit check` runs CUDA's tiles wider than a warp (thread_block_tile<64..1024> of a
//! block) as CUDA defines them, at 32 and 64 lanes: sync a barrier of the tile's threads,
//! shfl, all, reduce and the scans over the whole tile.

#![cfg(feature = "simt")]

mod common;
use common::{at, check};

#[test]
fn a_tile_of_128_sums_and_syncs_across_its_warps() {
    let (code, t) = check(
        "kernels/big_tiles.cu",
        &[
            "--kernel", "tile128", "--block", "256", "--arg", "0=1,2", "--show", "2",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    for lanes in [32, 64] {
        let w = at(&t, "tile128", lanes);
        assert!(w.contains(": no hazard"), "{t}");
        // 2 tiles; the sum of 64 ones and 64 twos; thread 0's mirror (rank 127) holds 2,
        // thread 1's (rank 126) 1; rank 0 holds 1; all positive; the exclusive scan of ones
        // is the rank.
        assert!(w.contains("out arg 1: [20192211, 20192111, ...]"), "{t}");
    }
}
