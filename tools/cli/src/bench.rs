//! `wavekit bench`: every collective, checked then timed, against a copy of the same bytes
//! measured in the same run on the same backend (the harness is wavekit-bench).

use crate::error::{CliError, CliResult};
use crate::registry::{self, BackendKind, with_backend};
use std::cell::RefCell;
use wavekit::WarpWidth;
use wavekit_bench::timing::Harness;
use wavekit_bench::{Layout, Outcome, Progress, Row, Selection, bench_one, csv, plot};

/// What one bench run times, and where it also writes the rows.
pub struct Options {
    /// Only this backend; `None` is every kind of `UNNAMED` built in.
    pub backend: Option<BackendKind>,
    /// Only this warp width; `None` is every width a backend runs.
    pub warp: Option<WarpWidth>,
    /// Element counts, each case timed at each.
    pub sizes: Vec<usize>,
    /// Timed repetitions per measurement (the median is reported).
    pub reps: usize,
    /// Keep only collectives whose name, or name and element type, contains this.
    pub only: Option<String>,
    /// Also write every row to this CSV file.
    pub csv: Option<String>,
    /// Also draw GB/s against n per backend (SVG) to this file.
    pub plot: Option<String>,
}

/// The backends a bench times when none is named: the CPU at both widths and every GPU built
/// in, not the SIMT executor. It emulates each lane on the host, so its times say nothing of a
/// GPU, and at the default sizes its rows were about 7 of the 7.5 minutes of `wavekit` with no
/// command on 2 cores (issue #25); `--backend simt` still times it (and `verify` checks it).
pub const UNNAMED: [BackendKind; 3] = [BackendKind::Cpu, BackendKind::Cuda, BackendKind::Hip];

/// The backends `opts` asks for, opened: what `run` will time, without timing anything.
pub fn backends(opts: &Options) -> CliResult<registry::Selected> {
    Ok(registry::select(opts.backend, opts.warp, &UNNAMED)?)
}

/// Runs the bench, printing rows as they come; `Ok(true)` when every result was right.
pub fn run(opts: &Options) -> CliResult<bool> {
    // Sizes first: one the bench cannot make arrays of is the user's mistake, refused with its
    // reason before any backend opens or any input is made.
    for &n in &opts.sizes {
        wavekit_bench::case::check_size(n).map_err(CliError::Usage)?;
    }
    let selected = backends(opts)?;
    for (kind, why) in &selected.skipped {
        println!("skipped {}: {why}", kind.name());
    }
    let executor = selected
        .backends
        .iter()
        .any(|b| b.kind() == BackendKind::Simt);
    if BackendKind::Simt.compiled() && !executor {
        println!("not timed: simt, the executor (`wavekit bench --backend simt` times it)");
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
    let selection = Selection {
        only: opts.only.clone(),
        sizes: opts.sizes.clone(),
    };
    let progress = RefCell::new(Progress::new(selected.backends.len()));
    let csv_file = CsvFile(opts.csv.as_deref());
    for any in &selected.backends {
        let name = any.name();
        with_backend!(any, |b| bench_one(
            b,
            &name,
            &selection,
            &harness,
            &mut |row: Row| {
                progress.borrow_mut().clear();
                println!("{}", layout.line(&row));
                rows.push(row);
                // A failed write here is reported by the last write, after the loop.
                let _ = csv_file.write(&rows);
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
    csv_file.write(&rows)?;
    if let Some(path) = &opts.csv {
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
        let b = wavekit::cuda::open(0)?;
        let harness = Harness {
            warmup: 1,
            reps: opts.reps,
        };
        println!("device: {}", wavekit::Backend::name(&b));
        let ladder = wavekit_bench::cuda::ladder::run(&b, &harness)?;
        print!("{}", wavekit_bench::cuda::ladder::table(&ladder));
        if let Some(path) = &opts.csv {
            write_file(path, &wavekit_bench::cuda::ladder::csv(&ladder))?;
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

/// The `--csv` file, written again after every row: a run stopped part way (a time cap on the
/// lent GPU kills a group that runs long) keeps the rows it measured.
struct CsvFile<'a>(Option<&'a str>);

impl CsvFile<'_> {
    /// Writes every row so far (the header alone for none); nothing without `--csv`.
    fn write(&self, rows: &[Row]) -> CliResult<()> {
        match self.0 {
            Some(path) => write_file(path, &csv(rows)),
            None => Ok(()),
        }
    }
}

fn write_file(path: &str, text: &str) -> CliResult<()> {
    std::fs::write(path, text).map_err(|error| CliError::Io {
        path: path.to_string(),
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::{CsvFile, Options, run};
    use crate::error::CliError;
    use wavekit_bench::{Outcome, Row};

    #[test]
    fn a_size_past_host_memory_is_a_usage_error_before_anything_runs() {
        let opts = |sizes| Options {
            backend: None,
            warp: None,
            sizes,
            reps: 1,
            only: None,
            csv: None,
            plot: None,
        };
        // 2^40 8-byte elements: 8 TiB an array. Before the check, the first case's input
        // generator aborted the process.
        match run(&opts(vec![1 << 10, 1 << 40])) {
            Err(CliError::Usage(m)) => {
                assert!(m.contains("2^40") && m.contains("too large"), "{m}")
            }
            other => panic!("not a usage error: {:?}", other.map_err(|e| e.to_string())),
        }
    }

    #[test]
    fn the_csv_holds_the_rows_measured_so_far() {
        let dir = std::env::temp_dir().join(format!("wavekit-csv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rows.csv");
        let file = CsvFile(Some(path.to_str().unwrap()));
        let row = |n| Row {
            collective: "reduce sum",
            elem: "f32",
            n,
            backend: "cpu/w32".to_string(),
            outcome: Outcome::Error("stopped".to_string()),
        };
        let mut rows = vec![row(1024)];
        file.write(&rows).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 2, "{text}");
        rows.push(row(2048));
        file.write(&rows).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<_> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(
            lines[1].starts_with("reduce sum,f32,1024,cpu/w32,"),
            "{text}"
        );
        assert!(
            lines[2].starts_with("reduce sum,f32,2048,cpu/w32,"),
            "{text}"
        );
        // Without --csv nothing is written and nothing fails.
        CsvFile(None).write(&rows).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
