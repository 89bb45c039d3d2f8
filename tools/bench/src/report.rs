//! The bench's results: one row per collective, size and backend, printed as a table line,
//! written as CSV, or drawn (plot.rs).

use crate::timing::{Baseline, Timing};
use std::fmt::Write as _;
use std::time::Duration;

/// One printed row.
#[derive(Clone, Debug)]
pub struct Row {
    pub collective: &'static str,
    pub elem: &'static str,
    pub n: usize,
    pub backend: String,
    pub outcome: Outcome,
}

#[derive(Clone, Debug)]
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
pub(crate) fn rates(timing: &Timing, bytes: u64, copy: &Timing, copy_bytes: u64) -> (f64, f64) {
    (timing.gb_per_s(bytes), copy.gb_per_s(2 * copy_bytes))
}

/// How many times faster than the baseline (its median over ours).
pub fn speedup(timing: &Timing, baseline: &Baseline) -> f64 {
    baseline.timing.median().as_secs_f64() / timing.median().as_secs_f64()
}

/// The table's column layout: the backend column fits the longest name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub name_w: usize,
}

impl Layout {
    /// The header line.
    pub fn header(&self) -> String {
        let w = self.name_w;
        format!(
            "{:<24} {:<4} {:>8} {:<w$} {:>11} {:>9} {:>7} {:>7} {:>14}",
            "collective", "type", "n", "backend", "median", "GB/s", "% copy", "% read", "ratio"
        )
    }

    /// One row as a table line.
    pub fn line(&self, r: &Row) -> String {
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
