//! `wavekit check FILE.cu --kernel NAME --grid .. --block ..`: a user's kernel compiled for the
//! SIMT executor at each selected width into a shared object this binary loads (it exports the
//! executor's symbols, tools/cli/build.rs), run on random or given inputs, and every hazard
//! reported with its kernel, block, warp, lanes and source line. The file is plain CUDA or HIP
//! as people have it (wavekit_build::plain rewrites and wraps it), or written against
//! csrc/wavekit.h with WK_EXPORT_KERNEL lines.

mod args;
mod load;

pub use args::{ArgSpec, parse_arg, parse_dim};

use crate::error::{CliError, CliResult};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
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
    /// Output elements printed per buffer.
    pub show: usize,
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

/// Runs the check; the report as text and whether it found nothing.
pub fn run(req: &Request) -> CliResult<(String, bool)> {
    if !req.file.is_file() {
        return Err(usage(format!("{}: no such file", req.file.display())));
    }
    let source = std::fs::read_to_string(&req.file).map_err(|e| io_error(&req.file, e))?;
    let dir = TempDir(std::env::temp_dir().join(format!("wavekit-check-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).map_err(|e| io_error(&dir.0, e))?;
    // A file with export lines is written against csrc/wavekit.h; anything else is plain.
    let loaded = if source.contains("WK_EXPORT_KERNEL") {
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
    let mut text = String::new();
    let mut clean = true;
    if loaded.dynamic_shared && req.dynamic_shared_bytes == 0 {
        let _ = writeln!(
            text,
            "note: the file declares dynamic shared memory (extern __shared__); --shared BYTES \
             sizes it, and none was given"
        );
    }
    for (w, k) in &loaded.kernels {
        let schedule = req.schedule.unwrap_or(match w {
            WarpWidth::W64 => Schedule::Lockstep,
            _ if loaded.hip => Schedule::Lockstep,
            WarpWidth::W32 => Schedule::Random(req.seed),
        });
        let mut args = args::arguments(k, req, len)?;
        let session = Session::new(schedule);
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
        let reports = session.take_reports();
        let params: Vec<String> = k.params().iter().map(|p| p.to_string()).collect();
        let _ = writeln!(
            text,
            "{}({}) at {} lanes, grid {:?}, block {:?}, {}: {}",
            k.name(),
            params.join(", "),
            w.lanes(),
            req.grid,
            req.block,
            schedule_name(schedule),
            match reports.len() {
                0 => "no hazard".to_string(),
                1 => "1 hazard".to_string(),
                n => format!("{n} hazards"),
            }
        );
        for r in &reports {
            let _ = writeln!(text, "  {r}");
        }
        if session.suppressed() > 0 {
            let _ = writeln!(text, "  ({} more not shown)", session.suppressed());
        }
        clean &= reports.is_empty();
        if let Err(e) = ran {
            // The reports say why (a fault, a stalled block); the outputs are partial.
            let _ = writeln!(text, "  launch abandoned: {e}");
            clean = false;
            continue;
        }
        for (label, v) in args::written(k, &args) {
            let shown: Vec<String> = (0..v.len().min(req.show)).map(|j| v.show(j)).collect();
            let more = if v.len() > req.show { ", ..." } else { "" };
            let _ = writeln!(text, "  out arg {label}: [{}{more}]", shown.join(", "));
        }
    }
    // Reports name a plain file (and the headers beside it) by the absolute path it was
    // compiled from: show the folder as the file was given.
    if let Some(abs) = &loaded.reported_as {
        let given = req.file.parent().map(|d| d.display().to_string());
        let given = match given.as_deref() {
            None | Some("") => String::new(),
            Some(d) => format!("{d}/"),
        };
        text = text.replace(&format!("{abs}/"), &given);
    }
    Ok((text, clean))
}
