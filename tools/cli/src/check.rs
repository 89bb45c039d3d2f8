//! `wavekit check FILE.cu --kernel NAME --grid .. --block ..`: a user's kernel, written against
//! csrc/wavekit.h and exported with WK_EXPORT_KERNEL, compiled for the SIMT executor at each
//! selected width (wavekit_build::user::executor_args, into a shared object this binary
//! loads; it exports the executor's symbols, crates/cli/build.rs), run on random or given
//! inputs, and every hazard reported with its kernel, block, warp, lanes and source line.

use crate::error::{CliError, CliResult};
use std::ffi::{CString, c_char, c_int, c_void};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use wavekit::simt::user::{Arg, Kernel, Param, RawKernel, Value, Values};
use wavekit::simt::{Schedule, Session};
use wavekit::width::WarpWidth;

unsafe extern "C" {
    fn dlopen(file: *const c_char, mode: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
    fn dlerror() -> *const c_char;
}
const RTLD_NOW: c_int = 2;

pub struct Request {
    pub file: PathBuf,
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub widths: Vec<WarpWidth>,
    /// Elements of every buffer (default: one per thread).
    pub len: Option<usize>,
    /// (parameter index, value text) from `--arg I=V`.
    pub args: Vec<(usize, String)>,
    pub seed: u64,
    /// None: lockstep at 64 lanes (AMD), a seeded random order at 32 (Volta).
    pub schedule: Option<Schedule>,
    pub dynamic_shared_bytes: usize,
    /// Output elements printed per buffer.
    pub show: usize,
}

fn usage(m: String) -> CliError {
    CliError::Usage(m)
}

/// "X", "X,Y" or "X,Y,Z" (also with x), the rest 1.
pub fn parse_dim(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split([',', 'x']).map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{s}`: give X, X,Y or X,Y,Z"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p
            .parse()
            .ok()
            .filter(|&v| v > 0)
            .ok_or_else(|| format!("`{p}` is not a positive number"))?;
    }
    Ok(d)
}

/// `I=V`: parameter index I gets V (a scalar, or a comma list for a buffer).
pub fn parse_arg(s: &str) -> Result<(usize, String), String> {
    let (i, v) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}`: write INDEX=VALUE or INDEX=V1,V2,..."))?;
    let i = i
        .trim()
        .parse()
        .map_err(|_| format!("`{i}` is not a parameter index"))?;
    Ok((i, v.to_string()))
}

/// A shared object of `file` built for the executor at `width` lanes, in `dir`.
fn compile(file: &Path, width: WarpWidth, dir: &Path) -> CliResult<PathBuf> {
    let so = dir.join(format!("user_w{}.so", width.lanes()));
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    let out = Command::new(&cxx)
        .args(wavekit_build::user::executor_args(width.lanes()))
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

fn dl_error() -> String {
    // SAFETY: dlerror returns null or a NUL-terminated message.
    let e = unsafe { dlerror() };
    if e.is_null() {
        "unknown error".into()
    } else {
        // SAFETY: as above.
        unsafe { std::ffi::CStr::from_ptr(e) }
            .to_string_lossy()
            .into_owned()
    }
}

/// Kernel `name` of the shared object `so` (never unloaded).
fn load(so: &Path, name: &str, width: WarpWidth) -> CliResult<Kernel> {
    let path = CString::new(so.as_os_str().as_encoded_bytes()).map_err(|e| usage(e.to_string()))?;
    // SAFETY: loading a library built just now from the user's file against this binary's
    // executor; it is never unloaded, so its descriptors live as long as the program.
    let handle = unsafe { dlopen(path.as_ptr(), RTLD_NOW) };
    if handle.is_null() {
        return Err(usage(format!(
            "cannot load {}: {}",
            so.display(),
            dl_error()
        )));
    }
    let symbol = format!(
        "{}_kernel_{name}",
        wavekit_build::user::namespace(width.lanes())
    );
    let c = CString::new(symbol.clone()).map_err(|e| usage(e.to_string()))?;
    // SAFETY: a symbol lookup in a live handle.
    let raw = unsafe { dlsym(handle, c.as_ptr()) } as *const RawKernel;
    if raw.is_null() {
        return Err(usage(format!(
            "no kernel `{name}` exported from the file (WK_EXPORT_KERNEL({name}) defines {symbol})"
        )));
    }
    // SAFETY: the symbol is the wk_kernel_desc WK_EXPORT_KERNEL defined, in a library that
    // stays loaded.
    Ok(unsafe { Kernel::from_raw(&*raw) }?)
}

/// SplitMix64 in [-1, 1): the inputs are the same for a seed on every machine.
fn unit_stream(seed: u64) -> impl FnMut() -> f64 {
    let mut x = seed;
    move || {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

fn arguments(k: &Kernel, req: &Request, len: usize) -> CliResult<Vec<Arg>> {
    for (i, _) in &req.args {
        if *i >= k.params().len() {
            return Err(usage(format!(
                "--arg {i}=..: `{}` has {} parameters",
                k.name(),
                k.params().len()
            )));
        }
    }
    let mut next = unit_stream(req.seed);
    k.params()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let given = req.args.iter().rev().find(|(j, _)| *j == i).map(|(_, v)| v);
            let bad = |v: &str| usage(format!("--arg {i}={v}: not a {p}"));
            Ok(match (*p, given) {
                (Param::Scalar(e), Some(v)) => {
                    Arg::Scalar(Value::parse(e, v).ok_or_else(|| bad(v))?)
                }
                // A scalar not given is the element count, the usual `n`.
                (Param::Scalar(e), None) => Arg::Scalar(
                    Value::parse(e, &len.to_string()).ok_or_else(|| bad(&len.to_string()))?,
                ),
                (Param::Pointer { elem, .. }, Some(v)) => {
                    let mut vals = Values::parse(elem, v).ok_or_else(|| bad(v))?;
                    if vals.len() < len {
                        // Repeated to fill the buffer.
                        let text = (0..len)
                            .map(|j| vals.show(j % vals.len()))
                            .collect::<Vec<_>>()
                            .join(",");
                        vals = Values::parse(elem, &text).ok_or_else(|| bad(v))?;
                    }
                    Arg::Buffer(vals)
                }
                (Param::Pointer { elem, read_only }, None) => {
                    if read_only {
                        Arg::Buffer(Values::random(elem, len, &mut next))
                    } else {
                        Arg::Buffer(Values::random(elem, len, || 0.0))
                    }
                }
            })
        })
        .collect()
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
    let dir = std::env::temp_dir().join(format!("wavekit-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|error| CliError::Io {
        path: dir.display().to_string(),
        error,
    })?;
    let threads: usize = req
        .grid
        .iter()
        .chain(&req.block)
        .map(|&d| d as usize)
        .product();
    let len = req.len.unwrap_or(threads);
    let mut text = String::new();
    let mut clean = true;
    for &w in &req.widths {
        let so = compile(&req.file, w, &dir)?;
        let k = load(&so, &req.kernel, w)?;
        let schedule = req.schedule.unwrap_or(match w {
            WarpWidth::W64 => Schedule::Lockstep,
            WarpWidth::W32 => Schedule::Random(req.seed),
        });
        let mut args = arguments(&k, req, len)?;
        let session = Session::new(schedule);
        // SAFETY: the user's kernel, run on buffers of `len` elements each; the user sizes the
        // launch and the buffers (--len) to match what the kernel touches.
        unsafe {
            k.launch(
                &session,
                req.grid,
                req.block,
                req.dynamic_shared_bytes,
                &mut args,
            )
        }?;
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
        for (i, (p, a)) in k.params().iter().zip(&args).enumerate() {
            if let (
                Param::Pointer {
                    read_only: false, ..
                },
                Arg::Buffer(v),
            ) = (p, a)
            {
                let shown: Vec<String> = (0..v.len().min(req.show)).map(|j| v.show(j)).collect();
                let more = if v.len() > req.show { ", ..." } else { "" };
                let _ = writeln!(text, "  out arg {i}: [{}{more}]", shown.join(", "));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok((text, clean))
}
