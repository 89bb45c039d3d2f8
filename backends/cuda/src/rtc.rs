//! Your kernel source, compiled at run time by NVRTC with wavekit's device API, loaded on your
//! context, launched by you. A cudarc program that builds its kernels with
//! `cudarc::nvrtc::compile_ptx` changes one call: [`compile`] hands NVRTC the device headers
//! (`#include <wavekit.h>`, no file on disk) and the device's architecture, and gives back a
//! module whose kernels are found by their `WK_EXPORT_KERNEL` names. The launch stays yours:
//! `stream.launch_builder(f.cuda_function())` with cudarc's `LaunchArgs`, taking your
//! `CudaSlice`s or a wavekit buffer's `device_ptr()`. Check the same source on the SIMT
//! executor at 32 and 64 lanes first with `wavekit::simt::user::check_source`
//! (docs/DEVICE_API.md, examples/nvrtc_warp.rs).
//!
//! ```no_run
//! use wavekit_cuda::cudarc::driver::{CudaContext, PushKernelArg};
//! use wavekit_cuda::rtc;
//! let src = r#"
//! #include <wavekit.h>
//! WK_KERNELS_BEGIN
//! __global__ void sums(const int* in, int* out) {
//!   const int s = warp_reduce<OP_SUM>(in[threadIdx.x]);
//!   if (arch::lane_id() == 0) out[threadIdx.x / WK_WARP_SIZE] = s;
//! }
//! WK_KERNELS_END
//! WK_EXPORT_KERNEL(sums);
//! "#;
//! let ctx = CudaContext::new(0)?;
//! let stream = ctx.default_stream();
//! let module = rtc::compile(&ctx, "sums.cu", src, &[])?;
//! let f = module.function("sums")?;
//! let input = stream.clone_htod(&[1i32; 64])?;
//! let mut out = stream.alloc_zeros::<i32>(2)?;
//! let cfg = f.launch_config([1, 1, 1], [64, 1, 1], 0)?;
//! let mut launch = stream.launch_builder(f.cuda_function());
//! launch.arg(&input).arg(&mut out);
//! f.check(unsafe { launch.launch(cfg) })?;
//! assert_eq!(stream.clone_dtoh(&out)?, [32, 32]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, DriverError, LaunchConfig};
use cudarc::nvrtc::sys as nv;
use std::ffi::{CStr, c_char, c_int, c_void};
use std::sync::{Arc, OnceLock};
use wavekit_core::error::{Result, WavekitError};
use wavekit_gpu::rtc::{self as gpu_rtc, Compiled, Limits, RtcApi};

/// NVRTC's calls, through cudarc's loader.
#[derive(Debug)]
pub struct Nvrtc;

fn code(r: nv::nvrtcResult) -> i32 {
    r as i32
}

// SAFETY: each method is the NVRTC call of its name with the arguments passed through.
unsafe impl RtcApi for Nvrtc {
    const COMPILER: &'static str = "nvrtc";
    const NAMESPACE: &'static str = "wk_cuda";
    type Program = nv::nvrtcProgram;
    unsafe fn create(
        p: *mut Self::Program,
        src: *const c_char,
        name: *const c_char,
        n: i32,
        headers: *const *const c_char,
        names: *const *const c_char,
    ) -> i32 {
        // SAFETY: passed through (the trait's contract).
        code(unsafe { nv::nvrtcCreateProgram(p, src, name, n, headers, names) })
    }
    unsafe fn add_name_expression(p: Self::Program, e: *const c_char) -> i32 {
        // SAFETY: as above.
        code(unsafe { nv::nvrtcAddNameExpression(p, e) })
    }
    unsafe fn compile(p: Self::Program, n: i32, o: *const *const c_char) -> i32 {
        // SAFETY: as above.
        code(unsafe { nv::nvrtcCompileProgram(p, n, o) })
    }
    unsafe fn log_size(p: Self::Program, n: *mut usize) -> i32 {
        // SAFETY: as above.
        code(unsafe { nv::nvrtcGetProgramLogSize(p, n) })
    }
    unsafe fn log(p: Self::Program, out: *mut c_char) -> i32 {
        // SAFETY: as above.
        code(unsafe { nv::nvrtcGetProgramLog(p, out) })
    }
    unsafe fn code_size(p: Self::Program, n: *mut usize) -> i32 {
        // SAFETY: as above.
        code(unsafe { nv::nvrtcGetPTXSize(p, n) })
    }
    unsafe fn code(p: Self::Program, out: *mut c_char) -> i32 {
        // SAFETY: as above.
        code(unsafe { nv::nvrtcGetPTX(p, out) })
    }
    unsafe fn lowered_name(p: Self::Program, e: *const c_char, out: *mut *const c_char) -> i32 {
        // SAFETY: as above.
        code(unsafe { nv::nvrtcGetLoweredName(p, e, out) })
    }
    unsafe fn destroy(p: *mut Self::Program) -> i32 {
        // SAFETY: as above.
        code(unsafe { nv::nvrtcDestroyProgram(p) })
    }
    /// NVRTC's message for a code it defines; `NVRTC error {c}` for any other (a code from a
    /// newer NVRTC than the bindings know, or none of NVRTC's), without calling NVRTC.
    fn error_string(c: i32) -> String {
        let Some(r) = nvrtc_result(c) else {
            return format!("NVRTC error {c}");
        };
        if load_nvrtc().is_err() {
            // Only NVRTC's own calls produce these codes, so it is loaded; should it not be,
            // the code's name says as much as NVRTC would.
            return format!("{r:?} ({c})");
        }
        // SAFETY: `r` is a value of the enum (nvrtc_result matched it), NVRTC is loaded (just
        // checked), and nvrtcGetErrorString takes any of its codes.
        let s = unsafe { nv::nvrtcGetErrorString(r) };
        if s.is_null() {
            format!("NVRTC error {c}")
        } else {
            // SAFETY: non-null, so a NUL-terminated string NVRTC keeps for the process.
            unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
        }
    }
}

/// The `nvrtcResult` of value `c`, if the bindings define one: a checked conversion (an `i32`
/// outside the enum's values must never become one, which transmuting it would do).
fn nvrtc_result(c: i32) -> Option<nv::nvrtcResult> {
    use nv::nvrtcResult::*;
    const ALL: [nv::nvrtcResult; 18] = [
        NVRTC_SUCCESS,
        NVRTC_ERROR_OUT_OF_MEMORY,
        NVRTC_ERROR_PROGRAM_CREATION_FAILURE,
        NVRTC_ERROR_INVALID_INPUT,
        NVRTC_ERROR_INVALID_PROGRAM,
        NVRTC_ERROR_INVALID_OPTION,
        NVRTC_ERROR_COMPILATION,
        NVRTC_ERROR_BUILTIN_OPERATION_FAILURE,
        NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION,
        NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION,
        NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID,
        NVRTC_ERROR_INTERNAL_ERROR,
        NVRTC_ERROR_TIME_FILE_WRITE_FAILED,
        NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED,
        NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED,
        NVRTC_ERROR_PCH_CREATE,
        NVRTC_ERROR_CANCELLED,
        NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED,
    ];
    // Compared by value (`as i64` reads an enum's discriminant safely), so a variant the
    // bindings number differently, or one added in a newer cudarc, is never guessed at.
    ALL.into_iter().find(|&r| r as i64 == i64::from(c))
}

unsafe extern "C" {
    fn dlopen(file: *const c_char, mode: c_int) -> *mut c_void;
}

/// Makes NVRTC loadable by cudarc, once: the loader's own search (LD_LIBRARY_PATH, the system's
/// folders), else `$WAVEKIT_NVRTC_DIR`, `$CUDA_HOME`/`$CUDA_PATH`, /usr/local/cuda and the
/// folder the build found nvcc's NVRTC in (scripts/setup-cuda.sh's wheel). NVRTC opens its
/// builtins library by name, so that is loaded (globally) first from the same folder.
fn load_nvrtc() -> Result<()> {
    static LOADED: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    let r = LOADED.get_or_init(|| {
        // SAFETY: loads and unloads candidate libraries by name.
        if unsafe { nv::is_culib_present() } {
            return Ok(());
        }
        let mut dirs: Vec<std::path::PathBuf> = Vec::new();
        if let Some(d) = std::env::var_os("WAVEKIT_NVRTC_DIR") {
            dirs.push(d.into());
        }
        for var in ["CUDA_HOME", "CUDA_PATH"] {
            if let Some(d) = std::env::var_os(var) {
                dirs.push(std::path::PathBuf::from(d).join("lib64"));
            }
        }
        dirs.push("/usr/local/cuda/lib64".into());
        dirs.push("/usr/local/cuda/targets/x86_64-linux/lib".into());
        if let Some(d) = option_env!("WAVEKIT_NVRTC_DIR") {
            dirs.push(d.into());
        }
        for dir in &dirs {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            let mut files: Vec<String> = entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|f| f.starts_with("libnvrtc") && !f.contains(".alt."))
                .collect();
            // The builtins first, then libnvrtc itself.
            files.sort_by_key(|f| !f.starts_with("libnvrtc-builtins"));
            for f in files {
                let Ok(path) = std::ffi::CString::new(dir.join(&f).as_os_str().as_encoded_bytes())
                else {
                    continue;
                };
                // SAFETY: NVRTC's own libraries, from a folder the user or the toolkit named;
                // RTLD_NOW | RTLD_GLOBAL, so cudarc's load by name finds them.
                unsafe { dlopen(path.as_ptr(), 2 | 0x100) };
            }
            // SAFETY: as above.
            if unsafe { nv::is_culib_present() } {
                return Ok(());
            }
        }
        Err(format!(
            "NVRTC (libnvrtc.so) was not found: looked on the loader's path and in {dirs:?}; \
             install CUDA's NVRTC (scripts/setup-cuda.sh pins the wheel) or set \
             WAVEKIT_NVRTC_DIR to its folder"
        ))
    });
    r.clone().map_err(|message| WavekitError::Device {
        backend: "cuda",
        call: "nvrtc".into(),
        message,
    })
}

/// The options wavekit compiles its own CUDA kernels with: no contraction (`a * b + c` stays two
/// roundings, so float results are those of docs/SEMANTICS.md bit for bit) and C++17.
pub const DEFAULT_OPTIONS: &[&str] = &["--fmad=false", "-std=c++17"];

/// Compiles `source` to PTX for `arch` (`compute_90`, `sm_90`, ...) with [`DEFAULT_OPTIONS`]
/// and `options`; needs NVRTC, no device.
///
/// # Errors
/// `Compile` with NVRTC's log when the source does not compile; `UserSource` when it exports
/// no kernel (`WK_EXPORT_KERNEL`); `Device` when NVRTC cannot be loaded.
pub fn compile_ptx(name: &str, source: &str, arch: &str, options: &[&str]) -> Result<Compiled> {
    load_nvrtc()?;
    let opts: Vec<String> = std::iter::once(format!("--gpu-architecture={arch}"))
        .chain(DEFAULT_OPTIONS.iter().chain(options).map(|s| s.to_string()))
        .collect();
    gpu_rtc::compile::<Nvrtc>(name, source, &opts)
}

/// A compiled source loaded on a context.
#[derive(Debug)]
pub struct RtcModule {
    name: String,
    compiled: Compiled,
    module: Arc<CudaModule>,
    ctx: Arc<CudaContext>,
}

/// Compiles `source` (named `name` in errors) for `ctx`'s device (PTX of its compute
/// capability) and loads it there.
///
/// # Errors
/// As [`compile_ptx`]; `Device` when the driver refuses the module.
pub fn compile(
    ctx: &Arc<CudaContext>,
    name: &str,
    source: &str,
    options: &[&str],
) -> Result<RtcModule> {
    let (major, minor) = ctx
        .compute_capability()
        .map_err(|e| driver("cuDeviceGetAttribute", e))?;
    let compiled = compile_ptx(name, source, &format!("compute_{major}{minor}"), options)?;
    let ptx = String::from_utf8_lossy(&compiled.code).into_owned();
    let module = ctx
        .load_module(cudarc::nvrtc::Ptx::from_src(ptx))
        .map_err(|e| driver("cuModuleLoadData", e))?;
    Ok(RtcModule {
        name: name.to_string(),
        compiled,
        module,
        ctx: ctx.clone(),
    })
}

fn driver(call: &str, e: DriverError) -> WavekitError {
    WavekitError::Device {
        backend: "cuda",
        call: call.to_string(),
        message: e.to_string(),
    }
}

impl RtcModule {
    /// The kernels the source exports, by their `WK_EXPORT_KERNEL` names.
    pub fn kernels(&self) -> impl Iterator<Item = &str> {
        self.compiled.kernels.iter().map(|(k, _)| k.as_str())
    }

    /// The PTX NVRTC produced.
    pub fn ptx(&self) -> &str {
        std::str::from_utf8(&self.compiled.code).unwrap_or("")
    }

    /// NVRTC's warnings (empty when it had none).
    pub fn log(&self) -> &str {
        &self.compiled.log
    }

    /// The loaded module, as cudarc holds it.
    pub fn cuda_module(&self) -> &Arc<CudaModule> {
        &self.module
    }

    /// Kernel `kernel`, with the limits its launches are checked against.
    ///
    /// # Errors
    /// `UnknownKernel` when the source exports no such kernel; `Device` from the driver.
    pub fn function(&self, kernel: &str) -> Result<RtcFunction> {
        let symbol = self.compiled.symbol(&self.name, kernel)?;
        let function = self
            .module
            .load_function(symbol)
            .map_err(|e| driver("cuModuleGetFunction", e))?;
        let ctx = &self.ctx;
        let dev = |a: CUdevice_attribute| {
            ctx.attribute(a)
                .map(|v| v.max(0) as u32)
                .map_err(|e| driver("cuDeviceGetAttribute", e))
        };
        use CUdevice_attribute::*;
        let threads = function
            .get_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
            .map_err(|e| driver("cuFuncGetAttribute", e))?;
        let shared = function
            .get_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
            .map_err(|e| driver("cuFuncGetAttribute", e))?;
        let limits = Limits {
            threads: threads.max(0) as u32,
            block: [
                dev(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                dev(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                dev(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ],
            grid: [
                dev(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                dev(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                dev(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ],
            dynamic_shared: shared.max(0) as u64,
        };
        Ok(RtcFunction {
            name: kernel.to_string(),
            function,
            limits,
        })
    }
}

/// One kernel of an [`RtcModule`].
#[derive(Debug, Clone)]
pub struct RtcFunction {
    name: String,
    function: CudaFunction,
    limits: Limits,
}

impl RtcFunction {
    /// The kernel's `WK_EXPORT_KERNEL` name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The function, for `stream.launch_builder`.
    pub fn cuda_function(&self) -> &CudaFunction {
        &self.function
    }

    /// What a launch of it may ask for on its device.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// A launch configuration checked against [`limits`](Self::limits).
    ///
    /// # Errors
    /// `LaunchBounds` for a zero or too large dimension, more threads per block than the
    /// compiled kernel allows (its registers can lower the device's 1024), or more dynamic
    /// shared memory than it may have.
    pub fn launch_config(
        &self,
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_shared_bytes: u32,
    ) -> Result<LaunchConfig> {
        gpu_rtc::check_launch(
            &self.name,
            &self.limits,
            grid,
            block,
            dynamic_shared_bytes.into(),
        )?;
        Ok(LaunchConfig {
            grid_dim: (grid[0], grid[1], grid[2]),
            block_dim: (block[0], block[1], block[2]),
            shared_mem_bytes: dynamic_shared_bytes,
        })
    }

    /// A launch's result (`launch_builder(..).launch(cfg)`) as wavekit's error, naming this
    /// kernel. A fault inside the kernel shows at the stream's next synchronisation: pass that
    /// result here too.
    ///
    /// # Errors
    /// `Device` with the driver's message.
    pub fn check<T>(&self, launched: std::result::Result<T, DriverError>) -> Result<T> {
        launched.map_err(|e| driver(&format!("launch of {}", self.name), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_codes_convert_only_inside_the_enum() {
        // Values from NVRTC's header (nvrtc.h), not from the conversion under test.
        assert_eq!(nvrtc_result(0), Some(nv::nvrtcResult::NVRTC_SUCCESS));
        assert_eq!(
            nvrtc_result(6),
            Some(nv::nvrtcResult::NVRTC_ERROR_COMPILATION)
        );
        assert_eq!(
            nvrtc_result(17),
            Some(nv::nvrtcResult::NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED)
        );
        for c in [18, 9999, -1, i32::MIN, i32::MAX] {
            assert_eq!(nvrtc_result(c), None, "{c}");
        }
    }

    #[test]
    fn out_of_range_codes_get_the_fallback_without_nvrtc() {
        for c in [18, 9999, -1, i32::MIN] {
            assert_eq!(Nvrtc::error_string(c), format!("NVRTC error {c}"));
        }
    }
}
