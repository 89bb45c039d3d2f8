//! `wavekit check` end to end on the example user kernel (examples/warp_count.cu): compiled for
//! the executor at 32 and 64 lanes, run on given and random inputs, its hazards printed with
//! kernel, block, warp, lanes and source line, and the exit code saying whether any was found.

#![cfg(feature = "simt")]

use std::process::{Command, Output};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/warp_count.cu");

fn check(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wavekit"))
        .arg("check")
        .arg(EXAMPLE)
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(o: &Output) -> String {
    format!(
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `warp_count.cu:LINE` of the line holding `marker`.
fn line_of(marker: &str) -> String {
    let src = std::fs::read_to_string(EXAMPLE).expect("the example kernel");
    let n = src
        .lines()
        .position(|l| l.contains(marker))
        .expect("marker");
    format!("warp_count.cu:{}", n + 1)
}

#[test]
fn the_right_kernel_runs_clean_and_counts_given_inputs() {
    // Positives in every other lane: each warp of W lanes counts W/2 in every lane.
    let o = check(&[
        "--kernel",
        "count_positive",
        "--block",
        "128",
        "--arg",
        "0=1,-1",
        "--show",
        "4",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(
        t.contains("count_positive(const i32*, i32*, u32) at 32 lanes"),
        "{t}"
    );
    assert!(t.contains("at 64 lanes"), "{t}");
    assert_eq!(t.matches(": no hazard").count(), 2, "{t}");
    assert!(t.contains("out arg 1: [16, 16, 16, 16, ...]"), "{t}");
    assert!(t.contains("out arg 1: [32, 32, 32, 32, ...]"), "{t}");
}

#[test]
fn the_cuda_style_popc_is_reported_at_64_lanes_with_its_line() {
    let o = check(&[
        "--kernel",
        "count_positive_popc",
        "--grid",
        "2",
        "--block",
        "128",
        "--len",
        "200",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    let (w32, w64) = t.split_once("at 64 lanes").expect("both widths run");
    assert!(
        w32.contains("at 32 lanes") && w32.contains(": no hazard"),
        "{t}"
    );
    assert!(w64.contains("MaskNarrowed in"), "{t}");
    assert!(w64.contains("count_positive_popc"), "{t}");
    assert!(w64.contains("block (0,0,0) warp 0"), "{t}");
    assert!(
        w64.contains(&line_of("// wave64: lanes 32..63 lost")),
        "{t}"
    );
}

#[test]
fn bad_requests_fail_with_a_message() {
    let o = check(&[
        "--kernel",
        "no_such_kernel",
        "--block",
        "64",
        "--warp",
        "32",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o).contains("no kernel `no_such_kernel`"),
        "{}",
        text(&o)
    );
    let o = check(&[
        "--kernel",
        "count_positive",
        "--block",
        "64",
        "--arg",
        "0=x",
    ]);
    assert!(
        text(&o).contains("--arg 0=x: not a const i32*"),
        "{}",
        text(&o)
    );
    let o = check(&["--kernel", "count_positive", "--block", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}
