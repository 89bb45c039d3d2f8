//! `wavekit check` refuses what the executor cannot model only where the checked kernel
//! reaches it (its call graph through the file's functions), with the construct and its line:
//! the other kernels of the same file run, vendor libraries' headers parse, and a grid group
//! runs but for its barrier, which needs a cooperative launch (`--cooperative`).

#![cfg(feature = "simt")]

mod common;
use common::{at, check, check_stdout, line_no, line_of};

const F: &str = "kernels/per_kernel.cu";

#[test]
fn a_kernel_runs_beside_kernels_that_reach_what_cannot_be_modelled() {
    // The file includes cuBLAS and cuRAND headers, defines a helper in PTX and a kernel with
    // grid.sync(); `twice` reaches none of them.
    let (code, t) = check(
        F,
        &[
            "--kernel", "twice", "--block", "64", "--arg", "0=1,2,3", "--show", "3",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    assert_eq!(t.matches("out arg 1: [2, 4, 6, ...]").count(), 2, "{t}");
}

#[test]
fn a_grid_group_runs_for_its_ranks_and_sizes() {
    let (code, t) = check(
        F,
        &[
            "--kernel",
            "grid_ranks",
            "--grid",
            "2",
            "--block",
            "64",
            "--show",
            "2",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    // 128 threads in 2 blocks: thread r writes r * 1000 + 1280 + 2.
    assert_eq!(t.matches("out arg 0: [1282, 2282, ...]").count(), 2, "{t}");
    assert!(at(&t, "grid_ranks", 64).contains(": no hazard"), "{t}");
}

#[test]
fn grid_sync_is_refused_at_its_line_unless_the_launch_is_cooperative() {
    let (code, t) = check(F, &["--kernel", "grid_total", "--block", "64"]);
    assert_eq!(code, Some(1), "{t}");
    assert!(
        t.contains(&format!("{}: `grid.sync()`", line_of(F, "grid.sync()"))),
        "{t}"
    );
    assert!(
        t.contains("cudaLaunchCooperativeKernel") && t.contains("pass --cooperative"),
        "{t}"
    );
    // A cooperative launch runs it: 2 blocks of 64 ones add up to 128 before the barrier,
    // which thread 0 copies after it.
    let (code, t) = check(
        F,
        &[
            "--kernel",
            "grid_total",
            "--cooperative",
            "--grid",
            "2",
            "--block",
            "64",
            "--arg",
            "0=1",
            "--show",
            "3",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    assert_eq!(t.matches("out arg 1: [128, 128, 0, ...]").count(), 2, "{t}");
}

#[test]
fn json_gives_a_refusal_with_its_file_and_line_and_no_runs() {
    let (code, out, err) = check_stdout(F, &["--kernel", "grid_total", "--block", "64", "--json"]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert_eq!(out.trim_end().matches('\n').count(), 0, "one line: {out}");
    assert!(out.starts_with("{\"schema\": 1, "), "{out}");
    assert!(
        out.contains(&format!(
            "per_kernel.cu\", \"line\": {}, \"message\": \"`grid.sync()`",
            line_no(F, "grid.sync()", 1)
        )),
        "{out}"
    );
    assert!(out.contains("\"runs\": [], \"summary\": []"), "{out}");
    // A kernel that runs: the same schema, nothing refused.
    let (code, out, err) = check_stdout(F, &["--kernel", "twice", "--block", "64", "--json"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("\"refused\": null"), "{out}");
}

#[test]
fn what_a_helper_reaches_is_refused_with_the_helpers_line() {
    let (code, t) = check(F, &["--kernel", "lanes", "--block", "64"]);
    assert_eq!(code, Some(1), "{t}");
    assert!(
        t.contains(&format!(
            "{}: `asm`: inline assembly",
            line_of(F, "asm volatile")
        )),
        "{t}"
    );
    assert!(t.contains("in `lane_ptx`, which the kernel reaches"), "{t}");
    let (code, t) = check(F, &["--kernel", "jitter", "--block", "64"]);
    assert_eq!(code, Some(1), "{t}");
    assert!(
        t.contains(&format!(
            "{}: `curandState`: cuRAND",
            line_of(F, "curand_uniform")
        )),
        "{t}"
    );
}
