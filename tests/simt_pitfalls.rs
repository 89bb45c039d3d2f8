//! The seeds' pitfalls on the SIMT executor, at 32 and 64 lanes: the wrong kernels are reported
//! with the right kind and place, the fixed ones run clean and give the sums plain loops give.

#![cfg(feature = "simt")]

use wavekit::WarpWidth;
use wavekit::simt::pitfalls::{self, ActivemaskVariant, SyncwarpVariant};
use wavekit::simt::{HazardKind, Report, Schedule, Session};

const INDEPENDENT: [Schedule; 3] = [
    Schedule::Forward,
    Schedule::Reverse,
    Schedule::Random(0x5eed),
];
const ALL: [Schedule; 4] = [
    Schedule::Lockstep,
    Schedule::Forward,
    Schedule::Reverse,
    Schedule::Random(0x5eed),
];

fn values(n: usize, seed: i32) -> Vec<i32> {
    (0..n as i32).map(|i| (i * 37 + seed) % 101 - 50).collect()
}

fn of_kind(reports: &[Report], kind: HazardKind) -> Vec<&Report> {
    reports.iter().filter(|r| r.kind == kind).collect()
}

fn join(reports: &[Report]) -> String {
    reports.iter().map(|r| format!("  {r}\n")).collect()
}

fn assert_clean(s: &Session, what: &str) {
    let reports = s.take_reports();
    assert!(
        reports.is_empty(),
        "{what}: expected no hazards, got:\n{}",
        join(&reports)
    );
}

// ---- seed 001: __syncthreads inside the vector-reduce branch ----

fn spmv_expected(x: &[i32], alpha: i32) -> Vec<i32> {
    x.chunks(pitfalls::SPMV_REDUCE)
        .map(|c| alpha * c.iter().sum::<i32>())
        .collect()
}

#[test]
fn divergent_barrier_in_spmv_reduce_is_reported() {
    for width in WarpWidth::ALL {
        for schedule in ALL {
            let s = Session::new(schedule);
            let x = values(3 * pitfalls::SPMV_BLOCK, 7);
            pitfalls::spmv_reduce(&s, width, false, &x, 2).unwrap();
            let reports = s.take_reports();
            let barrier = of_kind(&reports, HazardKind::BarrierDivergence);
            assert!(
                !barrier.is_empty(),
                "w{width} {schedule:?}: no barrier report in\n{}",
                join(&reports)
            );
            let first = barrier[0];
            assert_eq!(first.kernel, "spmv_vector_reduce<false>");
            assert_eq!(first.block, [0, 0, 0]);
            // Threads 128..255 skip the branch: the report names the first of their warps.
            assert_eq!(first.warp, 128 / width.lanes());
            assert_eq!(first.lanes.count(), width.lanes(), "w{width}: {first}");
            assert!(
                first.detail.contains("threads 0-127") && first.detail.contains("threads 128-255"),
                "{first}"
            );
            assert!(first.detail.contains("spmv_barrier.cu"), "{first}");
        }
    }
}

#[test]
fn divergent_barrier_lets_skipping_warps_overwrite_shared_memory() {
    // The warps that skip the branch store the next iteration's values while the others still
    // read: a race between the misaligned barriers, and wrong sums when they run first.
    for width in WarpWidth::ALL {
        let s = Session::new(Schedule::Reverse);
        let x = values(3 * pitfalls::SPMV_BLOCK, 3);
        let y = pitfalls::spmv_reduce(&s, width, false, &x, 1).unwrap();
        let reports = s.take_reports();
        let races = of_kind(&reports, HazardKind::SharedRace);
        assert!(
            races.iter().any(|r| r.detail.contains("'SH'")),
            "w{width}:\n{}",
            join(&reports)
        );
        assert_ne!(
            y,
            spmv_expected(&x, 1),
            "w{width}: reverse order should expose the overwrite"
        );
    }
}

#[test]
fn fixed_spmv_reduce_runs_clean_and_right() {
    for width in WarpWidth::ALL {
        for schedule in ALL {
            let s = Session::new(schedule);
            let x = values(4 * pitfalls::SPMV_BLOCK, 11);
            let y = pitfalls::spmv_reduce(&s, width, true, &x, 3).unwrap();
            assert_clean(&s, &format!("fixed spmv w{width} {schedule:?}"));
            assert_eq!(y, spmv_expected(&x, 3), "w{width} {schedule:?}");
        }
    }
}

// ---- seed 000: __activemask() as a shuffle mask inside a branch ----

fn warp_sums(input: &[i32], n: usize, lanes: usize) -> Vec<i32> {
    input
        .chunks(lanes)
        .enumerate()
        .map(|(w, c)| c.iter().take(n.saturating_sub(w * lanes)).sum())
        .collect()
}

/// Two warps; the branch holds all of warp 0 and part of warp 1.
fn activemask_case(width: WarpWidth) -> (Vec<i32>, u32) {
    let lanes = width.lanes();
    (values(2 * lanes as usize, 5), lanes + lanes / 2 + 3)
}

#[test]
fn activemask_mask_in_branch_is_reported_under_independent_scheduling() {
    for width in WarpWidth::ALL {
        for schedule in INDEPENDENT {
            let s = Session::new(schedule);
            let (input, n) = activemask_case(width);
            pitfalls::activemask_sum(&s, width, ActivemaskVariant::Wrong, &input, n).unwrap();
            let reports = s.take_reports();
            let bad = of_kind(&reports, HazardKind::ShflOutsideMask);
            // Warp 0 takes the branch whole, yet its __activemask() may come back short.
            let warp0 = bad.iter().find(|r| r.warp == 0).unwrap_or_else(|| {
                panic!(
                    "w{width} {schedule:?}: warp 0 not reported:\n{}",
                    join(&reports)
                )
            });
            assert_eq!(warp0.kernel, "warp_partial_sum<0>");
            assert!(warp0.detail.contains("__activemask()"), "{warp0}");
            assert!(warp0.detail.contains("activemask_reduce.cu"), "{warp0}");
        }
    }
}

#[test]
fn activemask_in_lockstep_sees_the_whole_branch() {
    // On a lockstep wavefront __activemask() is the branch: warp 0 (entirely in it) is clean and
    // right; warp 1's shuffles still read lanes past n, outside the mask.
    for width in WarpWidth::ALL {
        let s = Session::new(Schedule::Lockstep);
        let (input, n) = activemask_case(width);
        let out = pitfalls::activemask_sum(&s, width, ActivemaskVariant::Wrong, &input, n).unwrap();
        let reports = s.take_reports();
        assert!(
            reports.iter().all(|r| r.warp == 1),
            "w{width}:\n{}",
            join(&reports)
        );
        assert!(!of_kind(&reports, HazardKind::ShflOutsideMask).is_empty());
        assert_eq!(
            out[0],
            warp_sums(&input, n as usize, width.lanes() as usize)[0]
        );
    }
}

#[test]
fn seed_fix_of_activemask_still_reads_outside_its_mask() {
    for width in WarpWidth::ALL {
        for schedule in ALL {
            let s = Session::new(schedule);
            let (input, n) = activemask_case(width);
            let out =
                pitfalls::activemask_sum(&s, width, ActivemaskVariant::SeedFix, &input, n).unwrap();
            let reports = s.take_reports();
            let bad = of_kind(&reports, HazardKind::ShflOutsideMask);
            assert!(
                !bad.is_empty() && bad.iter().all(|r| r.warp == 1),
                "w{width}:\n{}",
                join(&reports)
            );
            // The first step (offset width/2): lanes of warp 1 whose source lies at or past n.
            let lanes = width.lanes();
            let in_branch = n - lanes;
            let readers: u64 = (0..in_branch)
                .filter(|l| l + lanes / 2 >= in_branch && l + lanes / 2 < lanes)
                .fold(0, |m, l| m | 1 << l);
            assert_eq!(bad[0].lanes.bits(), readers, "{}", bad[0]);
            assert!(!bad[0].detail.contains("__activemask()"), "{}", bad[0]);
            assert_eq!(out[0], warp_sums(&input, n as usize, lanes as usize)[0]);
        }
    }
}

#[test]
fn fixed_activemask_sum_runs_clean_and_right() {
    for width in WarpWidth::ALL {
        for schedule in ALL {
            let s = Session::new(schedule);
            let (input, n) = activemask_case(width);
            let out =
                pitfalls::activemask_sum(&s, width, ActivemaskVariant::Fixed, &input, n).unwrap();
            assert_clean(&s, &format!("fixed activemask w{width} {schedule:?}"));
            assert_eq!(
                out,
                warp_sums(&input, n as usize, width.lanes() as usize),
                "w{width} {schedule:?}"
            );
        }
    }
}

// ---- seed 000: shared-memory reduction with __syncwarp between racing steps ----

/// The seed's printed fix, step for step: v starts at 0; each step v += s[l + offset], then
/// s[l] = v, over a warp's values followed by as many zeros.
fn seed_fix_model(warp: &[i32]) -> i32 {
    let w = warp.len();
    let mut s: Vec<i32> = warp
        .iter()
        .copied()
        .chain(std::iter::repeat_n(0, w))
        .collect();
    let mut v = vec![0i32; w];
    let mut offset = w / 2;
    while offset > 0 {
        for (l, vl) in v.iter_mut().enumerate() {
            *vl += s[l + offset];
        }
        s[..w].copy_from_slice(&v);
        offset /= 2;
    }
    s[0]
}

#[test]
fn racy_syncwarp_reduction_is_reported() {
    for width in WarpWidth::ALL {
        for schedule in ALL {
            let s = Session::new(schedule);
            let input = values(4 * width.lanes() as usize, 9);
            let out = pitfalls::syncwarp_sum(&s, width, SyncwarpVariant::Racy, &input).unwrap();
            let reports = s.take_reports();
            let races = of_kind(&reports, HazardKind::SharedRace);
            assert!(
                !races.is_empty(),
                "w{width} {schedule:?}:\n{}",
                join(&reports)
            );
            let r = races[0];
            assert_eq!(r.kernel, "warp_shared_sum<0>");
            assert!(r.detail.contains("'shmem'"), "{r}");
            assert_eq!(r.lanes.count(), 2, "a race names both lanes: {r}");
            if schedule == Schedule::Lockstep {
                // As on a lockstep wavefront, the racy code happens to sum right.
                assert_eq!(out, warp_sums(&input, input.len(), width.lanes() as usize));
            }
        }
    }
}

#[test]
fn racy_syncwarp_reduction_sums_wrong_in_reverse_order() {
    for width in WarpWidth::ALL {
        let s = Session::new(Schedule::Reverse);
        let input = values(2 * width.lanes() as usize, 4);
        let out = pitfalls::syncwarp_sum(&s, width, SyncwarpVariant::Racy, &input).unwrap();
        assert_ne!(
            out,
            warp_sums(&input, input.len(), width.lanes() as usize),
            "w{width}"
        );
    }
}

#[test]
fn seed_fix_of_syncwarp_reduction_is_race_free_but_drops_a_term() {
    for width in WarpWidth::ALL {
        for schedule in ALL {
            let s = Session::new(schedule);
            let lanes = width.lanes() as usize;
            let input = values(2 * lanes, 13);
            let out = pitfalls::syncwarp_sum(&s, width, SyncwarpVariant::SeedFix, &input).unwrap();
            assert_clean(&s, &format!("seed fix w{width} {schedule:?}"));
            let model: Vec<i32> = input.chunks(lanes).map(seed_fix_model).collect();
            assert_eq!(out, model, "w{width} {schedule:?}");
            assert_ne!(out, warp_sums(&input, input.len(), lanes));
        }
    }
}

#[test]
fn fixed_syncwarp_reduction_runs_clean_and_right() {
    for width in WarpWidth::ALL {
        for schedule in ALL {
            let s = Session::new(schedule);
            let input = values(6 * width.lanes() as usize, 21);
            let out = pitfalls::syncwarp_sum(&s, width, SyncwarpVariant::Fixed, &input).unwrap();
            assert_clean(&s, &format!("fixed syncwarp w{width} {schedule:?}"));
            assert_eq!(
                out,
                warp_sums(&input, input.len(), width.lanes() as usize),
                "w{width} {schedule:?}"
            );
        }
    }
}

// ---- seed 000: a full-mask vote after an early return ----

fn vote_expected(a: &[i32], n: usize, lanes: usize) -> Vec<i32> {
    (0..a.len())
        .map(|t| {
            if t >= n {
                return -1;
            }
            let w = t / lanes;
            (w * lanes..n.min((w + 1) * lanes)).all(|u| a[u] > 48) as i32
        })
        .collect()
}

#[test]
fn full_mask_vote_after_return_is_reported() {
    for width in WarpWidth::ALL {
        for schedule in ALL {
            let s = Session::new(schedule);
            let lanes = width.lanes();
            let a = vec![50; 2 * lanes as usize];
            let n = lanes + 5;
            pitfalls::vote_all(&s, width, false, &a, n).unwrap();
            let reports = s.take_reports();
            assert_eq!(
                reports.len(),
                1,
                "w{width} {schedule:?}:\n{}",
                join(&reports)
            );
            let r = &reports[0];
            assert_eq!(r.kind, HazardKind::InactiveMaskLane);
            assert_eq!((r.kernel.as_str(), r.warp), ("vote_all<false>", 1));
            assert_eq!(
                r.lanes.bits(),
                width.full_bits() & !0x1f,
                "the lanes that returned: {r}"
            );
            assert!(r.detail.contains("exited"), "{r}");
        }
    }
}

#[test]
fn fixed_vote_runs_clean_and_right() {
    for width in WarpWidth::ALL {
        for schedule in ALL {
            let s = Session::new(schedule);
            let lanes = width.lanes() as usize;
            let mut a = vec![50; 2 * lanes];
            a[lanes + 3] = 10;
            let n = lanes + 7;
            let out = pitfalls::vote_all(&s, width, true, &a, n as u32).unwrap();
            assert_clean(&s, &format!("fixed vote w{width} {schedule:?}"));
            assert_eq!(out, vote_expected(&a, n, lanes), "w{width} {schedule:?}");
        }
    }
}

#[test]
fn reports_are_taken_once() {
    let s = Session::new(Schedule::Forward);
    let a = vec![50; 64];
    pitfalls::vote_all(&s, WarpWidth::W32, false, &a, 40).unwrap();
    assert_eq!(s.take_reports().len(), 1);
    assert!(s.take_reports().is_empty());
    assert_eq!(s.launches(), 1);
}

#[test]
fn bad_lengths_are_errors() {
    let s = Session::new(Schedule::Forward);
    assert!(pitfalls::spmv_reduce(&s, WarpWidth::W64, true, &[1; 100], 1).is_err());
    assert!(pitfalls::syncwarp_sum(&s, WarpWidth::W64, SyncwarpVariant::Fixed, &[1; 64]).is_err());
    assert_eq!(s.launches(), 0);
}

// ---- hangs: reported, and the launch still returns ----

fn hang_reports(width: WarpWidth, schedule: Schedule, kind: pitfalls::Hang) -> Vec<Report> {
    let s = Session::new(schedule);
    let input = values(width.lanes() as usize, 1);
    pitfalls::hang(&s, width, kind, &input).unwrap();
    s.take_reports()
}

#[test]
fn shuffle_across_a_barrier_is_a_reported_deadlock() {
    for width in WarpWidth::ALL {
        for schedule in ALL {
            let reports = hang_reports(width, schedule, pitfalls::Hang::ShuffleAcrossBarrier);
            let r = of_kind(&reports, HazardKind::InactiveMaskLane);
            assert_eq!(r.len(), 1, "w{width} {schedule:?}:\n{}", join(&reports));
            assert_eq!(
                (r[0].kernel.as_str(), r[0].warp, r[0].lanes.bits()),
                ("hang<0>", 0, 1)
            );
            assert!(
                r[0].detail
                    .contains("lane 0 waits at __syncthreads at csrc/simt/pitfalls/hangs.cu"),
                "{}",
                r[0]
            );
        }
    }
}

#[test]
fn different_collectives_under_one_mask_are_reported() {
    for width in WarpWidth::ALL {
        for schedule in ALL {
            let reports = hang_reports(width, schedule, pitfalls::Hang::DifferentCollectives);
            let r = of_kind(&reports, HazardKind::MismatchedCollective);
            assert!(!r.is_empty(), "w{width} {schedule:?}:\n{}", join(&reports));
            assert!(
                r[0].detail.contains("any_sync") && r[0].detail.contains("all_sync"),
                "{}",
                r[0]
            );
        }
    }
}

#[test]
fn shared_reads_past_the_end_are_reported() {
    for width in WarpWidth::ALL {
        let reports = hang_reports(width, Schedule::Forward, pitfalls::Hang::SharedPastEnd);
        assert_eq!(reports.len(), 1, "w{width}:\n{}", join(&reports));
        let r = &reports[0];
        assert_eq!(r.kind, HazardKind::SharedOutOfBounds);
        assert!(
            r.detail.contains(&format!("'shmem'[{}]", width.lanes())),
            "{r}"
        );
    }
}
