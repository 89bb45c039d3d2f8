//! A kernel source held in a string, as a program compiles it at run time with NVRTC or hipRTC
//! (`wavekit::cuda::rtc`, `wavekit::hip::rtc`), built for the executor at 32 and 64 lanes and
//! checked there: [`SourceBuild`] compiles it with the host C++ compiler (`$CXX`, else `c++`)
//! against the device API's headers embedded in the library (no checkout needed), and
//! [`check_source`] runs one kernel at both widths and returns the hazard reports.
//!
//! The source is written against csrc/wavekit.h (docs/DEVICE_API.md): kernels between
//! `WK_KERNELS_BEGIN` and `WK_KERNELS_END`, each named by a `WK_EXPORT_KERNEL(name);` line. The
//! program running the check must export the executor's symbols to the library it loads: link
//! it with `-rdynamic` (`cargo:rustc-link-arg=-rdynamic` from its build script), else the build
//! fails with a `Device` error saying so.

use super::{Arg, Library, UserKernel};
use crate::session::{Report, Schedule, Session};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use wavekit_core::device;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::width::WarpWidth;

/// The executor's own arch layer, which a build for it includes besides the device API.
static EXECUTOR_HEADERS: &[(&str, &str)] = &[
    (
        "simt/arch_simt.h",
        include_str!("../../../../csrc/simt/arch_simt.h"),
    ),
    (
        "simt/checked.h",
        include_str!("../../../../csrc/simt/checked.h"),
    ),
    (
        "simt/executor.h",
        include_str!("../../../../csrc/simt/executor.h"),
    ),
    ("simt/lang.h", include_str!("../../../../csrc/simt/lang.h")),
];

/// A source compiled for the executor at both widths. Its folder (the libraries, which the
/// reports' source lines are read from) is removed when it is dropped; the libraries stay
/// loaded.
#[derive(Debug)]
pub struct SourceBuild {
    name: String,
    kernels: Vec<String>,
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
    /// lanes and loads both builds.
    ///
    /// # Errors
    /// `Compile` with the compiler's output when it does not build at a width; `UserSource`
    /// when it exports no kernel (no `WK_EXPORT_KERNEL` line); `Device` when the host compiler
    /// cannot be run or the build cannot be loaded (a program not linked with `-rdynamic`).
    pub fn compile(name: &str, source: &str) -> Result<SourceBuild> {
        let kernels = device::exported_kernels(source);
        if kernels.is_empty() {
            return Err(WavekitError::UserSource {
                file: name.to_string(),
                line: 0,
                message: "no WK_EXPORT_KERNEL(name) line: the executor finds kernels by it".into(),
            });
        }
        let (dir, src) = stage(name, source)?;
        let build = |w: WarpWidth| -> Result<Library> {
            let so = dir.join(format!("source_w{}.so", w.lanes()));
            let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
            let out = Command::new(&cxx)
                .args(wavekit_build::user::executor_args_at(
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
            // program's executor.
            unsafe { Library::open(&so) }
        };
        let built = build(WarpWidth::W32).and_then(|w32| Ok((w32, build(WarpWidth::W64)?)));
        match built {
            Ok((w32, w64)) => Ok(SourceBuild {
                name: name.to_string(),
                kernels,
                w32,
                w64,
                dir,
            }),
            Err(e) => {
                let _ = std::fs::remove_dir_all(&dir);
                Err(e)
            }
        }
    }

    /// The kernels the source exports, in the order of its `WK_EXPORT_KERNEL` lines.
    pub fn kernels(&self) -> &[String] {
        &self.kernels
    }

    /// Both builds of kernel `name`, to launch as [`user_kernel!`](crate::user_kernel)'s.
    ///
    /// # Errors
    /// `UnknownKernel` when the source exports no kernel of that name.
    pub fn kernel(&self, name: &str) -> Result<UserKernel> {
        if !self.kernels.iter().any(|k| k == name) {
            return Err(WavekitError::UnknownKernel {
                kernel: name.to_string(),
                source_name: self.name.clone(),
                available: self.kernels.clone(),
            });
        }
        let symbol = |w: u32| format!("{}_kernel_{name}", wavekit_build::user::namespace(w));
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
/// for run in check_source("sums.cu", src, "sums", LaunchShape::linear(1, 128), &args)? {
///     assert!(run.is_clean(), "{:?}", run.reports);
/// }
/// ```
///
/// # Errors
/// As [`SourceBuild::compile`] and [`SourceBuild::kernel`]; `LengthMismatch` or `Device` when
/// `args` do not match the kernel's parameters.
pub fn check_source(
    name: &str,
    source: &str,
    kernel: &str,
    shape: LaunchShape,
    args: &[Arg],
) -> Result<Vec<SourceCheck>> {
    let build = SourceBuild::compile(name, source)?;
    let k = build.kernel(kernel)?;
    let mut out = Vec::with_capacity(2);
    for width in [WarpWidth::W32, WarpWidth::W64] {
        let schedule = match width {
            WarpWidth::W64 => Schedule::Lockstep,
            WarpWidth::W32 => crate::DEFAULT_SCHEDULE,
        };
        let session = Session::new(schedule);
        let mut args = args.to_vec();
        // SAFETY: the kernel is the caller's; every buffer it is given sits against an
        // inaccessible page, so an index past one faults and is reported, and the launch is
        // abandoned instead of writing over the program's memory.
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
            reports: session.take_reports(),
            suppressed: session.suppressed(),
            args,
            launch,
        });
    }
    Ok(out)
}
