//! The hazard corpus (csrc/simt/corpus) on the SIMT executor: every bug is reported at each
//! width it breaks at, with the kind, kernel, block, warp, lanes and source line written here
//! from reading its kernel; the same bug runs clean at a width where its code is right; every
//! fixed twin runs clean at 32 and 64 lanes under every schedule; docs/HAZARDS.md lists the
//! corpus.

#![cfg(feature = "simt")]

use wavekit::WarpWidth;
use wavekit::simt::corpus::{self, Bug};
use wavekit::simt::{HazardKind, Report, Schedule, Session};
use wavekit_tests::corpus::{expected, input, join, names};

use HazardKind::*;

const ALL: [Schedule; 4] = [
    Schedule::Lockstep,
    Schedule::Forward,
    Schedule::Reverse,
    Schedule::Random(0x5eed),
];

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
