//! Seed 000's warp primitives on lane ids, with the expected lanes written out by hand.

use super::{all_some, cpu32, cpu64};
use wavekit_core::mask::LaneMask;
use wavekit_core::width::WarpWidth;
use wavekit_core::{Shfl, Vote};
use wavekit_core::{VoteResult, WarpPrimitives};

const W32: WarpWidth = WarpWidth::W32;

fn ids(n: u32) -> Vec<u32> {
    (0..n).collect()
}

fn full32() -> LaneMask {
    LaneMask::full(W32)
}

#[test]
fn shfl_down_by_2_width_16() {
    // Seed 000: lanes 0..13 get 2..15 and 16..29 get 18..31; the last two lanes of each
    // 16-lane segment have no source in range and keep their own value.
    let got = all_some(cpu32().shfl(Shfl::Down, &ids(32), 2, 16, full32()).unwrap());
    let want = vec![
        2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 14, 15, //
        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 30, 31,
    ];
    assert_eq!(got, want);
}

#[test]
fn shfl_up_by_2_width_16() {
    let got = all_some(cpu32().shfl(Shfl::Up, &ids(32), 2, 16, full32()).unwrap());
    let want = vec![
        0, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, //
        16, 17, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
    ];
    assert_eq!(got, want);
}

#[test]
fn shfl_broadcast_lane_2_width_16() {
    // Seed 000: lane 2 broadcasts to lanes 0..15, lane 18 to lanes 16..31.
    let got = all_some(cpu32().shfl(Shfl::Idx, &ids(32), 2, 16, full32()).unwrap());
    let mut want = vec![2; 16];
    want.extend([18; 16]);
    assert_eq!(got, want);
    // An index at or past the width wraps within the segment (CUDA): 19 % 16 = 3.
    let got = all_some(cpu32().shfl(Shfl::Idx, &ids(32), 19, 16, full32()).unwrap());
    let mut want = vec![3; 16];
    want.extend([19; 16]);
    assert_eq!(got, want);
}

#[test]
fn shfl_xor_butterflies() {
    let got = all_some(cpu32().shfl(Shfl::Xor, &ids(8), 1, 32, full32()).unwrap());
    assert_eq!(got, vec![1, 0, 3, 2, 5, 4, 7, 6]);
    let got = all_some(cpu32().shfl(Shfl::Xor, &ids(8), 3, 32, full32()).unwrap());
    assert_eq!(got, vec![3, 2, 1, 0, 7, 6, 5, 4]);
    // Width 4 with arg 4: lanes 0..3 would read 4..7, past their segment, so keep their own
    // value; lanes 4..7 read 0..3, an earlier segment, which both vendors allow.
    let got = all_some(cpu32().shfl(Shfl::Xor, &ids(8), 4, 4, full32()).unwrap());
    assert_eq!(got, vec![0, 1, 2, 3, 0, 1, 2, 3]);
}

#[test]
fn shfl_marks_reads_of_non_members_and_missing_lanes() {
    // Lane 5 left out: lane 3 reads it (None), lane 5 itself is None; 20 threads: lane 18
    // reads lane 20, which does not exist.
    let mask = LaneMask::from_fn(W32, |l| l != 5);
    let got = cpu32().shfl(Shfl::Down, &ids(20), 2, 32, mask).unwrap();
    let mut want: Vec<Option<u32>> = (0..20).map(|l| Some(l + 2)).collect();
    want[3] = None;
    want[5] = None;
    want[18] = None;
    want[19] = None;
    assert_eq!(got, want);
}

#[test]
fn shfl_on_wave64() {
    let got = all_some(
        cpu64()
            .shfl(Shfl::Xor, &ids(64), 32, 64, LaneMask::full(WarpWidth::W64))
            .unwrap(),
    );
    let want: Vec<u32> = (32..64).chain(0..32).collect();
    assert_eq!(got, want);
    // Second warp of a 128-thread launch: lane ids 64..128 and a broadcast of lane 63.
    let got = all_some(
        cpu64()
            .shfl(Shfl::Idx, &ids(128), 63, 64, LaneMask::full(WarpWidth::W64))
            .unwrap(),
    );
    assert_eq!(&got[..64], &[63; 64][..]);
    assert_eq!(&got[64..], &[127; 64][..]);
}

#[test]
fn ballot_and_votes() {
    let preds: Vec<bool> = (0..32).map(|l| l % 3 == 0).collect();
    let got = cpu32().vote(Vote::Ballot, &preds, full32()).unwrap();
    // Bits 0, 3, …, 30.
    let want = VoteResult::Ballot(LaneMask::from_bits(0x4924_9249, W32).unwrap());
    assert!(got.iter().all(|r| *r == Some(want)));
    // Only lanes 0..15 are members: bits 0, 3, …, 15.
    let half = LaneMask::from_bits(0xffff, W32).unwrap();
    let got = cpu32().vote(Vote::Ballot, &preds, half).unwrap();
    assert_eq!(
        got[0],
        Some(VoteResult::Ballot(
            LaneMask::from_bits(0x9249, W32).unwrap()
        ))
    );
    assert_eq!(got[16], None);

    let b = |x| Some(VoteResult::Bool(x));
    let got = cpu32().vote(Vote::Any, &preds, full32()).unwrap();
    assert_eq!(got[7], b(true));
    let got = cpu32().vote(Vote::All, &preds, full32()).unwrap();
    assert_eq!(got[7], b(false));
    let got = cpu32().vote(Vote::Uni, &preds, full32()).unwrap();
    assert_eq!(got[7], b(false));
    // Members 0, 3, 6, … all hold true: all and uni hold for them.
    let thirds = LaneMask::from_bits(0x4924_9249, W32).unwrap();
    let got = cpu32().vote(Vote::All, &preds, thirds).unwrap();
    assert_eq!((got[3], got[4]), (b(true), None));
    let got = cpu32().vote(Vote::Uni, &preds, thirds).unwrap();
    assert_eq!(got[3], b(true));
    // Members 1, 4, 7, … all hold false: uni holds, any and all do not.
    let rest = LaneMask::from_bits(0x9249_2492, W32).unwrap();
    let got = cpu32().vote(Vote::Uni, &preds, rest).unwrap();
    assert_eq!(got[1], b(true));
    let got = cpu32().vote(Vote::Any, &preds, rest).unwrap();
    assert_eq!(got[1], b(false));
}

#[test]
fn votes_in_a_partial_last_warp() {
    // 40 threads: warp 1 has lanes 0..7 only, all true, so all() holds there even though the
    // predicate is false for the (absent) lanes 8..31.
    let preds = vec![true; 40];
    let got = cpu32().vote(Vote::All, &preds, full32()).unwrap();
    assert!(got.iter().all(|r| *r == Some(VoteResult::Bool(true))));
    let got = cpu32().vote(Vote::Ballot, &preds, full32()).unwrap();
    assert_eq!(
        got[39],
        Some(VoteResult::Ballot(LaneMask::from_bits(0xff, W32).unwrap()))
    );
}

#[test]
fn syncwarp_transpose_4x8() {
    // Seed 000: stored row-major into smem[4][8], read back column-major.
    let got = all_some(cpu32().syncwarp_transpose(&ids(32), full32()).unwrap());
    let want = vec![
        0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27, //
        4, 12, 20, 28, 5, 13, 21, 29, 6, 14, 22, 30, 7, 15, 23, 31,
    ];
    assert_eq!(got, want);
}

#[test]
fn syncwarp_transpose_8x8_on_wave64() {
    let got = all_some(
        cpu64()
            .syncwarp_transpose(&ids(64), LaneMask::full(WarpWidth::W64))
            .unwrap(),
    );
    let want = vec![
        0, 8, 16, 24, 32, 40, 48, 56, 1, 9, 17, 25, 33, 41, 49, 57, //
        2, 10, 18, 26, 34, 42, 50, 58, 3, 11, 19, 27, 35, 43, 51, 59, //
        4, 12, 20, 28, 36, 44, 52, 60, 5, 13, 21, 29, 37, 45, 53, 61, //
        6, 14, 22, 30, 38, 46, 54, 62, 7, 15, 23, 31, 39, 47, 55, 63,
    ];
    assert_eq!(got, want);
}

#[test]
fn transpose_reading_a_non_member_is_none() {
    // Lane 1 reads lane 8's slot; with lane 8 out of the mask that read is undefined.
    let mask = LaneMask::from_fn(W32, |l| l != 8);
    let got = cpu32().syncwarp_transpose(&ids(32), mask).unwrap();
    assert_eq!(
        (got[0], got[1], got[8], got[4]),
        (Some(0), None, None, Some(1))
    );
}

#[test]
fn match_any_groups_by_value() {
    let vals: Vec<u64> = (0..32).map(|l| l % 3).collect();
    let got = all_some(cpu32().match_any(&vals, full32()).unwrap());
    let groups = [0x4924_9249u64, 0x9249_2492, 0x2492_4924];
    for (l, m) in got.iter().enumerate() {
        assert_eq!(m.bits(), groups[l % 3], "lane {l}");
    }
    // Only lanes 0..7 are members: lane 0's group is {0, 3, 6}.
    let got = cpu32()
        .match_any(&vals, LaneMask::from_bits(0xff, W32).unwrap())
        .unwrap();
    assert_eq!(got[0].unwrap().bits(), 0b0100_1001);
    assert_eq!(got[8], None);
}

#[test]
fn match_compares_bits_not_values() {
    let vals = [0.0f32, -0.0, 0.0, f32::NAN];
    let got = all_some(cpu32().match_any(&vals, full32()).unwrap());
    let bits: Vec<u64> = got.iter().map(|m| m.bits()).collect();
    assert_eq!(bits, vec![0b0101, 0b0010, 0b0101, 0b1000]);
}

#[test]
fn match_all_needs_every_member_equal() {
    let same = vec![7i64; 32];
    let got = cpu32().match_all(&same, full32()).unwrap();
    assert_eq!(got[31], Some((full32(), true)));
    let mut differ = same.clone();
    differ[9] = 8;
    let got = cpu32().match_all(&differ, full32()).unwrap();
    assert_eq!(got[0], Some((LaneMask::empty(W32), false)));
    // Without lane 9 the remaining members agree again.
    let mask = LaneMask::from_fn(W32, |l| l != 9);
    let got = cpu32().match_all(&differ, mask).unwrap();
    assert_eq!(got[0], Some((mask, true)));
}

#[test]
fn activemask_is_the_existing_branch_lanes() {
    let even = LaneMask::from_fn(W32, |l| l % 2 == 0);
    let got = cpu32().activemask(40, even).unwrap();
    assert_eq!(got[0].unwrap().bits(), 0x5555_5555);
    assert_eq!(got[1], None);
    // Warp 1 has lanes 0..7 only.
    assert_eq!(got[32].unwrap().bits(), 0x55);
}
