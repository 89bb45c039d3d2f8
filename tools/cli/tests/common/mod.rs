//! What the `wavekit check` tests on plain sources share: running the binary on a fixture of
//! tests/plain and finding a line of it.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// The path of `path` under tests/plain.
pub fn fixture(path: &str) -> String {
    format!("{}/../../tests/plain/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// `wavekit check FIXTURE ARGS...` run to its end.
pub fn run(file: &str, args: &[&str]) -> Output {
    run_path(Path::new(&fixture(file)), args)
}

/// `wavekit check PATH ARGS...` run to its end (a file the test wrote).
pub fn run_path(path: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wavekit"))
        .arg("check")
        .arg(path)
        .args(args)
        .output()
        .expect("the binary runs")
}

/// The values `out arg LABEL: [...]` of `text` (one run's output) shows, as numbers.
pub fn values(text: &str, label: &str) -> Vec<i64> {
    let head = format!("out arg {label}: [");
    let line = text
        .lines()
        .find_map(|l| l.trim_start().strip_prefix(&head))
        .unwrap_or_else(|| panic!("no output {label} in\n{text}"));
    line.trim_end_matches(']')
        .split(", ")
        .filter(|v| *v != "...")
        .map(|v| v.parse().unwrap_or_else(|_| panic!("{v:?} in {line}")))
        .collect()
}

/// `wavekit check FIXTURE ARGS...`: its exit code and its stdout and stderr.
pub fn check(file: &str, args: &[&str]) -> (Option<i32>, String) {
    check_path(Path::new(&fixture(file)), args)
}

/// `wavekit check PATH ARGS...`: its exit code and its stdout and stderr.
pub fn check_path(path: &Path, args: &[&str]) -> (Option<i32>, String) {
    let o = run_path(path, args);
    let text = format!(
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code(), text)
}

/// `wavekit check FIXTURE ARGS...`: its exit code, its stdout and its stderr apart.
pub fn check_stdout(file: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let o = run(file, args);
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The line number (from 1) of the `nth` line of the fixture holding `marker`.
pub fn line_no(file: &str, marker: &str, nth: usize) -> usize {
    let src = std::fs::read_to_string(fixture(file)).expect("the fixture");
    src.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(marker))
        .nth(nth - 1)
        .unwrap_or_else(|| panic!("{file}: no line {nth} holds {marker:?}"))
        .0
        + 1
}

/// `NAME:LINE` of the `nth` line (from 1) of the fixture holding `marker`.
pub fn nth_line_of(file: &str, marker: &str, nth: usize) -> String {
    let name = file.rsplit('/').next().expect("a file name");
    format!("{name}:{}", line_no(file, marker, nth))
}

/// `NAME:LINE` of the first line of the fixture holding `marker`.
pub fn line_of(file: &str, marker: &str) -> String {
    nth_line_of(file, marker, 1)
}

/// The output of the run of `kernel` at `lanes` lanes (from its header to the next one).
pub fn at(text: &str, kernel: &str, lanes: u32) -> String {
    let head = format!("{kernel}(");
    let mut out = String::new();
    let mut inside = false;
    for l in text.lines() {
        if l.starts_with(&head) || (!l.starts_with(' ') && l.contains(" lanes, grid")) {
            inside = l.starts_with(&head) && l.contains(&format!(" at {lanes} lanes"));
        }
        if inside {
            out += l;
            out += "\n";
        }
    }
    assert!(
        !out.is_empty(),
        "no run of {kernel} at {lanes} lanes in\n{text}"
    );
    out
}
