//! What the hazard corpus's tests share (tests/simt_corpus.rs, its dialect kernels, and
//! tests/simt_plain_corpus.rs, their plain-CUDA twins): the input, and the report each bug must
//! give at a width it breaks at, written from reading its kernel.

use wavekit::WarpWidth;
use wavekit::simt::corpus::INPUT_LEN;
use wavekit::simt::{HazardKind, Report};

use HazardKind::*;

/// The values every corpus kernel reads.
pub fn input() -> Vec<i32> {
    (0..INPUT_LEN as i32)
        .map(|i| (i * 37 + 11) % 101 - 50)
        .collect()
}

/// The mask of lanes `range`.
pub fn lanes(range: std::ops::Range<u32>) -> u64 {
    range.fold(0, |m, l| m | 1 << l)
}

/// The reports one per line, for failure messages.
pub fn join(reports: &[Report]) -> String {
    reports.iter().map(|r| format!("  {r}\n")).collect()
}

/// What the executor must report for a bug at a width it breaks at (under `Schedule::Forward`).
pub struct Expect {
    /// The report's kind.
    pub kind: HazardKind,
    /// The warp it names (block 0 throughout).
    pub warp: u32,
    /// The report's lanes exactly; None where they are drawn at random (__activemask()).
    pub lanes: Option<u64>,
}

fn expect(kind: HazardKind, warp: u32, lanes: u64) -> Expect {
    Expect {
        kind,
        warp,
        lanes: Some(lanes),
    }
}

/// The lanes of warp 0 whose peers (the lanes with their key, in & 3) lie in both halves of
/// the wave: the ones whose `int` match mask is a nonzero cut of a 64-lane one.
fn split_peers(x: &[i32]) -> u64 {
    let key = |l: usize| x[l] & 3;
    (0..64)
        .filter(|&l| {
            let peers = (0..64)
                .filter(|&m| key(m) == key(l))
                .fold(0u64, |p, m| p | 1 << m);
            peers >> 32 != 0 && peers as u32 != 0
        })
        .fold(0, |m, l| m | 1 << l)
}

/// Warp 0's slots that radix_rank_ballot_u32 leaves unwritten at 64 lanes: lanes 32..63 of a
/// digit all rank right after that digit's lanes in 0..31, so of each digit's slots only the
/// lower half's and the first upper one are written.
fn radix_unwritten(x: &[i32]) -> u64 {
    let digit = |l: usize| x[l] & 3;
    let mut start = 0;
    let mut unwritten = 0u64;
    for d in 0..4 {
        let lower = (0..32).filter(|&l| digit(l) == d).count();
        let total = (0..64).filter(|&l| digit(l) == d).count();
        for k in lower + 1..total {
            unwritten |= 1 << (start + k);
        }
        start += total;
    }
    unwritten
}

/// Read from each kernel (the dialect's and its plain twin say the same): which report, in
/// which warp and lanes, its bug must give at `width`.
pub fn expected(name: &str, width: WarpWidth, x: &[i32]) -> Expect {
    let w = width.lanes();
    let all = lanes(0..w);
    let high = lanes(32..64);
    match name {
        // Lanes 0-31 read 32-63 at offset 32; the mask leaves out lanes 32-63.
        "full_mask_literal" => expect(ShflOutsideMask, 0, lanes(0..32)),
        "full_mask_syncwarp" => expect(MismatchedCollective, 0, high),
        // Every lane counts (or searches) the cut ballot.
        "ballot_stored_u32" | "popc_u64_mask" | "ffs_u64_mask" | "clz_u64_mask" => {
            expect(MaskNarrowed, 0, all)
        }
        "match_any_int_mask" => expect(MaskNarrowed, 0, split_peers(x)),
        // Warp 0 is all below n: lanes 32-63 call with a mask cut to lanes 0-31.
        "ballot_mask_u32" => expect(MaskNarrowed, 0, high),
        "one_shl_lane" | "lanemask_lt_u32" => expect(ShiftOutOfRange, 0, high),
        // Every lane of a full warp shifts by the width.
        "low_mask_u32" | "low_mask_1ull" | "upper_half_shift32" => expect(ShiftOutOfRange, 0, all),
        "reduce_offset_16" | "reduce_offset_32" => expect(ReductionSpan, 0, all),
        // Threads 0-31 shuffle; lanes 32-63 of warp 0 have exited.
        "warp_div32_final" => expect(InactiveMaskLane, 0, high),
        "stage_sized_32" | "transpose_4x8" => expect(SharedOutOfBounds, 0, high),
        // Thread 64 (warp 1 lane 0) stores to slot 64 after thread 32 (warp 0) did.
        "warp_slot_mixed" => expect(SharedRace, 1, 1),
        // Thread 64 (warp 1 lane 0) stages into slot 32 after thread 32 (warp 0) did.
        "segment_slots_32" => expect(SharedRace, 1, 1),
        // Lane 32 stores element 32 after lane 0 did.
        "lane_stride_32" => expect(SharedRace, 0, 1 | 1 << 32),
        // Partials 4-7 are read by threads 4-7 and never written.
        "nwarps_div32" | "lane_mod_64_partials" => expect(UninitSharedRead, 0, lanes(4..8)),
        // Every lane's width-64 shuffle reads past the warp.
        "tile_larger_than_wave" => expect(ShflOutsideMask, 0, all),
        "unwritten_upper_lanes" => expect(UnwrittenOutput, 0, high),
        "radix_rank_ballot_u32" => expect(UnwrittenOutput, 0, radix_unwritten(x)),
        // Warp 1 writes out[64..95]: out[32..63] was theirs.
        "out_index_wave64" => expect(UnwrittenOutput, 1, all),
        // Thread 99 reads thread 100's lane.
        "shfl_outside_ballot_mask" => expect(ShflOutsideMask, 99 / w, 1 << (99 % w)),
        "activemask_in_branch" => Expect {
            kind: ShflOutsideMask,
            warp: 0,
            lanes: None,
        },
        // Threads 101.. returned.
        "full_mask_after_return" => expect(InactiveMaskLane, 101 / w, lanes(101 % w..w)),
        "shfl_in_divergent_branch" => expect(InactiveMaskLane, 0, all & 0xaaaa_aaaa_aaaa_aaaa),
        "syncwarp_in_branch" => expect(InactiveMaskLane, 0, lanes(16..w)),
        // The first warp of the threads that skip the barrier (64..), return (100..) or leave
        // the loop early (44..).
        "divergent_syncthreads" => expect(BarrierDivergence, 64 / w, all),
        "syncthreads_after_return" => expect(BarrierDivergence, 100 / w, lanes(100 % w..w)),
        "syncthreads_in_strided_loop" => expect(BarrierDivergence, 44 / w, lanes(44 % w..w)),
        // Thread 1 stores s[1] after thread 0 read it.
        "missing_barrier_tree" | "warp_synchronous_tail" => expect(SharedRace, 0, 0b11),
        // Thread 32 reads table[0], thread 0's store: another warp at 32 lanes, its own at 64.
        "missing_barrier_table" => match width {
            WarpWidth::W32 => expect(SharedRace, 1, 1),
            WarpWidth::W64 => expect(SharedRace, 0, 1 | 1 << 32),
        },
        // Thread 4 reads smem[1] before thread 1's store is ordered with it.
        "transpose_no_syncwarp" => expect(SharedRace, 0, 1 << 1 | 1 << 4),
        // Thread 8 reads shared_mem[8] of 8.
        "seed002_final_off_by_one" => expect(SharedOutOfBounds, 0, 1 << 8),
        other => panic!("no expectation for corpus bug {other}: add one"),
    }
}

/// Whether `detail` names `file:line` (not a longer line number that starts the same).
pub fn names(detail: &str, line: &str) -> bool {
    detail
        .match_indices(line)
        .any(|(i, _)| !detail[i + line.len()..].starts_with(|c: char| c.is_ascii_digit()))
}
