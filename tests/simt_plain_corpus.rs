//! The plain-CUDA twins of the hazard corpus (tests/plain/corpus), built as `wavekit check`
//! builds a user's file (tests/build.rs) and loaded here: each bug, written as a CUDA port has
//! it, is reported at each width it breaks at with the same kind, warp and lanes as its dialect
//! twin (tests/support/corpus.rs) and at the `// BUG` line of the plain file; it runs clean at
//! a width where its code is right; every fixed twin runs clean at 32 and 64 lanes under every
//! schedule, and computes what the dialect's fixed twin computes.

#![cfg(feature = "simt")]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;
use wavekit::WarpWidth;
use wavekit::simt::corpus::{self, Bug, OUTPUT_LEN};
use wavekit::simt::user::{self, Arg, Kernel, Library, Values};
use wavekit::simt::{HazardKind, Report, Schedule, Session};
use wavekit_tests::corpus::{expected, input, join, names};

const ALL: [Schedule; 4] = [
    Schedule::Lockstep,
    Schedule::Forward,
    Schedule::Reverse,
    Schedule::Random(0x5eed),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A bug's plain twin: its source and its two kernels at each width.
struct Twin {
    /// tests/plain/corpus/NAME.cu, from the repository root.
    file: String,
    text: String,
    /// [bug, fixed] at 32 and at 64 lanes.
    kernels: HashMap<(u32, bool), Kernel>,
}

fn twins() -> &'static HashMap<&'static str, Twin> {
    static T: OnceLock<HashMap<&'static str, Twin>> = OnceLock::new();
    T.get_or_init(|| {
        let built = PathBuf::from(env!("WAVEKIT_PLAIN_CORPUS"));
        corpus::bugs()
            .into_iter()
            .map(|bug| {
                let file = format!("tests/plain/corpus/{}.cu", bug.name);
                let text = std::fs::read_to_string(root().join(&file))
                    .unwrap_or_else(|e| panic!("{file}: {e}"));
                let mut kernels = HashMap::new();
                for w in [32u32, 64] {
                    let so = built.join(bug.name).join(format!("plain_w{w}.so"));
                    // SAFETY: tests/build.rs built it from the twin for this program's executor.
                    let lib = unsafe { Library::open(&so) }.unwrap_or_else(|e| panic!("{e}"));
                    for fixed in [false, true] {
                        let k = lib
                            .kernel(&wavekit_kernels_symbol(fixed as usize))
                            .unwrap_or_else(|e| panic!("{file}: {e}"));
                        kernels.insert((w, fixed), k);
                    }
                }
                (
                    bug.name,
                    Twin {
                        file,
                        text,
                        kernels,
                    },
                )
            })
            .collect()
    })
}

/// wavekit_kernels::plain::symbol(i): the descriptor of the i-th kernel exported.
fn wavekit_kernels_symbol(i: usize) -> String {
    format!("wk_plain_kernel_{i}")
}

/// The first line of `text` holding `marker`, as FILE:LINE.
fn line_of(file: &str, text: &str, marker: &str) -> String {
    let found: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(marker))
        .map(|(i, _)| i + 1)
        .collect();
    assert!(!found.is_empty(), "{file}: no line holds {marker:?}");
    format!("{file}:{}", found[0])
}

/// `WK_CORPUS_RUN(name, grid, block, count, stride)` of the dialect twin, at width `w`.
fn shape(bug: &Bug, w: u32) -> [u32; 4] {
    let text = std::fs::read_to_string(root().join(bug.source())).expect("the dialect twin");
    let args = text
        .lines()
        .find_map(|l| l.strip_prefix("WK_CORPUS_RUN("))
        .expect("a WK_CORPUS_RUN line");
    let args = args.trim_end().trim_end_matches(')');
    let eval = |e: &str| -> u32 {
        let term = |t: &str| match t.trim() {
            "WK_WARP_SIZE" => w,
            n => n.parse().unwrap_or_else(|_| panic!("{}: `{n}`", bug.name)),
        };
        if let Some((a, b)) = e.split_once('*') {
            term(a) * term(b)
        } else if let Some((a, b)) = e.split_once('/') {
            term(a) / term(b)
        } else {
            term(e)
        }
    };
    let v: Vec<u32> = args.split(',').skip(1).map(eval).collect();
    [v[0], v[1], v[2], v[3]]
}

/// Runs the twin's bug (or fixed kernel) as its dialect twin's entry point does: in and out
/// buffers, out's first `count` elements checked for stores.
fn run(bug: &Bug, width: WarpWidth, fixed: bool, schedule: Schedule) -> (Vec<i32>, Vec<Report>) {
    let t = &twins()[bug.name];
    let w = width.lanes();
    let k = &t.kernels[&(w, fixed)];
    let [grid, block, count, stride] = shape(bug, w);
    let mut out = Values::I32(vec![0; OUTPUT_LEN]);
    let kernel_line = t
        .text
        .lines()
        .position(|l| l.contains(&format!("void {}(", k.name())))
        .map_or(0, |i| i as u32 + 1);
    // SAFETY: `out` moves into `args` (its elements stay put) and lives through the launch.
    unsafe {
        user::expect_written(
            &mut out,
            count as usize,
            stride as usize,
            "out",
            &t.file,
            kernel_line,
        )
    }
    .expect("count fits");
    let mut args = [Arg::Buffer(Values::I32(input())), Arg::Buffer(out)];
    let s = Session::new(schedule);
    // SAFETY: every twin reads at most INPUT_LEN values and writes at most OUTPUT_LEN, or faults
    // (an index far out of a shared array), which abandons the launch.
    let ran = unsafe { k.launch(&s, [grid, 1, 1], [block, 1, 1], 0, &mut args) };
    let reports = s.take_reports();
    // A bug may index so far out of a shared array that it faults (warp_slot_mixed's
    // `slots[127 - slot]` with slot past 127): the launch is abandoned with a report saying so.
    if let Err(e) = ran {
        assert!(
            !fixed && reports.iter().any(|r| r.kind == HazardKind::InvalidAccess),
            "{} w{w}: {e}\n{}",
            k.name(),
            join(&reports)
        );
    }
    let Arg::Buffer(Values::I32(out)) = &args[1] else {
        unreachable!("the buffer given")
    };
    (out.clone(), reports)
}

#[test]
fn every_bug_of_the_corpus_has_a_plain_twin_with_its_line_marked() {
    let bugs = corpus::bugs();
    assert!(bugs.len() >= 38, "{} bugs", bugs.len());
    for bug in &bugs {
        let t = &twins()[bug.name];
        assert_eq!(t.text.matches("// BUG").count(), 1, "{}", t.file);
        assert!(!t.text.contains("WK_"), "{}: plain CUDA only", t.file);
        assert_eq!(t.kernels[&(32, false)].name(), bug.name);
        assert_eq!(t.kernels[&(64, true)].name(), format!("{}_fixed", bug.name));
    }
}

#[test]
fn every_plain_bug_is_reported_where_it_breaks() {
    let x = input();
    for bug in corpus::bugs() {
        let t = &twins()[bug.name];
        for width in bug.breaks_at() {
            let want = expected(bug.name, width, &x);
            let line = if want.kind == HazardKind::UnwrittenOutput {
                line_of(&t.file, &t.text, &format!("void {}(", bug.name))
            } else {
                line_of(&t.file, &t.text, "// BUG")
            };
            let (_, reports) = run(&bug, width, false, Schedule::Forward);
            let r = reports
                .iter()
                .find(|r| r.kind == want.kind && r.warp == want.warp && names(&r.detail, &line))
                .unwrap_or_else(|| {
                    panic!(
                        "{} w{width}: no {:?} report in warp {} naming {line}:\n{}",
                        bug.name,
                        want.kind,
                        want.warp,
                        join(&reports)
                    )
                });
            let what = format!("{} w{width}: {r}", bug.name);
            assert_eq!(r.kernel, bug.name, "{what}");
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
fn plain_bugs_run_clean_at_a_width_where_their_code_is_right() {
    for bug in corpus::bugs() {
        for width in WarpWidth::ALL {
            if bug.breaks_at().contains(&width) {
                continue;
            }
            let (_, reports) = run(&bug, width, false, Schedule::Forward);
            assert!(
                reports.is_empty(),
                "plain {} is right at w{width}, yet:\n{}",
                bug.name,
                join(&reports)
            );
        }
    }
}

#[test]
fn every_plain_fixed_twin_runs_clean_at_both_widths_under_every_schedule() {
    for bug in corpus::bugs() {
        for width in WarpWidth::ALL {
            for schedule in ALL {
                let (_, reports) = run(&bug, width, true, schedule);
                assert!(
                    reports.is_empty(),
                    "plain fixed {} w{width} {schedule:?}:\n{}",
                    bug.name,
                    join(&reports)
                );
            }
        }
    }
}

#[test]
fn plain_fixed_twins_compute_what_the_dialect_twins_compute() {
    let x = input();
    for bug in corpus::bugs() {
        for width in WarpWidth::ALL {
            let s = Session::new(Schedule::Forward);
            let dialect = bug.run(&s, width, true, &x).expect("the dialect twin runs");
            let (plain, _) = run(&bug, width, true, Schedule::Forward);
            assert_eq!(plain, dialect, "fixed {} w{width}", bug.name);
        }
    }
}
