//! The kernels a check runs, built for the executor at each width and loaded: from a plain
//! CUDA or HIP file (wavekit_kernels::plain), or from one written against csrc/wavekit.h with
//! WK_EXPORT_KERNEL lines (wavekit_kernels::user::executor_args).

use super::{Request, usage};
use crate::error::CliResult;
use std::path::{Path, PathBuf};
use std::process::Command;
use wavekit::simt::user::{Kernel, Library};
use wavekit::width::WarpWidth;
use wavekit_kernels::plain::{self, Program};

/// The kernels asked for, each at every width asked for; what the source says of its
/// schedule and shared memory; the absolute folder its reports name its files in.
pub struct Loaded {
    pub kernels: Vec<(WarpWidth, Kernel)>,
    /// HIP: AMD's lockstep wave is its schedule at either width.
    pub hip: bool,
    /// It declares dynamic shared memory, which --shared sizes.
    pub dynamic_shared: bool,
    pub reported_as: Option<String>,
    /// The toolchain a plain file was read and built as, in words ("" for the dialect).
    pub toolchain: String,
}

/// A shared object of the dialect file `file` built for the executor at `width` lanes, in
/// `dir`.
fn compile_dialect(file: &Path, width: WarpWidth, dir: &Path) -> CliResult<PathBuf> {
    let so = dir.join(format!("user_w{}.so", width.lanes()));
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    let out = Command::new(&cxx)
        .args(wavekit_kernels::user::executor_args(width.lanes()))
        .args(["-fPIC", "-shared", "-o"])
        .arg(&so)
        .arg(file)
        .output()
        .map_err(|e| usage(format!("cannot run {cxx}: {e}")))?;
    if !out.status.success() {
        return Err(usage(format!(
            "{} does not build for the executor at {} lanes:\n{}",
            file.display(),
            width.lanes(),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(so)
}

/// The kernels of a file written against csrc/wavekit.h.
pub fn dialect(req: &Request, dir: &Path) -> CliResult<Loaded> {
    let mut kernels = Vec::new();
    for &w in &req.widths {
        let so = compile_dialect(&req.file, w, dir)?;
        // SAFETY: a library built just now from the user's file against this binary's
        // executor.
        let lib = unsafe { Library::open(&so) }?;
        for name in &req.kernels {
            let symbol = format!(
                "{}_kernel_{name}",
                wavekit_kernels::user::namespace(w.lanes())
            );
            let k = lib.kernel(&symbol).map_err(|_| {
                usage(format!(
                    "no kernel `{name}` exported from the file (WK_EXPORT_KERNEL({name}) \
                     defines {symbol})"
                ))
            })?;
            kernels.push((w, k));
        }
    }
    Ok(Loaded {
        kernels,
        hip: false,
        dynamic_shared: false,
        reported_as: None,
        toolchain: String::new(),
    })
}

/// The kernels of a plain CUDA or HIP file.
pub fn plain(req: &Request, dir: &Path) -> CliResult<Loaded> {
    let mut p = Program::read_as(&req.file, &req.include_dirs, &req.toolchain)?;
    p.set_cooperative(req.cooperative);
    let exprs = req
        .kernels
        .iter()
        .map(|k| p.resolve(k))
        .collect::<Result<Vec<_>, _>>()?;
    let wrapper = p.write(dir, &exprs)?;
    let mut kernels = Vec::new();
    for &w in &req.widths {
        let so = plain::shared_object(&p, &wrapper, w.lanes(), dir)?;
        // SAFETY: a library built just now from the user's file against this binary's
        // executor.
        let lib = unsafe { Library::open(&so) }?;
        for i in 0..exprs.len() {
            kernels.push((w, lib.kernel(&plain::symbol(i))?));
        }
    }
    Ok(Loaded {
        kernels,
        hip: p.is_hip(),
        dynamic_shared: p.dynamic_shared(),
        reported_as: p.path().parent().map(|d| d.display().to_string()),
        toolchain: p.toolchain().describe(p.is_hip()),
    })
}
