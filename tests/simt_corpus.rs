//! The hazard corpus (csrc/simt/corpus) on the SIMT executor: every bug is reported at each
//! width it breaks at, with the kind, kernel, block, warp, lanes and source line written here
//! from reading its kernel; the same bug runs clean at a width where its code is right; every
//! fixed twin runs clean at 32 and 64 lanes under every schedule; docs/HAZARDS.md lists the
//! corpus.

#![cfg(feature = "simt")]

use wavekit::WarpWidth;
use wavekit::simt::corpus::{self, Bug, INPUT_LEN};
use wavekit::simt::{HazardKind, Report, Schedule, Session};

use HazardKind::*;

const ALL: [Schedule; 4] = [
    Schedule::Lockstep,
    Schedule::Forward,
    Schedule::Reverse,
    Schedule::Random(0x5eed),
];

fn input() -> Vec<i32> {
    (0..INPUT_LEN as i32)
        .map(|i| (i * 37 + 11) % 101 - 50)
        .collect()
}

fn lanes(range: std::ops::Range<u32>) -> u64 {
    range.fold(0, |m, l| m | 1 << l)
}

fn join(reports: &[Report]) -> String {
    reports.iter().map(|r| format!("  {r}\n")).collect()
}

/// What the executor must report for a bug at a width it breaks at (under `Schedule::Forward`).
struct Expect {
    kind: HazardKind,
    warp: u32,
    /// The report's lanes exactly; None where they are drawn at random (__activemask()).
    lanes: Option<u64>,
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

/// Read from each kernel: which report, in which warp and lanes, its bug must give at `width`.
fn expected(name: &str, width: WarpWidth, x: &[i32]) -> Expect {
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

/// `csrc/simt/corpus/NAME.cu:LINE` of the line the report must name: the one marked `// BUG`,
/// or for an unwritten output the WK_CORPUS_RUN line that checks it.
fn marked_line(bug: &Bug, kind: HazardKind) -> String {
    let path = bug.source();
    let text = std::fs::read_to_string(env!("CARGO_MANIFEST_DIR").to_owned() + "/../" + &path)
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    let marker = if kind == UnwrittenOutput {
        "WK_CORPUS_RUN("
    } else {
        "// BUG"
    };
    let found: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(marker))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(found.len(), 1, "{path}: one line marked {marker:?}");
    format!("{path}:{}", found[0])
}

/// Whether `detail` names `file:line` (not a longer line number that starts the same).
fn names(detail: &str, line: &str) -> bool {
    detail
        .match_indices(line)
        .any(|(i, _)| !detail[i + line.len()..].starts_with(|c: char| c.is_ascii_digit()))
}

fn run(bug: &Bug, width: WarpWidth, fixed: bool, schedule: Schedule) -> Vec<Report> {
    let s = Session::new(schedule);
    bug.run(&s, width, fixed, &input())
        .unwrap_or_else(|e| panic!("{} w{width}: {e}", bug.name));
    s.take_reports()
}

#[test]
fn the_corpus_has_thirty_bugs_or_more_in_both_builds() {
    let bugs = corpus::bugs();
    assert!(bugs.len() >= 30, "{} bugs", bugs.len());
    for bug in &bugs {
        assert!(!bug.breaks_at().is_empty(), "{}", bug.name);
    }
    let at = |w| bugs.iter().filter(|b| b.breaks_at().contains(&w)).count();
    assert!(at(WarpWidth::W64) > 0 && at(WarpWidth::W32) > 0);
}

#[test]
fn every_bug_is_reported_where_it_breaks() {
    let x = input();
    for bug in corpus::bugs() {
        for width in bug.breaks_at() {
            let want = expected(bug.name, width, &x);
            let line = marked_line(&bug, want.kind);
            let reports = run(&bug, width, false, Schedule::Forward);
            let found = reports
                .iter()
                .find(|r| r.kind == want.kind && r.warp == want.warp && names(&r.detail, &line));
            let r = found.unwrap_or_else(|| {
                panic!(
                    "{} w{width}: no {:?} report in warp {} naming {line}:\n{}",
                    bug.name,
                    want.kind,
                    want.warp,
                    join(&reports)
                )
            });
            let what = format!("{} w{width}: {r}", bug.name);
            assert_eq!(r.kernel, format!("{}<false>", bug.name), "{what}");
            assert_eq!(r.block, [0, 0, 0], "{what}");
            assert_eq!(r.lanes.width(), width, "{what}");
            match want.lanes {
                Some(l) => assert_eq!(r.lanes.bits(), l, "{what}"),
                None => assert!(r.lanes.bits() != 0, "{what}"),
            }
        }
    }
}

#[test]
fn activemask_reports_say_where_the_mask_came_from() {
    let bug = corpus::bugs()
        .into_iter()
        .find(|b| b.name == "activemask_in_branch")
        .expect("in the corpus");
    for width in WarpWidth::ALL {
        let reports = run(&bug, width, false, Schedule::Forward);
        assert!(
            reports
                .iter()
                .filter(|r| r.kind == ShflOutsideMask)
                .all(|r| r.detail.contains("__activemask()")),
            "w{width}:\n{}",
            join(&reports)
        );
    }
}

#[test]
fn bugs_run_clean_at_a_width_where_their_code_is_right() {
    for bug in corpus::bugs() {
        for width in WarpWidth::ALL {
            if bug.breaks_at().contains(&width) {
                continue;
            }
            let reports = run(&bug, width, false, Schedule::Forward);
            assert!(
                reports.is_empty(),
                "{} is right at w{width}, yet:\n{}",
                bug.name,
                join(&reports)
            );
        }
    }
}

#[test]
fn every_fixed_twin_runs_clean_at_both_widths_under_every_schedule() {
    for bug in corpus::bugs() {
        for width in WarpWidth::ALL {
            for schedule in ALL {
                let reports = run(&bug, width, true, schedule);
                assert!(
                    reports.is_empty(),
                    "fixed {} w{width} {schedule:?}:\n{}",
                    bug.name,
                    join(&reports)
                );
            }
        }
    }
}

#[test]
fn fixed_twins_give_one_answer_whatever_the_schedule() {
    // Race-free kernels: the order lanes run in cannot change what they write. (The ticket
    // order of the warp-aggregated atomic depends on which warp comes first.)
    let x = input();
    for bug in corpus::bugs() {
        if bug.name == "match_any_int_mask" {
            continue;
        }
        for width in WarpWidth::ALL {
            let s = Session::new(Schedule::Forward);
            let forward = bug.run(&s, width, true, &x).unwrap();
            s.set_schedule(Schedule::Reverse);
            let reverse = bug.run(&s, width, true, &x).unwrap();
            assert_eq!(forward, reverse, "fixed {} w{width}", bug.name);
        }
    }
}

#[test]
fn a_fixed_twin_computes_what_its_comment_says() {
    // Five twins checked against plain loops: the warp sum, the block sum, the count of
    // positive values and the two warp sorts, at both widths.
    let x = input();
    let bugs = corpus::bugs();
    let get = |n: &str| bugs.iter().find(|b| b.name == n).expect("in the corpus");
    for width in WarpWidth::ALL {
        let w = width.lanes() as usize;
        let s = Session::new(Schedule::Forward);
        let sums = get("reduce_offset_16").run(&s, width, true, &x).unwrap();
        let want: Vec<i32> = x[..128].chunks(w).map(|c| c.iter().sum()).collect();
        assert_eq!(&sums[..128 / w], &want[..], "w{width}");
        let block = get("nwarps_div32").run(&s, width, true, &x).unwrap();
        assert_eq!(block[0], x[..256].iter().sum::<i32>(), "w{width}");
        let counts = get("popc_u64_mask").run(&s, width, true, &x).unwrap();
        for t in 0..128 {
            let warp = &x[t / w * w..(t / w + 1) * w];
            assert_eq!(counts[t], warp.iter().filter(|&&v| v > 0).count() as i32);
        }
        // The sorting twins: each warp's keys stably by their low two bits, and ascending.
        let by_digit = get("radix_rank_ballot_u32")
            .run(&s, width, true, &x)
            .unwrap();
        let sorted = get("segment_slots_32").run(&s, width, true, &x).unwrap();
        for (i, warp) in x[..128].chunks(w).enumerate() {
            let at = i * w;
            let mut want = warp.to_vec();
            want.sort_by_key(|v| v & 3);
            assert_eq!(&by_digit[at..at + w], &want[..], "w{width}");
            want.sort();
            assert_eq!(&sorted[at..at + w], &want[..], "w{width}");
        }
        assert!(s.take_reports().is_empty());
    }
}

#[test]
fn hazards_doc_lists_every_bug_with_its_widths() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/HAZARDS.md"))
        .expect("docs/HAZARDS.md");
    for bug in corpus::bugs() {
        let widths: Vec<String> = bug
            .breaks_at()
            .iter()
            .map(|w| w.lanes().to_string())
            .collect();
        let row = format!("| `{}` | {} |", bug.name, widths.join(", "));
        assert!(
            doc.contains(&row),
            "docs/HAZARDS.md has no row starting {row}"
        );
    }
}

#[test]
fn a_short_input_is_an_error() {
    let bug = corpus::bugs()[0];
    let s = Session::new(Schedule::Forward);
    assert!(bug.run(&s, WarpWidth::W64, true, &[1; 16]).is_err());
    assert_eq!(s.launches(), 0);
}
