//! A kernel source held in a string, as a program compiles it at run time with NVRTC or hipRTC
//! (`wavekit::cuda::rtc`, `wavekit::hip::rtc`), built for the executor at 32 and 64 lanes and
//! checked there: [`SourceBuild`] compiles it with the host C++ compiler (`$CXX`, else `c++`)
//! against the device API's headers embedded in the library (no checkout needed), and
//! [`check_source`] runs one kernel at both widths and returns the hazard reports.
//!
//! The source is either written against csrc/wavekit.h (docs/DEVICE_API.md: kernels between
//! `WK_KERNELS_BEGIN` and `WK_KERNELS_END`, each named by a `WK_EXPORT_KERNEL(name);` line), or
//! plain CUDA or HIP as a program already holds it for NVRTC or hipRTC, unmodified: it is then
//! read and rewritten as `wavekit check` does a file (docs/DEVICE_API.md, "Check the kernel you
//! have"), its kernels found by name. The program running the check must export the executor's
//! symbols to the library it loads: link it with `-rdynamic` (`cargo:rustc-link-arg=-rdynamic`
//! from its build script), else the build fails with a `Device` error saying so.

use super::{Arg, Library, UserKernel};
use crate::session::{Report, Schedule, Session};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::width::WarpWidth;
use wavekit_gpu::device;
use wavekit_kernels::plain;

/// The executor's headers (csrc/simt/**.h, listed by build.rs), which a build for it includes
/// besides the device API: its arch layer, and the plain-source layer with its CUDA and HIP
/// header names.
static EXECUTOR_HEADERS: &[(&str, &str)] =
    include!(concat!(env!("OUT_DIR"), "/executor_headers.rs"));

/// A source compiled for the executor at both widths. Its folder (the libraries, which the
/// reports' source lines are read from) is removed when it is dropped; the libraries stay
/// loaded.
#[derive(Debug)]
pub struct SourceBuild {
    name: String,
    kernels: Vec<String>,
    /// A plain CUDA or HIP source (kernels are the wrapper's exports, by position), and whether
    /// it is HIP.
    plain: Option<bool>,
    w32: Library,
    w64: Library,
    dir: PathBuf,
}

impl Drop for SourceBuild {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn io(call: &str, path: &Path, e: std::io::Error) -> WavekitError {
    WavekitError::Device {
        backend: "simt",
        call: call.to_string(),
        message: format!("{}: {e}", path.display()),
    }
}

/// A fresh folder for one build: the headers laid out as csrc/, the source as `name`.
fn stage(name: &str, source: &str) -> Result<(PathBuf, PathBuf)> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "wavekit-source-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let headers = device::headers()
        .iter()
        .map(|h| (h.name, h.text))
        .chain(EXECUTOR_HEADERS.iter().copied());
    for (file, text) in headers {
        let path = dir.join("csrc").join(file);
        std::fs::create_dir_all(path.parent().expect("a header's folder"))
            .map_err(|e| io("create_dir_all", &path, e))?;
        std::fs::write(&path, text).map_err(|e| io("write", &path, e))?;
    }
    // Only the file name: the reports say `name:line`.
    let file = Path::new(name)
        .file_name()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("source.cu"));
    let src = dir.join(&file);
    std::fs::write(&src, source).map_err(|e| io("write", &src, e))?;
    Ok((dir, src))
}

impl SourceBuild {
    /// Compiles `source` (named `name` in reports and errors) for the executor at 32 and 64
    /// lanes and loads both builds: a source written against wavekit.h with every kernel its
    /// `WK_EXPORT_KERNEL` lines export, else a plain CUDA or HIP source with every kernel it
    /// declares that is not a template ([`compile_plain`](Self::compile_plain) names others).
    ///
    /// # Errors
    /// `Compile` with the compiler's output when it does not build at a width; `UserSource`
    /// when it has no kernel, or (plain) names a construct the executor cannot model; `Device`
    /// when the host compiler cannot be run or the build cannot be loaded (a program not
    /// linked with `-rdynamic`).
    ///
    /// # Safety
    /// Loading the build runs the source's host code in this process: its global
    /// initialisers at once, and its kernels when launched. The executor guards only the page
    /// after each buffer a launch is given, so the caller vouches that the source's host code
    /// and any kernel of it that is launched do not touch memory further away (a wild pointer
    /// or an index far past a buffer would write over this program). To check code you do not
    /// trust, run `wavekit check`, which loads it in its own process.
    pub unsafe fn compile(name: &str, source: &str) -> Result<SourceBuild> {
        let kernels = device::exported_kernels(source);
        if kernels.is_empty() {
            // SAFETY: the same source under the same contract, which the caller took on.
            return unsafe { Self::compile_plain(name, source, &[]) };
        }
        let (dir, src) = stage(name, source)?;
        let build = |w: WarpWidth| -> Result<Library> {
            let so = dir.join(format!("source_w{}.so", w.lanes()));
            let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
            let out = Command::new(&cxx)
                .args(wavekit_kernels::user::executor_args_at(
                    w.lanes(),
                    &dir.join("csrc"),
                ))
                .args(["-g", "-fPIC", "-shared", "-o"])
                .arg(&so)
                .arg(&src)
                .current_dir(&dir)
                .output()
                .map_err(|e| WavekitError::Device {
                    backend: "simt",
                    call: cxx.clone(),
                    message: format!("cannot run the host C++ compiler: {e} (set CXX)"),
                })?;
            if !out.status.success() {
                return Err(WavekitError::Compile {
                    compiler: format!("{cxx} (SIMT executor, {} lanes)", w.lanes()),
                    source_name: name.to_string(),
                    log: String::from_utf8_lossy(&out.stderr).into_owned(),
                });
            }
            // SAFETY: a library built just now from the caller's source against this
            // program's executor; running its initialisers is what the caller vouched for.
            unsafe { Library::open(&so) }
        };
        Self::finish(name, kernels, None, &dir, build)
    }

    /// Compiles a plain CUDA or HIP `source` (as a program hands it to NVRTC or hipRTC,
    /// unmodified) for the executor at 32 and 64 lanes, with the kernels `kernels` names
    /// (`reduce<float, 256>` for a template's instantiation), or every kernel it declares that
    /// is not a template when `kernels` is empty.
    ///
    /// # Errors
    /// As [`compile`](Self::compile).
    ///
    /// # Safety
    /// As [`compile`](Self::compile): loading runs the source's host code in this process.
    pub unsafe fn compile_plain(name: &str, source: &str, kernels: &[&str]) -> Result<SourceBuild> {
        let (dir, src) = stage(name, source)?;
        let fail = |e: WavekitError| {
            let _ = std::fs::remove_dir_all(&dir);
            // The staged file's folder is an accident of the build: say `name` alone.
            match e {
                WavekitError::UserSource {
                    file,
                    line,
                    message,
                } => WavekitError::UserSource {
                    file: file.replace(&format!("{}/", dir.display()), ""),
                    line,
                    message: message.replace(&format!("{}/", dir.display()), ""),
                },
                e => e,
            }
        };
        let program = plain::Program::read(&src).map_err(fail)?;
        let names: Vec<String> = if kernels.is_empty() {
            program
                .kernels()
                .filter(|k| k.template.is_none())
                .map(|k| k.name.clone())
                .collect()
        } else {
            kernels.iter().map(|k| k.to_string()).collect()
        };
        if names.is_empty() {
            return Err(fail(WavekitError::UserSource {
                file: name.to_string(),
                line: 0,
                message: "no kernel: a __global__ function that is not a template, or name                           an instantiation"
                    .into(),
            }));
        }
        let exprs = names
            .iter()
            .map(|k| program.resolve(k))
            .collect::<Result<Vec<_>>>()
            .map_err(fail)?;
        let built = dir.join("plain");
        let wrapper = program.write(&built, &exprs).map_err(fail)?;
        let csrc = dir.join("csrc");
        let build = |w: WarpWidth| -> Result<Library> {
            let so = plain::shared_object_at(&program, &wrapper, w.lanes(), &built, &csrc)?;
            // SAFETY: a library built just now from the caller's source against this
            // program's executor; running its initialisers is what the caller vouched for.
            unsafe { Library::open(&so) }
        };
        let hip = program.is_hip();
        Self::finish(name, names, Some(hip), &dir, build)
    }

    fn finish(
        name: &str,
        kernels: Vec<String>,
        plain: Option<bool>,
        dir: &Path,
        build: impl Fn(WarpWidth) -> Result<Library>,
    ) -> Result<SourceBuild> {
        let built = build(WarpWidth::W32).and_then(|w32| Ok((w32, build(WarpWidth::W64)?)));
        match built {
            Ok((w32, w64)) => Ok(SourceBuild {
                name: name.to_string(),
                kernels,
                plain,
                w32,
                w64,
                dir: dir.to_path_buf(),
            }),
            Err(e) => {
                let _ = std::fs::remove_dir_all(dir);
                Err(e)
            }
        }
    }

    /// Whether it is a plain HIP source: AMD's lockstep wave is then its schedule at 32 lanes
    /// too (as `wavekit check` runs one).
    pub fn is_hip(&self) -> bool {
        self.plain == Some(true)
    }

    /// The kernels built, in the order of the source's `WK_EXPORT_KERNEL` lines (or of a
    /// plain source's declarations, or as named to `compile_plain`).
    pub fn kernels(&self) -> &[String] {
        &self.kernels
    }

    /// Both builds of kernel `name`, to launch as [`user_kernel!`](crate::user_kernel)'s.
    ///
    /// # Errors
    /// `UnknownKernel` when the build holds no kernel of that name.
    pub fn kernel(&self, name: &str) -> Result<UserKernel> {
        let Some(at) = self.kernels.iter().position(|k| k == name) else {
            return Err(WavekitError::UnknownKernel {
                kernel: name.to_string(),
                source_name: self.name.clone(),
                available: self.kernels.clone(),
            });
        };
        if self.plain.is_some() {
            return Ok(UserKernel {
                w32: self.w32.kernel(&plain::symbol(at))?,
                w64: self.w64.kernel(&plain::symbol(at))?,
            });
        }
        let symbol = |w: u32| format!("{}_kernel_{name}", wavekit_kernels::user::namespace(w));
        Ok(UserKernel {
            w32: self.w32.kernel(&symbol(32))?,
            w64: self.w64.kernel(&symbol(64))?,
        })
    }
}

/// A launch's shape: blocks, threads per block, bytes of dynamic shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    /// Blocks in x, y, z.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z.
    pub block: [u32; 3],
    /// Dynamic shared memory, bytes.
    pub dynamic_shared_bytes: usize,
}

impl LaunchShape {
    /// `grid` blocks of `block` threads in x, no dynamic shared memory.
    pub fn linear(grid: u32, block: u32) -> Self {
        LaunchShape {
            grid: [grid, 1, 1],
            block: [block, 1, 1],
            dynamic_shared_bytes: 0,
        }
    }
}

/// One width's run of [`check_source`].
#[derive(Debug)]
pub struct SourceCheck {
    /// The warp width it ran at.
    pub width: WarpWidth,
    /// The order its threads ran in: lockstep at 64 lanes (as AMD runs a wavefront), a seeded
    /// random order at 32 (as Volta's independent threads may).
    pub schedule: Schedule,
    /// Every hazard found, with its kernel, block, warp, lanes and `file:line`.
    pub reports: Vec<Report>,
    /// Reports past the session's limit, counted and not kept.
    pub suppressed: u64,
    /// The arguments after the launch (buffers hold what the kernel wrote).
    pub args: Vec<Arg>,
    /// `Err` when the launch was abandoned (a lane faulted, a block stalled): the reports say
    /// where, and the buffers are partial.
    pub launch: Result<()>,
}

impl SourceCheck {
    /// Whether the run found nothing: no report and a launch that ran to its end.
    pub fn is_clean(&self) -> bool {
        self.reports.is_empty() && self.launch.is_ok()
    }
}

/// Compiles `source` (see [`SourceBuild::compile`]) and runs its kernel `kernel` with `args` on
/// `shape` at 32 and then 64 lanes, each buffer against an inaccessible page (an index past
/// one is reported, `InvalidAccess`, not written over other memory).
///
/// ```ignore
/// let src = r#"
/// #include <wavekit.h>
/// WK_KERNELS_BEGIN
/// __global__ void sums(const int* in, int* out) {
///   const int s = warp_reduce<OP_SUM>(in[threadIdx.x]);
///   if (arch::lane_id() == 0) out[threadIdx.x / WK_WARP_SIZE] = s;
/// }
/// WK_KERNELS_END
/// WK_EXPORT_KERNEL(sums);
/// "#;
/// let args = [Arg::Buffer(Values::I32(vec![1; 128])), Arg::Buffer(Values::I32(vec![0; 4]))];
/// // SAFETY: our own source: no global initialisers, and the kernel indexes only
/// // `in[threadIdx.x]` of 128 and `out[threadIdx.x / WK_WARP_SIZE]` of 4.
/// let runs = unsafe { check_source("sums.cu", src, "sums", LaunchShape::linear(1, 128), &args)? };
/// for run in runs {
///     assert!(run.is_clean(), "{:?}", run.reports);
/// }
/// ```
///
/// # Errors
/// As [`SourceBuild::compile`] and [`SourceBuild::kernel`]; `LengthMismatch` or `Device` when
/// `args` do not match the kernel's parameters.
///
/// # Safety
/// As [`SourceBuild::compile`]: the source is loaded into this process and its kernel runs
/// here; a stray write further than the page after a buffer corrupts the caller. `wavekit
/// check` runs a file in its own process instead.
pub unsafe fn check_source(
    name: &str,
    source: &str,
    kernel: &str,
    shape: LaunchShape,
    args: &[Arg],
) -> Result<Vec<SourceCheck>> {
    // SAFETY: the caller's source under the caller's contract (above).
    let build = unsafe {
        if device::exported_kernels(source).is_empty() {
            SourceBuild::compile_plain(name, source, &[kernel])?
        } else {
            SourceBuild::compile(name, source)?
        }
    };
    let k = build.kernel(kernel)?;
    // A plain source's reports name the staged copy by its absolute path: say `name` alone.
    let staged = format!("{}/", build.dir.display());
    let mut out = Vec::with_capacity(2);
    for width in [WarpWidth::W32, WarpWidth::W64] {
        let schedule = match width {
            WarpWidth::W64 => Schedule::Lockstep,
            _ if build.is_hip() => Schedule::Lockstep,
            WarpWidth::W32 => crate::DEFAULT_SCHEDULE,
        };
        let session = Session::new(schedule);
        let mut args = args.to_vec();
        // SAFETY: every buffer the kernel is given sits against an inaccessible page, so an
        // index just past one faults and is reported; the caller vouched (this function's
        // contract) that the kernel writes nowhere further away.
        let launch = unsafe {
            k.at(width).launch_guarded(
                &session,
                shape.grid,
                shape.block,
                shape.dynamic_shared_bytes,
                &mut args,
            )
        };
        out.push(SourceCheck {
            width,
            schedule,
            reports: session
                .take_reports()
                .into_iter()
                .map(|mut r| {
                    r.detail = r.detail.replace(&staged, "");
                    r
                })
                .collect(),
            suppressed: session.suppressed(),
            args,
            launch,
        });
    }
    Ok(out)
}
