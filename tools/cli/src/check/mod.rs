//! `wavekit check FILE.cu --kernel NAME --grid .. --block ..`: a user's kernel compiled for the
//! SIMT executor at each selected width into a shared object this binary loads (it exports the
//! executor's symbols, tools/cli/build.rs), run on random or given inputs, and every hazard
//! reported with its kernel, block, warp, lanes and source line. The file is plain CUDA or HIP
//! as people have it (wavekit_kernels::plain rewrites and wraps it), or written against
//! csrc/wavekit.h with WK_EXPORT_KERNEL lines.

mod args;
mod load;
mod report;

pub use args::{ArgSpec, parse_arch, parse_arg, parse_dim, parse_version};

use crate::error::{CliError, CliResult};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use wavekit::error::WavekitError;
use wavekit::simt::{Schedule, Session};
use wavekit::width::WarpWidth;

pub struct Request {
    pub file: PathBuf,
    /// The kernels to run: names, or template instantiations (`reduce<float, 256>`).
    pub kernels: Vec<String>,
    /// The program's include folders (-I).
    pub include_dirs: Vec<PathBuf>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub widths: Vec<WarpWidth>,
    /// Elements of every buffer (default: one per thread).
    pub len: Option<usize>,
    /// `--arg I=V` and `--arg I.FIELD=V`.
    pub args: Vec<ArgSpec>,
    pub seed: u64,
    /// None: lockstep at 64 lanes (AMD), a seeded random order at 32 (Volta); lockstep at both
    /// for a HIP source.
    pub schedule: Option<Schedule>,
    pub dynamic_shared_bytes: usize,
    /// A cooperative launch: every block co-resident, `grid.sync()` modelled.
    pub cooperative: bool,
    /// Output elements printed per buffer.
    pub show: usize,
    /// The toolchain whose predefined macros a plain file is read and built with.
    pub toolchain: wavekit_kernels::plain::Toolchain,
    /// Reports kept of each hazard kind per run; None keeps every one.
    pub max_reports: Option<u32>,
    /// The JSON document instead of the text.
    pub json: bool,
}

fn usage(m: String) -> CliError {
    CliError::Usage(m)
}

fn io_error(path: &Path, error: std::io::Error) -> CliError {
    CliError::Io {
        path: path.display().to_string(),
        error,
    }
}

/// The build folder, removed when the check is over: the reports' lines are read from the
/// libraries in it (by addr2line) until the last launch is done.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn schedule_name(s: Schedule) -> String {
    match s {
        Schedule::Lockstep => "lockstep".into(),
        Schedule::Forward => "forward order".into(),
        Schedule::Reverse => "reverse order".into(),
        Schedule::Random(seed) => format!("random order, seed {seed}"),
    }
}

/// Runs the check; the report as text and whether it found nothing. With `--json`, a file the
/// executor cannot take (a construct it cannot model, reached by a kernel asked for) is a JSON
/// document too, whose `refused` says where and why; the exit code is the same as in text.
pub fn run(req: &Request) -> CliResult<(String, bool)> {
    match check_file(req) {
        Err(CliError::Wavekit(WavekitError::UserSource {
            file,
            line,
            message,
        })) if req.json => Ok((
            report::json_refused(&req.file.display().to_string(), &file, line, &message),
            false,
        )),
        other => other,
    }
}

fn check_file(req: &Request) -> CliResult<(String, bool)> {
    if !req.file.is_file() {
        return Err(usage(format!("{}: no such file", req.file.display())));
    }
    if req.cooperative {
        // Before anything is built: the launch would fail the same way at each width.
        let threads = req
            .grid
            .iter()
            .chain(&req.block)
            .fold(1u64, |a, &d| a.saturating_mul(u64::from(d)));
        let limit = Session::cooperative_max_threads();
        if threads > limit {
            return Err(WavekitError::LaunchBounds {
                kernel: req.kernels.join(", "),
                what: "the threads of a cooperative launch (every block co-resident, a fiber \
                       each)",
                got: threads,
                min: 1,
                limit,
            }
            .into());
        }
    }
    // Bytes: a plain file need not be UTF-8 (wavekit_kernels::plain reads it as it is).
    let source = std::fs::read(&req.file).map_err(|e| io_error(&req.file, e))?;
    let dir = TempDir(std::env::temp_dir().join(format!("wavekit-check-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).map_err(|e| io_error(&dir.0, e))?;
    // A file with export lines is written against csrc/wavekit.h; anything else is plain.
    let dialect = source.windows(16).any(|w| w == b"WK_EXPORT_KERNEL");
    let loaded = if dialect {
        load::dialect(req, &dir.0)?
    } else {
        load::plain(req, &dir.0)?
    };
    // Six u32 dimensions: their product can pass any usize.
    let threads: usize = req
        .grid
        .iter()
        .chain(&req.block)
        .try_fold(1usize, |a, &d| a.checked_mul(d as usize))
        .ok_or_else(|| {
            usage(format!(
                "--grid {:?} --block {:?}: more threads than this machine can count",
                req.grid, req.block
            ))
        })?;
    let len = req.len.unwrap_or(threads);
    let mut notes = String::new();
    let mut clean = true;
    if loaded.dynamic_shared && req.dynamic_shared_bytes == 0 {
        let _ = writeln!(
            notes,
            "note: the file declares dynamic shared memory (extern __shared__); --shared BYTES \
             sizes it, and none was given"
        );
    }
    // Reports name a plain file (and the headers beside it) by the absolute path it was
    // compiled from: show the folder as the file was given.
    let shown_path = |t: &str| match &loaded.reported_as {
        Some(abs) => {
            let given = req.file.parent().map(|d| d.display().to_string());
            let given = match given.as_deref() {
                None | Some("") => String::new(),
                Some(d) => format!("{d}/"),
            };
            t.replace(&format!("{abs}/"), &given)
        }
        None => t.to_string(),
    };
    let mut runs = Vec::new();
    for (w, k) in &loaded.kernels {
        let schedule = req.schedule.unwrap_or(match w {
            WarpWidth::W64 => Schedule::Lockstep,
            _ if loaded.hip => Schedule::Lockstep,
            WarpWidth::W32 => Schedule::Random(req.seed),
        });
        let mut args = args::arguments(k, req, len)?;
        let session = Session::new(schedule);
        session.set_report_cap(req.max_reports.unwrap_or(u32::MAX));
        session.set_cooperative(req.cooperative);
        // SAFETY: the user's kernel, run on buffers of `len` elements each, each against an
        // inaccessible page: a lane that indexes past one (or far out of a shared array)
        // faults, is reported and the launch abandoned.
        let ran = unsafe {
            k.launch_guarded(
                &session,
                req.grid,
                req.block,
                req.dynamic_shared_bytes,
                &mut args,
            )
        };
        let reports: Vec<report::Shown> = session
            .take_reports()
            .into_iter()
            .map(|r| {
                let message = shown_path(&r.detail);
                report::Shown {
                    kind: format!("{:?}", r.kind),
                    block: r.block,
                    warp: r.warp,
                    lanes: r.lanes.bits(),
                    at: report::first_site(&message),
                    text: shown_path(&r.to_string()),
                    message,
                }
            })
            .collect();
        let params: Vec<String> = k.params().iter().map(|p| p.to_string()).collect();
        clean &= reports.is_empty();
        let mut run = report::Run {
            kernel: format!("{}({})", k.name(), params.join(", ")),
            width: w.lanes(),
            grid: req.grid,
            block: req.block,
            schedule: if req.cooperative {
                format!("{}, cooperative launch", schedule_name(schedule))
            } else {
                schedule_name(schedule)
            },
            reports,
            suppressed: session.suppressed(),
            abandoned: None,
            outputs: Vec::new(),
        };
        match ran {
            // The reports say why (a fault, a stalled block); the outputs are partial.
            Err(e) => {
                run.abandoned = Some(e.to_string());
                clean = false;
            }
            Ok(_) => {
                for (label, v) in args::written(k, &args) {
                    let shown: Vec<String> =
                        (0..v.len().min(req.show)).map(|j| v.show(j)).collect();
                    run.outputs.push((label, shown, v.len() > req.show));
                }
            }
        }
        runs.push(run);
    }
    let text = if req.json {
        report::json(
            &req.file.display().to_string(),
            &loaded.toolchain,
            &runs,
            clean,
        )
    } else {
        notes + &report::text(&runs)
    };
    Ok((text, clean))
}
