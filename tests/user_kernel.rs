//! A user's kernel round trip: examples/warp_count.cu, written against csrc/wavekit.h and
//! compiled by wavekit_kernels::user::executor from tests/build.rs as a user's build script would,
//! run at 32 and 64 lanes under the executor. The right kernel gives the counts a plain loop
//! gives and no report; its CUDA-style twin (`__popc` on the ballot) is reported at 64 lanes, at
//! its source line, with CUDA's low-32-bit counts, and runs clean at 32.

#![cfg(feature = "simt")]

// The package's library carries the example kernels tests/build.rs compiled (a build script's
// libraries go to the library target); naming it links them into this test.
extern crate wavekit_tests;

use wavekit::WarpWidth;
use wavekit::simt::user::{Arg, Param, UserKernel, Value, Values};
use wavekit::simt::{HazardKind, Report, Schedule, Session, user_kernel};

const THREADS: u32 = 256;
const N: usize = 200;

fn input() -> Vec<i32> {
    (0..N as i32).map(|i| (i * 37 + 11) % 101 - 50).collect()
}

/// Per live thread: the positives among the first `counted` lanes of its warp.
fn expected(w: usize, counted: usize) -> Vec<i32> {
    let x = input();
    (0..N)
        .map(|i| {
            let first = i - i % w;
            (first..(first + counted).min(N))
                .filter(|&j| x[j] > 0)
                .count() as i32
        })
        .collect()
}

fn run(k: &UserKernel, w: WarpWidth, schedule: Schedule) -> (Vec<i32>, Vec<Report>) {
    let s = Session::new(schedule);
    let mut args = [
        Arg::Buffer(Values::I32(input())),
        Arg::Buffer(Values::I32(vec![-1; N])),
        Arg::Scalar(Value::U32(N as u32)),
    ];
    // SAFETY: the kernel reads in[i] and writes out[i] for i < n only, and n is the buffers'
    // length.
    unsafe {
        k.at(w)
            .launch(&s, [2, 1, 1], [THREADS / 2, 1, 1], 0, &mut args)
    }
    .expect("the launch runs");
    let Arg::Buffer(Values::I32(out)) = &args[1] else {
        unreachable!("argument 1 is the i32 output")
    };
    (out.clone(), s.take_reports())
}

/// `examples/warp_count.cu:LINE` of the line holding `marker`.
fn line_of(marker: &str) -> String {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/warp_count.cu"
    ))
    .expect("the example kernel");
    let n = text
        .lines()
        .position(|l| l.contains(marker))
        .expect("the marker is in the file");
    format!("warp_count.cu:{}", n + 1)
}

#[test]
fn the_exported_signature_is_read_from_the_kernel() {
    let k = user_kernel!(count_positive).expect("both builds");
    for w in WarpWidth::ALL {
        let k = k.at(w);
        assert_eq!(k.name(), "count_positive");
        assert_eq!(k.width(), w);
        let params: Vec<String> = k.params().iter().map(|p| p.to_string()).collect();
        assert_eq!(params, ["const i32*", "i32*", "u32"]);
        assert_eq!(
            k.params()[1],
            Param::Pointer {
                elem: wavekit::simt::user::Elem::I32,
                read_only: false,
                parts: 1
            }
        );
    }
}

#[test]
fn the_right_kernel_counts_each_warp_and_runs_clean_at_both_widths() {
    let k = user_kernel!(count_positive).expect("both builds");
    for w in WarpWidth::ALL {
        for schedule in [Schedule::Lockstep, Schedule::Random(7)] {
            let (out, reports) = run(&k, w, schedule);
            assert!(reports.is_empty(), "{w:?} {schedule:?}: {reports:#?}");
            assert_eq!(out, expected(w.lanes() as usize, w.lanes() as usize));
        }
    }
}

#[test]
fn the_cuda_style_popc_is_reported_at_64_lanes_only() {
    let k = user_kernel!(count_positive_popc).expect("both builds");
    let (out, reports) = run(&k, WarpWidth::W32, Schedule::Lockstep);
    assert!(reports.is_empty(), "{reports:#?}");
    assert_eq!(out, expected(32, 32));

    let (out, reports) = run(&k, WarpWidth::W64, Schedule::Lockstep);
    // CUDA's __popc: the low 32 lanes counted.
    assert_eq!(out, expected(64, 32));
    assert!(!reports.is_empty());
    let line = line_of("// wave64: lanes 32..63 lost");
    for r in &reports {
        assert_eq!(r.kind, HazardKind::MaskNarrowed, "{r}");
        assert!(r.kernel.contains("count_positive_popc"), "{r}");
        assert!(r.detail.contains(&line), "{r} does not name {line}");
    }
    // Warps 0 and 1 of block 0 (threads 0..127) and warp 0 of block 1 (threads 128..191) hold
    // positives in lanes 32..63; block 1's warp 1 is threads 192..255, past n = 200 but for
    // lanes 0..7.
    let mut seen: Vec<([u32; 3], u32)> = reports.iter().map(|r| (r.block, r.warp)).collect();
    seen.sort();
    seen.dedup();
    assert_eq!(seen, [([0, 0, 0], 0), ([0, 0, 0], 1), ([1, 0, 0], 0)]);
}

#[test]
fn arguments_that_do_not_match_the_parameters_are_refused() {
    let k = user_kernel!(count_positive).expect("both builds");
    let s = Session::new(Schedule::Lockstep);
    let mut wrong = [
        Arg::Buffer(Values::F32(vec![0.0; N])),
        Arg::Buffer(Values::I32(vec![0; N])),
        Arg::Scalar(Value::U32(N as u32)),
    ];
    // SAFETY: refused before the kernel runs.
    let e = unsafe {
        k.at(WarpWidth::W32)
            .launch(&s, [1, 1, 1], [64, 1, 1], 0, &mut wrong)
    };
    assert!(e.is_err());
    let mut short = [Arg::Scalar(Value::U32(1))];
    // SAFETY: refused before the kernel runs.
    let e = unsafe {
        k.at(WarpWidth::W32)
            .launch(&s, [1, 1, 1], [64, 1, 1], 0, &mut short)
    };
    assert!(e.is_err());
    assert_eq!(s.launches(), 0);
}

#[test]
fn a_cooperative_session_runs_the_grid_at_once_up_to_its_limit() {
    let k = user_kernel!(count_positive).expect("both builds");
    let limit = Session::cooperative_max_threads();
    assert_eq!(limit, 16384);
    for w in WarpWidth::ALL {
        let s = Session::new(Schedule::Reverse);
        s.set_cooperative(true);
        // Both blocks co-resident: the same counts, no report.
        let mut args = [
            Arg::Buffer(Values::I32(input())),
            Arg::Buffer(Values::I32(vec![-1; N])),
            Arg::Scalar(Value::U32(N as u32)),
        ];
        // SAFETY: as in `run`: the kernel stays inside buffers of n elements.
        unsafe {
            k.at(w)
                .launch(&s, [2, 1, 1], [THREADS / 2, 1, 1], 0, &mut args)
        }
        .expect("a cooperative launch under the limit runs");
        assert_eq!(
            args[1],
            Arg::Buffer(Values::I32(expected(
                w.lanes() as usize,
                w.lanes() as usize
            )))
        );
        assert!(s.take_reports().is_empty());
        // One block past the limit: refused before anything runs, the limit named.
        let before = args.clone();
        // SAFETY: nothing runs (and the kernel would stay inside its buffers: n is theirs).
        let e = unsafe { k.at(w).launch(&s, [17, 1, 1], [1024, 1, 1], 0, &mut args) }
            .expect_err("17408 threads is past the limit");
        assert!(
            matches!(
                &e,
                wavekit::error::WavekitError::LaunchBounds {
                    got: 17408,
                    min: 1,
                    limit: 16384,
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("cooperative launch"), "{e}");
        assert_eq!(args, before);
        // Not cooperative, the same grid runs block after block.
        s.set_cooperative(false);
        // SAFETY: as above.
        unsafe { k.at(w).launch(&s, [17, 1, 1], [1024, 1, 1], 0, &mut args) }
            .expect("a launch that is not cooperative has no such limit");
    }
}
