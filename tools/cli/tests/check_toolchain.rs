//! `wavekit check` reads and builds a plain file with the predefined macros of the compiler it
//! imitates (nvcc's or hipcc's, of the version and target given): the kernels an `#if` keeps
//! run, one it drops is an error naming it at its line, never the checker's generated code.

#![cfg(feature = "simt")]

mod common;
use common::{at, check, line_of};

const F: &str = "kernels/versioned.cu";

#[test]
fn a_kernel_behind_cudart_version_runs() {
    let (code, t) = check(
        F,
        &[
            "--kernel", "scale", "--block", "32", "--arg", "0=1,2", "--show", "2",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    assert_eq!(t.matches("out arg 1: [3, 6, ...]").count(), 2, "{t}");
}

#[test]
fn the_version_and_target_are_the_ones_asked_for() {
    let (code, t) = check(F, &["--kernel", "versions", "--block", "32", "--show", "1"]);
    assert_eq!(code, Some(0), "{t}");
    // __CUDA_ARCH__ 900, CUDART_VERSION 12040, minor 4, major 12.
    assert_eq!(t.matches("out arg 0: [90000044, ...]").count(), 2, "{t}");
    let (code, t) = check(
        F,
        &[
            "--kernel",
            "versions",
            "--block",
            "32",
            "--show",
            "1",
            "--cuda-version",
            "11.8",
            "--cuda-arch",
            "sm_70",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    assert_eq!(t.matches("out arg 0: [70000088, ...]").count(), 2, "{t}");
}

#[test]
fn a_kernel_an_if_drops_is_named_at_its_line() {
    let (code, t) = check(F, &["--kernel", "arch_old", "--block", "32"]);
    assert_eq!(code, Some(1), "{t}");
    assert!(
        t.contains(&format!(
            "{}: `arch_old` is not there after preprocessing",
            line_of(F, "void arch_old")
        )),
        "{t}"
    );
    assert!(t.contains("CUDA 12.4 (sm_90)"), "{t}");
    assert!(
        !t.contains("wrapper") && !t.contains("wavekit check: exports"),
        "{t}"
    );
    let (code, t) = check(
        F,
        &[
            "--kernel",
            "arch_old",
            "--block",
            "32",
            "--cuda-arch",
            "75",
            "--show",
            "1",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    assert_eq!(t.matches("out arg 0: [2, ...]").count(), 2, "{t}");
}

#[test]
fn hipccs_macros_follow_the_width_being_run() {
    let (code, t) = check(
        "kernels/hip_macros.cu",
        &["--kernel", "wave", "--block", "64", "--show", "1"],
    );
    assert_eq!(code, Some(0), "{t}");
    assert!(at(&t, "wave", 32).contains("out arg 0: [6321, ...]"), "{t}");
    assert!(at(&t, "wave", 64).contains("out arg 0: [6641, ...]"), "{t}");
}
