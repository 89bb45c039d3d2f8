//! Cooperative-group tiles, worked by hand.

use super::{cpu32, cpu64};
use wavekit_core::mask::LaneMask;
use wavekit_core::op::ReduceOp;
use wavekit_core::width::WarpWidth;
use wavekit_core::{Shfl, Vote};
use wavekit_core::{VoteResult, WarpPrimitives};

#[test]
fn tile_shfl_down_stays_in_its_tile() {
    let vals: Vec<i32> = (0..10).collect();
    let got = cpu32().tile_shfl(4, Shfl::Down, &vals, 1).unwrap();
    // Tiles {0..3}, {4..7}; lanes 8, 9 form a partial tile with no defined result.
    let want = vec![
        Some(1),
        Some(2),
        Some(3),
        Some(3),
        Some(5),
        Some(6),
        Some(7),
        Some(7),
        None,
        None,
    ];
    assert_eq!(got, want);
}

#[test]
fn tile_shfl_idx_reads_a_rank() {
    let vals: Vec<i32> = (100..116).collect();
    let got = cpu32().tile_shfl(8, Shfl::Idx, &vals, 6).unwrap();
    let want: Vec<Option<i32>> = [106; 8].into_iter().chain([114; 8]).map(Some).collect();
    assert_eq!(got, want);
}

#[test]
fn tile_ballot_bits_are_ranks() {
    // Tile 8 over 16 threads; true at threads 1, 2, 9, 15: ranks {1, 2} and {1, 7}.
    let preds: Vec<bool> = (0..16).map(|t| [1, 2, 9, 15].contains(&t)).collect();
    let got = cpu32().tile_vote(8, Vote::Ballot, &preds).unwrap();
    let w = WarpWidth::W32;
    assert_eq!(
        got[0],
        Some(VoteResult::Ballot(LaneMask::from_bits(0b110, w).unwrap()))
    );
    assert_eq!(
        got[15],
        Some(VoteResult::Ballot(
            LaneMask::from_bits(0b1000_0010, w).unwrap()
        ))
    );
    let any = cpu32().tile_vote(2, Vote::Any, &preds).unwrap();
    // Pairs {0,1} yes, {2,3} yes, {4,5} no, … {8,9} yes, {14,15} yes.
    let b = |x| Some(VoteResult::Bool(x));
    assert_eq!(
        (any[0], any[3], any[4], any[9], any[14]),
        (b(true), b(true), b(false), b(true), b(true))
    );
    // Uni over pairs: {0,1} and {2,3} mixed, {4,5} all false; all over {0,1} and {2,3}.
    let uni = cpu32().tile_vote(2, Vote::Uni, &preds).unwrap();
    assert_eq!((uni[0], uni[2], uni[4]), (b(false), b(false), b(true)));
    let all = cpu32()
        .tile_vote(2, Vote::All, &[true, true, true, false])
        .unwrap();
    assert_eq!((all[0], all[2]), (b(true), b(false)));
}

#[test]
fn tile_reduce_sums_each_tile() {
    let vals: Vec<u32> = (1..=10).collect();
    let got = cpu32().tile_reduce(4, ReduceOp::Sum, &vals).unwrap();
    let want = vec![
        Some(10),
        Some(10),
        Some(10),
        Some(10),
        Some(26),
        Some(26),
        Some(26),
        Some(26),
        None,
        None,
    ];
    assert_eq!(got, want);
}

#[test]
fn tile_reduce_64_is_one_butterfly() {
    // Max over a 64-lane tile on wave64.
    let vals: Vec<i64> = (0..64).map(|i| (i * 37) % 64 - 20).collect();
    let got = cpu64().tile_reduce(64, ReduceOp::Max, &vals).unwrap();
    assert!(got.iter().all(|x| *x == Some(43)));
}

#[test]
fn tile_reduce_float_follows_the_butterfly() {
    // bfly over 4 lanes: (x0 + x2) + (x1 + x3) = (1e8 + 0) + (4 + 4) = 100000008, where a left
    // fold loses both 4s to rounding (1e8 + 4 ties to the even 1e8).
    let vals = [1.0e8f32, 4.0, 0.0, 4.0];
    let got = cpu32().tile_reduce(4, ReduceOp::Sum, &vals).unwrap();
    assert_eq!(got[0], Some(100_000_008.0));
    assert_eq!(vals.iter().fold(-0.0f32, |a, &b| a + b), 1.0e8);
}
