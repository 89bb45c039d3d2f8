//! `wavekit bench`: checked throughput of each collective, against a copy of the same bytes
//! measured in the same run on the same backend.

mod cases;
#[cfg(test)]
mod tests;
pub mod timing;

use super::error::{CliError, CliResult};
use super::registry::{self, BackendKind, with_backend};
use crate::width::WarpWidth;
use cases::{Measured, Refused};
use std::fmt::Write as _;
use std::time::Duration;
use timing::{BenchBackend, Harness, Timing};

pub struct Options {
    pub backend: Option<BackendKind>,
    pub warp: Option<WarpWidth>,
    pub sizes: Vec<usize>,
    pub reps: usize,
    /// Keep only collectives whose name contains this.
    pub only: Option<String>,
    pub csv: Option<String>,
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
    },
    Wrong(String),
    Error(String),
}

/// (collective GB/s, copy GB/s): the copy reads and writes its bytes.
fn rates(timing: &Timing, bytes: u64, copy: &Timing, copy_bytes: u64) -> (f64, f64) {
    (timing.gb_per_s(bytes), copy.gb_per_s(2 * copy_bytes))
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
        "median of {} reps after 1 warm-up; GB/s counts bytes read + written; copy = the same input \
         bytes copied on the same backend in this run (read + write)",
        harness.reps
    );
    println!("{}", layout.header());
    let mut rows = Vec::new();
    for any in &selected.backends {
        let name = any.name();
        with_backend!(any, |b| bench_one(
            b,
            &name,
            opts,
            &harness,
            &mut |row: Row| {
                println!("{}", layout.line(&row));
                rows.push(row);
            }
        ));
    }
    if rows.is_empty() {
        return Err(CliError::Usage(format!(
            "no collective matches `{}`",
            opts.only.as_deref().unwrap_or("")
        )));
    }
    if let Some(path) = &opts.csv {
        std::fs::write(path, csv(&rows)).map_err(|error| CliError::Io {
            path: path.clone(),
            error,
        })?;
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

fn bench_one<B: BenchBackend>(
    b: &B,
    name: &str,
    opts: &Options,
    harness: &Harness,
    emit: &mut dyn FnMut(Row),
) {
    let wanted = |c: &cases::Case<B>| {
        opts.only
            .as_deref()
            .is_none_or(|s| c.collective.contains(s))
    };
    for &n in &opts.sizes {
        for case in cases::all::<B>().into_iter().filter(wanted) {
            let outcome = match (case.run)(b, harness, n) {
                // The copy is timed right after the collective, so both see the same machine
                // load and clocks.
                Ok(Measured {
                    timing,
                    bytes,
                    input_bytes,
                }) => match b.copy_baseline(input_bytes as usize, harness) {
                    Ok(copy) => Outcome::Measured {
                        timing,
                        bytes,
                        copy,
                        copy_bytes: input_bytes,
                    },
                    Err(e) => Outcome::Error(format!("copy baseline failed: {e}")),
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

struct Layout {
    name_w: usize,
}

impl Layout {
    fn header(&self) -> String {
        let w = self.name_w;
        format!(
            "{:<20} {:<4} {:>8} {:<w$} {:>11} {:>9} {:>7}",
            "collective", "type", "n", "backend", "median", "GB/s", "% copy"
        )
    }

    fn line(&self, r: &Row) -> String {
        let w = self.name_w;
        let head = format!(
            "{:<20} {:<4} {:>8} {:<w$}",
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
            } => {
                let (gbs, copy_gbs) = rates(timing, *bytes, copy, *copy_bytes);
                let median = show_time(timing.median());
                format!(
                    "{head} {median:>11} {gbs:>9.2} {:>6.1}%",
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
        "collective,type,n,backend,median_s,min_s,reps,bytes,gb_per_s,copy_gb_per_s,pct_of_copy,status\n",
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
            } => {
                let (gbs, copy_gbs) = rates(timing, *bytes, copy, *copy_bytes);
                let _ = writeln!(
                    out,
                    "{:e},{:e},{},{},{:.4},{:.4},{:.2},ok",
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
                let _ = writeln!(out, ",,,,,,,wrong: {}", clean(d));
            }
            Outcome::Error(e) => {
                let _ = writeln!(out, ",,,,,,,error: {}", clean(e));
            }
        }
    }
    out
}
