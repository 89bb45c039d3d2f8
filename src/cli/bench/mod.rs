//! `wavekit bench`: checked throughput of each collective, against a copy of the same bytes
//! measured in the same run on the same backend.

pub mod cases;
#[cfg(feature = "cuda")]
pub mod cuda;
pub mod job;
mod plot;
#[cfg(test)]
mod tests;
pub mod timing;

use super::error::{CliError, CliResult};
use super::registry::{self, BackendKind, with_backend};
use crate::width::WarpWidth;
use cases::{Measured, Refused};
use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::time::Duration;
use timing::{Baseline, BenchBackend, Harness, Timing};

pub struct Options {
    pub backend: Option<BackendKind>,
    pub warp: Option<WarpWidth>,
    pub sizes: Vec<usize>,
    pub reps: usize,
    /// Keep only collectives whose name contains this.
    pub only: Option<String>,
    pub csv: Option<String>,
    /// Also draw GB/s against n per backend (SVG) to this file.
    pub plot: Option<String>,
}

/// One printed row.
pub struct Row {
    pub collective: &'static str,
    pub elem: &'static str,
    pub n: usize,
    pub backend: String,
    pub outcome: Outcome,
}

pub enum Outcome {
    Measured {
        timing: Timing,
        bytes: u64,
        copy: Timing,
        copy_bytes: u64,
        /// Reading the input once, for collectives that only read.
        read: Option<Timing>,
        baseline: Option<Baseline>,
    },
    Wrong(String),
    Error(String),
}

/// (collective GB/s, copy GB/s): the copy reads and writes its bytes.
fn rates(timing: &Timing, bytes: u64, copy: &Timing, copy_bytes: u64) -> (f64, f64) {
    (timing.gb_per_s(bytes), copy.gb_per_s(2 * copy_bytes))
}

/// How many times faster than the baseline (its median over ours).
pub fn speedup(timing: &Timing, baseline: &Baseline) -> f64 {
    baseline.timing.median().as_secs_f64() / timing.median().as_secs_f64()
}

/// Runs the bench, printing rows as they come; `Ok(true)` when every result was right.
pub fn run(opts: &Options) -> CliResult<bool> {
    let selected = registry::select(opts.backend, opts.warp)?;
    for (kind, why) in &selected.skipped {
        println!("skipped {}: {why}", kind.name());
    }
    if selected.backends.is_empty() {
        return Err(CliError::Usage("no backend to bench".into()));
    }
    let harness = Harness {
        warmup: 1,
        reps: opts.reps,
    };
    let name_w = selected
        .backends
        .iter()
        .map(|b| b.name().len())
        .max()
        .unwrap_or(0);
    let layout = Layout {
        name_w: name_w.max("backend".len()),
    };
    println!(
        "median of {} reps after 1 warm-up; GB/s counts the bytes the collective must move (input \
         read once + output written); % copy = of the same input copied on the same backend in \
         this run (read + write); % read = of the input read once (read-only collectives); ratio \
         = baseline's median time / ours (> 1: faster than the baseline)",
        harness.reps
    );
    println!("{}", layout.header());
    let mut rows = Vec::new();
    let progress = std::cell::RefCell::new(Progress::new(selected.backends.len()));
    for any in &selected.backends {
        let name = any.name();
        with_backend!(any, |b| bench_one(
            b,
            &name,
            opts,
            &harness,
            &mut |row: Row| {
                progress.borrow_mut().clear();
                println!("{}", layout.line(&row));
                rows.push(row);
            },
            &mut |done, total, what: &str| progress.borrow_mut().show(done, total, what),
        ));
        progress.borrow_mut().next_backend();
    }
    progress.borrow_mut().clear();
    if rows.is_empty() {
        return Err(CliError::Usage(format!(
            "no collective matches `{}`",
            opts.only.as_deref().unwrap_or("")
        )));
    }
    if let Some(path) = &opts.csv {
        write_file(path, &csv(&rows))?;
        println!("wrote {path}");
    }
    if let Some(path) = &opts.plot {
        write_file(path, &plot::svg(&rows))?;
        println!("wrote {path}");
    }
    let bad = rows
        .iter()
        .filter(|r| !matches!(r.outcome, Outcome::Measured { .. }))
        .count();
    println!(
        "bench: {} checked and timed, {bad} refused (wrong result or error: no number)",
        rows.len() - bad
    );
    Ok(bad == 0)
}

/// `wavekit bench --ladder`: the seed ladder on the first CUDA device (CUDA builds only).
pub fn run_ladder(opts: &Options) -> CliResult<bool> {
    #[cfg(feature = "cuda")]
    {
        let b = crate::cuda::open(0)?;
        let harness = Harness {
            warmup: 1,
            reps: opts.reps,
        };
        println!("device: {}", crate::backend::Backend::name(&b));
        let ladder = cuda::ladder::run(&b, &harness)?;
        print!("{}", cuda::ladder::table(&ladder));
        if let Some(path) = &opts.csv {
            write_file(path, &cuda::ladder::csv(&ladder))?;
            println!("wrote {path}");
        }
        Ok(true)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = opts;
        Err(CliError::Usage(
            "--ladder runs CUDA kernels: build with --features cuda".into(),
        ))
    }
}

fn write_file(path: &str, text: &str) -> CliResult<()> {
    std::fs::write(path, text).map_err(|error| CliError::Io {
        path: path.to_string(),
        error,
    })
}

/// A one-line progress indicator on stderr (rewritten in place on a terminal, one line per
/// case otherwise), so long runs show where they are without mixing into the table on stdout.
struct Progress {
    backends: usize,
    backend: usize,
    tty: bool,
    shown: bool,
}

impl Progress {
    fn new(backends: usize) -> Self {
        Progress {
            backends,
            backend: 0,
            tty: std::io::stderr().is_terminal(),
            shown: false,
        }
    }

    fn show(&mut self, done: usize, total: usize, what: &str) {
        let line = format!(
            "[backend {}/{}] [{}/{total}] {what}",
            self.backend + 1,
            self.backends,
            done + 1
        );
        let mut err = std::io::stderr();
        if self.tty {
            let _ = write!(err, "\r\x1b[2K{line}");
            self.shown = true;
        } else {
            let _ = writeln!(err, "{line}");
        }
        let _ = err.flush();
    }

    fn clear(&mut self) {
        if self.shown {
            let _ = write!(std::io::stderr(), "\r\x1b[2K");
            self.shown = false;
        }
    }

    fn next_backend(&mut self) {
        self.backend += 1;
    }
}

fn bench_one<B: BenchBackend>(
    b: &B,
    name: &str,
    opts: &Options,
    harness: &Harness,
    emit: &mut dyn FnMut(Row),
    progress: &mut dyn FnMut(usize, usize, &str),
) {
    let wanted = |c: &cases::Case<B>| {
        opts.only
            .as_deref()
            .is_none_or(|s| c.collective.contains(s))
    };
    let list: Vec<cases::Case<B>> = cases::all::<B>()
        .into_iter()
        .chain(B::extra_cases())
        .filter(wanted)
        .collect();
    let total = list.len() * opts.sizes.len();
    let mut done = 0;
    for &n in &opts.sizes {
        for case in &list {
            progress(
                done,
                total,
                &format!(
                    "{} {} n={} on {name}",
                    case.collective,
                    case.elem,
                    show_n(n)
                ),
            );
            done += 1;
            let outcome = match (case.run)(b, harness, n) {
                // The baselines are timed right after the collective, so all see the same
                // machine load and clocks.
                Ok(Measured {
                    timing,
                    bytes,
                    input_bytes,
                    baseline,
                    read_only,
                }) => match baselines(b, input_bytes as usize, read_only, harness) {
                    Ok((copy, read)) => Outcome::Measured {
                        timing,
                        bytes,
                        copy,
                        copy_bytes: input_bytes,
                        read,
                        baseline,
                    },
                    Err(e) => Outcome::Error(format!("copy/read baseline failed: {e}")),
                },
                Err(Refused::Wrong(detail)) => Outcome::Wrong(detail),
                Err(Refused::Error(e)) => Outcome::Error(e.to_string()),
            };
            emit(Row {
                collective: case.collective,
                elem: case.elem,
                n,
                backend: name.to_string(),
                outcome,
            });
        }
    }
}

fn baselines<B: BenchBackend>(
    b: &B,
    bytes: usize,
    read_only: bool,
    harness: &Harness,
) -> crate::error::Result<(Timing, Option<Timing>)> {
    let copy = b.copy_baseline(bytes, harness)?;
    let read = if read_only {
        b.read_baseline(bytes, harness)?
    } else {
        None
    };
    Ok((copy, read))
}

struct Layout {
    name_w: usize,
}

impl Layout {
    fn header(&self) -> String {
        let w = self.name_w;
        format!(
            "{:<24} {:<4} {:>8} {:<w$} {:>11} {:>9} {:>7} {:>7} {:>14}",
            "collective", "type", "n", "backend", "median", "GB/s", "% copy", "% read", "ratio"
        )
    }

    fn line(&self, r: &Row) -> String {
        let w = self.name_w;
        let head = format!(
            "{:<24} {:<4} {:>8} {:<w$}",
            r.collective,
            r.elem,
            show_n(r.n),
            r.backend
        );
        match &r.outcome {
            Outcome::Measured {
                timing,
                bytes,
                copy,
                copy_bytes,
                read,
                baseline,
            } => {
                let (gbs, copy_gbs) = rates(timing, *bytes, copy, *copy_bytes);
                let median = show_time(timing.median());
                let read = read.as_ref().map_or("-".to_string(), |t| {
                    format!("{:.1}%", 100.0 * gbs / t.gb_per_s(*copy_bytes))
                });
                let ratio = baseline.as_ref().map_or("-".to_string(), |bl| {
                    format!("{:.2}x {}", speedup(timing, bl), bl.name)
                });
                format!(
                    "{head} {median:>11} {gbs:>9.2} {:>6.1}% {read:>7} {ratio:>14}",
                    100.0 * gbs / copy_gbs
                )
            }
            Outcome::Wrong(d) => format!("{head} REFUSED, wrong result: {d}"),
            Outcome::Error(e) => format!("{head} FAILED: {e}"),
        }
    }
}

/// Powers of two as `2^k`, other counts as they are.
pub fn show_n(n: usize) -> String {
    if n.is_power_of_two() && n >= 1024 {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

fn show_time(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 1e-6 {
        format!("{:.0} ns", s * 1e9)
    } else if s < 1e-3 {
        format!("{:.1} us", s * 1e6)
    } else if s < 1.0 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{s:.3} s")
    }
}

/// Every row; refused rows keep their status and leave the numbers empty.
pub fn csv(rows: &[Row]) -> String {
    let mut out = String::from(
        "collective,type,n,backend,median_s,min_s,reps,bytes,gb_per_s,copy_gb_per_s,pct_of_copy,\
         read_gb_per_s,pct_of_read,baseline,baseline_gb_per_s,ratio,status\n",
    );
    let clean = |s: &str| s.replace([',', '\n'], ";");
    for r in rows {
        let _ = write!(
            out,
            "{},{},{},{},",
            clean(r.collective),
            r.elem,
            r.n,
            clean(&r.backend)
        );
        match &r.outcome {
            Outcome::Measured {
                timing,
                bytes,
                copy,
                copy_bytes,
                read,
                baseline,
            } => {
                let (gbs, copy_gbs) = rates(timing, *bytes, copy, *copy_bytes);
                let (read_gbs, pct_read) =
                    read.as_ref().map_or((String::new(), String::new()), |t| {
                        let rg = t.gb_per_s(*copy_bytes);
                        (format!("{rg:.4}"), format!("{:.2}", 100.0 * gbs / rg))
                    });
                let (bl_name, bl_gbs, ratio) =
                    baseline
                        .as_ref()
                        .map_or((String::new(), String::new(), String::new()), |bl| {
                            (
                                clean(bl.name),
                                format!("{:.4}", bl.timing.gb_per_s(*bytes)),
                                format!("{:.4}", speedup(timing, bl)),
                            )
                        });
                let _ = writeln!(
                    out,
                    "{:e},{:e},{},{},{:.4},{:.4},{:.2},{read_gbs},{pct_read},{bl_name},{bl_gbs},{ratio},ok",
                    timing.median().as_secs_f64(),
                    timing.min().as_secs_f64(),
                    timing.samples.len(),
                    bytes,
                    gbs,
                    copy_gbs,
                    100.0 * gbs / copy_gbs
                );
            }
            Outcome::Wrong(d) => {
                let _ = writeln!(out, ",,,,,,,,,,,,wrong: {}", clean(d));
            }
            Outcome::Error(e) => {
                let _ = writeln!(out, ",,,,,,,,,,,,error: {}", clean(e));
            }
        }
    }
    out
}
