//! Running every bench case on one backend: each result checked, then timed, then the copy and
//! read baselines timed right after it.

use crate::case::{Case, ExtraCases, Measured, Refused, check_size};
use crate::cases;
use crate::report::{Outcome, Row, show_n};
use crate::timing::{BenchBackend, Harness, Timing};
use std::io::{IsTerminal, Write as _};

/// Which cases and sizes to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// Keep only collectives whose name, or name and element type ("scan inclusive sum f16"),
    /// contains this.
    pub only: Option<String>,
    pub sizes: Vec<usize>,
}

/// A one-line progress indicator on stderr (rewritten in place on a terminal, one line per
/// case otherwise), so long runs show where they are without mixing into the table on stdout.
#[derive(Debug)]
pub struct Progress {
    backends: usize,
    backend: usize,
    tty: bool,
    shown: bool,
}

impl Progress {
    /// A progress line for a run over `backends` backends.
    pub fn new(backends: usize) -> Self {
        Progress {
            backends,
            backend: 0,
            tty: std::io::stderr().is_terminal(),
            shown: false,
        }
    }

    /// Shows case `done` of `total`.
    pub fn show(&mut self, done: usize, total: usize, what: &str) {
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

    /// Removes the line (before a table row is printed).
    pub fn clear(&mut self) {
        if self.shown {
            let _ = write!(std::io::stderr(), "\r\x1b[2K");
            self.shown = false;
        }
    }

    /// Moves on to the next backend.
    pub fn next_backend(&mut self) {
        self.backend += 1;
    }
}

/// Runs every selected case at every size on `b`, calling `emit` with each row and `progress`
/// before each case.
pub fn bench_one<B: ExtraCases>(
    b: &B,
    name: &str,
    opts: &Selection,
    harness: &Harness,
    emit: &mut dyn FnMut(Row),
    progress: &mut dyn FnMut(usize, usize, &str),
) {
    // The name, or the name and element type ("scan inclusive sum f16").
    let wanted = |c: &Case<B>| {
        opts.only.as_deref().is_none_or(|s| {
            c.collective.contains(s) || format!("{} {}", c.collective, c.elem).contains(s)
        })
    };
    let list: Vec<Case<B>> = cases::all::<B>()
        .into_iter()
        .chain(B::extra_cases())
        .filter(wanted)
        .collect();
    let total = list.len() * opts.sizes.len();
    let mut done = 0;
    for &n in &opts.sizes {
        // A size whose arrays cannot be made: one error row a case, nothing allocated.
        let too_large = check_size(n).err();
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
            if let Some(why) = &too_large {
                emit(Row {
                    collective: case.collective,
                    elem: case.elem,
                    n,
                    backend: name.to_string(),
                    outcome: Outcome::Error(why.clone()),
                });
                continue;
            }
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
) -> wavekit::Result<(Timing, Option<Timing>)> {
    let copy = b.copy_baseline(bytes, harness)?;
    let read = if read_only {
        b.read_baseline(bytes, harness)?
    } else {
        None
    };
    Ok((copy, read))
}
