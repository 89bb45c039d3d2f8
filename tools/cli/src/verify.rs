//! `wavekit verify`: the conformance matrix on every selected backend and width, as a table.

use crate::error::{CliError, CliResult};
use crate::registry::{self, BackendKind, with_backend};
use std::fmt::Write;
use std::time::{Duration, Instant};
use wavekit::width::WarpWidth;
use wavekit_conformance::{CaseResult, Scale};

/// One backend instance's outcome.
pub struct Row {
    pub backend: String,
    pub width: WarpWidth,
    pub results: Vec<CaseResult>,
    pub time: Duration,
}

impl Row {
    pub fn passed(&self) -> usize {
        self.results.iter().filter(|r| r.passed).count()
    }

    pub fn failed(&self) -> usize {
        self.results.len() - self.passed()
    }
}

/// Runs the suite and prints as it goes; `Ok(true)` when every case of every backend passed.
pub fn run(choice: Option<BackendKind>, warp: Option<WarpWidth>, scale: Scale) -> CliResult<bool> {
    let selected = registry::select(choice, warp)?;
    for (kind, why) in &selected.skipped {
        println!("skipped {}: {why}", kind.name());
    }
    if selected.backends.is_empty() {
        return Err(CliError::Usage("no backend to verify".into()));
    }
    let mut rows = Vec::new();
    for any in &selected.backends {
        let start = Instant::now();
        // The executor simulates every lane as a fiber: the small inputs keep it to seconds.
        let scale = match any {
            #[cfg(feature = "simt")]
            registry::AnyBackend::Simt(_) => Scale::Small,
            _ => scale,
        };
        let results = with_backend!(any, |b| wavekit_conformance::run_all(b, scale));
        let row = Row {
            backend: any.name(),
            width: any.warp_width(),
            results,
            time: start.elapsed(),
        };
        println!(
            "verified {} ({} cases, {:.1} s)",
            row.backend,
            row.results.len(),
            row.time.as_secs_f64()
        );
        rows.push(row);
    }
    let (text, ok) = summarize(&rows);
    print!("{text}");
    Ok(ok)
}

/// The pass/fail table and the failed cases. A backend that ran no case counts as failed:
/// an empty suite proves nothing.
pub fn summarize(rows: &[Row]) -> (String, bool) {
    let mut out = String::new();
    let name_w = rows
        .iter()
        .map(|r| r.backend.len())
        .max()
        .unwrap_or(0)
        .max("backend".len());
    let _ = writeln!(
        out,
        "\n{:<name_w$}  {:>5}  {:>6}  {:>6}  {:>8}",
        "backend", "width", "passed", "failed", "time"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:<name_w$}  {:>5}  {:>6}  {:>6}  {:>7.2}s",
            r.backend,
            r.width.lanes(),
            r.passed(),
            r.failed(),
            r.time.as_secs_f64()
        );
    }
    let mut ok = true;
    for r in rows {
        if r.results.is_empty() {
            ok = false;
            let _ = writeln!(out, "FAIL {}: the conformance suite ran no case", r.backend);
        }
        for case in r.results.iter().filter(|c| !c.passed) {
            ok = false;
            // The suite's details usually start with the case name already.
            let detail = if case.detail.starts_with(&case.name) {
                case.detail.clone()
            } else {
                format!("{}: {}", case.name, case.detail)
            };
            let _ = writeln!(out, "FAIL {} {detail}", r.backend);
        }
    }
    let total: usize = rows.iter().map(|r| r.results.len()).sum();
    let failed: usize = rows.iter().map(Row::failed).sum();
    let _ = writeln!(out, "verify: {} passed, {} failed", total - failed, failed);
    (out, ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(name: &str, passed: bool) -> CaseResult {
        CaseResult {
            name: name.into(),
            passed,
            detail: if passed {
                String::new()
            } else {
                format!("{name}: lane 3: expected 1, got 2")
            },
            elapsed: Duration::from_millis(2),
        }
    }

    fn row(results: Vec<CaseResult>) -> Row {
        Row {
            backend: "cpu/w32".into(),
            width: WarpWidth::W32,
            results,
            time: Duration::from_millis(1500),
        }
    }

    #[test]
    fn all_passing_is_ok_and_counted() {
        let (text, ok) = summarize(&[row(vec![case("a", true), case("b", true)])]);
        assert!(ok);
        assert!(text.contains("cpu/w32     32       2       0"), "{text}");
        assert!(text.contains("verify: 2 passed, 0 failed"), "{text}");
        assert!(!text.contains("FAIL"));
    }

    #[test]
    fn a_failure_is_listed_with_its_detail_and_not_ok() {
        let (text, ok) = summarize(&[row(vec![case("a", true), case("shfl_down", false)])]);
        assert!(!ok);
        assert!(
            text.contains("FAIL cpu/w32 shfl_down: lane 3: expected 1, got 2"),
            "{text}"
        );
        assert!(text.contains("verify: 1 passed, 1 failed"), "{text}");
    }

    #[test]
    fn an_empty_suite_is_not_ok() {
        let (text, ok) = summarize(&[row(vec![])]);
        assert!(!ok);
        assert!(text.contains("ran no case"), "{text}");
    }
}
