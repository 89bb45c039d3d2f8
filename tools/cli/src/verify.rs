//! `wavekit verify`: the conformance matrix on every selected backend and width, as a table.

use crate::error::{CliError, CliResult};
use crate::registry::{self, AnyBackend, BackendKind, Selected, with_backend};
use std::fmt::Write;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use wavekit::width::WarpWidth;
use wavekit_conformance::{CaseResult, Scale};

/// One backend instance's outcome.
pub struct Row {
    /// The instance's name (e.g. `cpu/w32`).
    pub backend: String,
    /// The warp width it ran.
    pub width: WarpWidth,
    /// Every case of the suite, in order.
    pub results: Vec<CaseResult>,
    /// Wall time of the whole suite on it.
    pub time: Duration,
}

impl Row {
    /// Cases that passed.
    pub fn passed(&self) -> usize {
        self.results.iter().filter(|r| r.passed).count()
    }

    /// Cases that failed.
    pub fn failed(&self) -> usize {
        self.results.len() - self.passed()
    }
}

/// The backends `verify` runs: the one named, or every one built in, the executor included.
pub fn backends(choice: Option<BackendKind>, warp: Option<WarpWidth>) -> CliResult<Selected> {
    Ok(registry::select(choice, warp, &BackendKind::ALL)?)
}

/// Runs the suite and prints as it goes; `Ok(true)` when every case of every backend passed.
pub fn run(choice: Option<BackendKind>, warp: Option<WarpWidth>, scale: Scale) -> CliResult<bool> {
    run_on(backends(choice, warp)?, scale)
}

/// `wavekit` with no command: the suite on every backend built in, the executor on its own arch
/// layer at both widths. Its two instances on the real arch_hip.h, which run in lockstep with
/// every basic block of the AMD code path reported to the executor, took 207 of the 273 CPU
/// seconds of a whole `verify` (2 cores, 2026-11-27); they stay in `wavekit verify` and in
/// `cargo test` (tests/conformance_simt.rs), and the run says so.
pub fn run_default() -> CliResult<bool> {
    let (selected, left_out) = default_backends()?;
    if left_out > 0 {
        println!(
            "not run here: the executor on arch_hip.h at 32 and 64 lanes \
             (`wavekit verify --backend simt` runs them)"
        );
    }
    run_on(selected, Scale::Full)
}

/// What [`run_default`] verifies, and how many instances it leaves out.
pub fn default_backends() -> CliResult<(Selected, usize)> {
    let mut selected = backends(None, None)?;
    let before = selected.backends.len();
    selected.backends.retain(|b| !on_arch_hip(b));
    let left_out = before - selected.backends.len();
    Ok((selected, left_out))
}

/// Whether `any` is the executor running the kernels built against the real arch_hip.h.
fn on_arch_hip(any: &AnyBackend) -> bool {
    #[cfg(feature = "simt")]
    if let AnyBackend::Simt(b) = any {
        return b.runtime().arch() == wavekit::simt::Arch::Hip;
    }
    let _ = any;
    false
}

fn run_on(selected: Selected, scale: Scale) -> CliResult<bool> {
    for (kind, why) in &selected.skipped {
        println!("skipped {}: {why}", kind.name());
    }
    if selected.backends.is_empty() {
        return Err(CliError::Usage("no backend to verify".into()));
    }
    let start = Instant::now();
    let rows = verify_all(&selected.backends, scale);
    let (text, ok) = summarize(&rows);
    print!("{text}");
    eprintln!("verify took {:.1} s", start.elapsed().as_secs_f64());
    Ok(ok)
}

/// The suite on every backend, rows in the order given. The executor's instances run side by
/// side, one per core: each runs its lanes as fibers on one thread, and one after another they
/// took 126 of the 131 s of `verify` on 2 cores. The other backends run in turn on this
/// thread meanwhile: the CPU oracle is parallel already, and a GPU backend stays on the thread
/// that opened it.
fn verify_all(backends: &[AnyBackend], scale: Scale) -> Vec<Row> {
    let (mut side, mut here) = (Vec::new(), Vec::new());
    for (i, any) in backends.iter().enumerate() {
        match side_job(any) {
            Some(job) => side.push((i, job)),
            None => here.push(i),
        }
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(side.len());
    if !side.is_empty() {
        eprintln!(
            "verify: {} backends; the executor's {} instances {} at a time",
            backends.len(),
            side.len(),
            threads
        );
    }
    let mut rows: Vec<Option<Row>> = backends.iter().map(|_| None).collect();
    let queue = Mutex::new(side.into_iter());
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    // The lock is held only to take the next job, never while it runs.
                    while let Some((i, job)) = next(&queue) {
                        done.push((i, job()));
                    }
                    done
                })
            })
            .collect();
        for i in here {
            let any = &backends[i];
            rows[i] = Some(verify_one(any.name(), any.warp_width(), || {
                with_backend!(any, |b| wavekit_conformance::run_all(b, scale))
            }));
        }
        for worker in workers {
            // run_case turns a panicking case into a failed one, so a worker does not panic.
            for (i, row) in worker.join().expect("a verify worker panicked") {
                rows[i] = Some(row);
            }
        }
    });
    rows.into_iter()
        .map(|r| r.expect("every backend was verified"))
        .collect()
}

/// The suite on one backend, run by whichever thread takes it.
type SideJob<'a> = Box<dyn FnOnce() -> Row + Send + 'a>;

fn next<'a>(
    queue: &Mutex<std::vec::IntoIter<(usize, SideJob<'a>)>>,
) -> Option<(usize, SideJob<'a>)> {
    queue
        .lock()
        .expect("the queue lock is never poisoned")
        .next()
}

/// The suite on `any` as a job for another thread, for the executor (see `verify_all`); `None`
/// for a backend that runs on this thread.
fn side_job(any: &AnyBackend) -> Option<SideJob<'_>> {
    #[cfg(feature = "simt")]
    if let AnyBackend::Simt(b) = any {
        let (name, width) = (any.name(), any.warp_width());
        // The executor simulates every lane as a fiber: the small inputs keep it to seconds.
        return Some(Box::new(move || {
            verify_one(name, width, || {
                wavekit_conformance::run_all(b, Scale::Small)
            })
        }));
    }
    let _ = any;
    None
}

/// Runs `suite`, times it and says so on stderr (progress: the table is the result).
fn verify_one(backend: String, width: WarpWidth, suite: impl FnOnce() -> Vec<CaseResult>) -> Row {
    let start = Instant::now();
    let results = suite();
    let row = Row {
        backend,
        width,
        results,
        time: start.elapsed(),
    };
    eprintln!(
        "verified {} ({} cases, {:.1} s; slowest {})",
        row.backend,
        row.results.len(),
        row.time.as_secs_f64(),
        slowest(&row.results, 3)
    );
    row
}

/// The `n` slowest cases with their times, so a slow `verify` says where its time went.
fn slowest(results: &[CaseResult], n: usize) -> String {
    let mut by_time: Vec<&CaseResult> = results.iter().collect();
    by_time.sort_by_key(|c| std::cmp::Reverse(c.elapsed));
    let named: Vec<String> = by_time
        .iter()
        .take(n)
        .map(|c| format!("{} {:.1} s", c.name, c.elapsed.as_secs_f64()))
        .collect();
    named.join(", ")
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
