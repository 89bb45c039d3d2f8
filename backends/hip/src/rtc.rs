//! Your kernel source, compiled at run time by hipRTC with wavekit's device API, for the device's
//! own target (its wave size comes with it: 64 on gfx9/CDNA, 32 on RDNA), loaded as a module.
//! The HIP twin of `wavekit::cuda::rtc`: [`compile_code_object`] needs no GPU (CI compiles the
//! example for gfx90a and gfx1030 with it; ROCm 5.2's hipRTC aborts on gfx940), [`compile`] loads the result on a
//! [`HipRuntime`]'s device, and a kernel is found by its `WK_EXPORT_KERNEL` name. Launch it with
//! `hipModuleLaunchKernel` on your stream, or with [`RtcFunction::launch`], which checks the
//! shape and the result first.
//!
//! ```no_run
//! use wavekit_hip::{HipRuntime, rtc};
//! let src = "#include <wavekit.h>\nWK_KERNELS_BEGIN\n\
//!            __global__ void ones(int* out) { out[threadIdx.x] = arch::popc(arch::ballot_sync(WK_FULL_MASK, true)); }\n\
//!            WK_KERNELS_END\nWK_EXPORT_KERNEL(ones);\n";
//! let code = rtc::compile_code_object("ones.hip", src, "gfx90a", &[])?; // no GPU needed
//! assert!(!code.code.is_empty());
//! let runtime = HipRuntime::new(0)?;
//! let module = rtc::compile(&runtime, "ones.hip", src, &[])?;
//! let f = module.function("ones")?;
//! # Ok::<(), wavekit_core::WavekitError>(())
//! ```

use crate::HipRuntime;
use crate::result::check;
use crate::sys::{self, HipFunction, HipModule, HiprtcProgram};
use std::ffi::{CStr, CString, c_char, c_void};
use std::sync::{Mutex, PoisonError};
use wavekit_core::error::Result;
use wavekit_gpu::GpuRuntime;
use wavekit_gpu::rtc::{self as gpu_rtc, Compiled, Limits, RtcApi};

/// hipRTC's calls.
#[derive(Debug)]
pub struct Hiprtc;

/// Held through each compilation: ROCm 5.2's hipRTC (libamd_comgr over LLVM 15) is not safe to
/// run twice at once in one process. Two compilations on two threads (tests/hip_rtc.rs's two
/// tests, CI, 2026-11-27) both spun for over 20 minutes in `llvm::TargetRegistry::lookupTarget`
/// under `amd_comgr_do_action`; one at a time they take seconds.
static COMPILING: Mutex<()> = Mutex::new(());

// SAFETY: each method is the hipRTC call of its name with the arguments passed through.
unsafe impl RtcApi for Hiprtc {
    const COMPILER: &'static str = "hiprtc";
    const NAMESPACE: &'static str = "wk_hip";
    type Program = HiprtcProgram;
    unsafe fn create(
        p: *mut Self::Program,
        src: *const c_char,
        name: *const c_char,
        n: i32,
        headers: *const *const c_char,
        names: *const *const c_char,
    ) -> i32 {
        // SAFETY: passed through (the trait's contract).
        unsafe { sys::hiprtcCreateProgram(p, src, name, n, headers, names) }
    }
    unsafe fn add_name_expression(p: Self::Program, e: *const c_char) -> i32 {
        // SAFETY: as above.
        unsafe { sys::hiprtcAddNameExpression(p, e) }
    }
    unsafe fn compile(p: Self::Program, n: i32, o: *const *const c_char) -> i32 {
        let _alone = COMPILING.lock().unwrap_or_else(PoisonError::into_inner);
        // SAFETY: as above.
        unsafe { sys::hiprtcCompileProgram(p, n, o) }
    }
    unsafe fn log_size(p: Self::Program, n: *mut usize) -> i32 {
        // SAFETY: as above.
        unsafe { sys::hiprtcGetProgramLogSize(p, n) }
    }
    unsafe fn log(p: Self::Program, out: *mut c_char) -> i32 {
        // SAFETY: as above.
        unsafe { sys::hiprtcGetProgramLog(p, out) }
    }
    unsafe fn code_size(p: Self::Program, n: *mut usize) -> i32 {
        // SAFETY: as above.
        unsafe { sys::hiprtcGetCodeSize(p, n) }
    }
    unsafe fn code(p: Self::Program, out: *mut c_char) -> i32 {
        // SAFETY: as above.
        unsafe { sys::hiprtcGetCode(p, out) }
    }
    unsafe fn lowered_name(p: Self::Program, e: *const c_char, out: *mut *const c_char) -> i32 {
        // SAFETY: as above.
        unsafe { sys::hiprtcGetLoweredName(p, e, out) }
    }
    unsafe fn destroy(p: *mut Self::Program) -> i32 {
        // SAFETY: as above.
        unsafe { sys::hiprtcDestroyProgram(p) }
    }
    fn error_string(c: i32) -> String {
        // SAFETY: returns a static NUL-terminated string (or null) for any code.
        let s = unsafe { sys::hiprtcGetErrorString(c) };
        if s.is_null() {
            format!("hipRTC error {c}")
        } else {
            // SAFETY: as above.
            unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
        }
    }
}

/// The options wavekit compiles its own HIP kernels with: no contraction (float results bit for
/// bit those of docs/SEMANTICS.md) and C++17.
pub const DEFAULT_OPTIONS: &[&str] = &["-ffp-contract=off", "-std=c++17"];

/// Compiles `source` to a code object for `arch` (`gfx90a`, `gfx1030`, a device's full target
/// name such as `gfx90a:sramecc+:xnack-`) with [`DEFAULT_OPTIONS`] and `options`; no GPU needed.
///
/// # Errors
/// `Compile` with hipRTC's log when the source does not compile; `UserSource` when it exports
/// no kernel (`WK_EXPORT_KERNEL`).
pub fn compile_code_object(
    name: &str,
    source: &str,
    arch: &str,
    options: &[&str],
) -> Result<Compiled> {
    let opts: Vec<String> = std::iter::once(format!("--offload-arch={arch}"))
        .chain(DEFAULT_OPTIONS.iter().chain(options).map(|s| s.to_string()))
        .collect();
    gpu_rtc::compile::<Hiprtc>(name, source, &opts)
}

/// A compiled source loaded on a device; unloaded when dropped.
#[derive(Debug)]
pub struct RtcModule {
    name: String,
    compiled: Compiled,
    module: HipModule,
    device: i32,
}

// SAFETY: a module handle may be used from any host thread; the device is selected before each
// call that depends on it.
unsafe impl Send for RtcModule {}
// SAFETY: as above.
unsafe impl Sync for RtcModule {}

impl Drop for RtcModule {
    fn drop(&mut self) {
        // SAFETY: the module `compile` loaded, unloaded once; no function of it is used after
        // (an RtcFunction borrows its module).
        unsafe { sys::hipModuleUnload(self.module) };
    }
}

/// Compiles `source` for `runtime`'s device (its own target name) and loads it there.
///
/// # Errors
/// As [`compile_code_object`]; `Device` when the runtime refuses the code object.
pub fn compile(
    runtime: &HipRuntime,
    name: &str,
    source: &str,
    options: &[&str],
) -> Result<RtcModule> {
    let compiled = compile_code_object(name, source, runtime.arch(), options)?;
    let device = runtime.ordinal() as i32;
    crate::result::set_device(device)?;
    let mut module: HipModule = std::ptr::null_mut();
    check(
        // SAFETY: a code object hipRTC produced for this device's target, alive for the call.
        unsafe { sys::hipModuleLoadData(&mut module, compiled.code.as_ptr().cast()) },
        "hipModuleLoadData",
    )?;
    Ok(RtcModule {
        name: name.to_string(),
        compiled,
        module,
        device,
    })
}

impl RtcModule {
    /// The kernels the source exports, by their `WK_EXPORT_KERNEL` names.
    pub fn kernels(&self) -> impl Iterator<Item = &str> {
        self.compiled.kernels.iter().map(|(k, _)| k.as_str())
    }

    /// The raw `hipModule_t`, for your own `hipModuleGetFunction` calls.
    pub fn raw(&self) -> *mut c_void {
        self.module
    }

    /// Kernel `kernel`, with the limits its launches are checked against.
    ///
    /// # Errors
    /// `UnknownKernel` when the source exports no such kernel; `Device` from the runtime.
    pub fn function(&self, kernel: &str) -> Result<RtcFunction<'_>> {
        let symbol = self.compiled.symbol(&self.name, kernel)?;
        let c = CString::new(symbol).expect("a lowered name holds no NUL");
        crate::result::set_device(self.device)?;
        let mut f: HipFunction = std::ptr::null_mut();
        check(
            // SAFETY: a loaded module and a NUL-terminated name.
            unsafe { sys::hipModuleGetFunction(&mut f, self.module, c.as_ptr()) },
            "hipModuleGetFunction",
        )?;
        let mut l = [0i64; 8];
        check(
            // SAFETY: a function of a loaded module and eight out-slots.
            unsafe { sys::wk_hip_function_limits(f, self.device, l.as_mut_ptr()) },
            "hipFuncGetAttribute",
        )?;
        let u = |v: i64| v.clamp(0, u32::MAX as i64) as u32;
        Ok(RtcFunction {
            name: kernel.to_string(),
            function: f,
            limits: Limits {
                threads: u(l[0]),
                block: [u(l[1]), u(l[2]), u(l[3])],
                grid: [u(l[4]), u(l[5]), u(l[6])],
                dynamic_shared: l[7].max(0) as u64,
            },
            _module: self,
        })
    }
}

/// One kernel of an [`RtcModule`].
#[derive(Debug)]
pub struct RtcFunction<'m> {
    name: String,
    function: HipFunction,
    limits: Limits,
    _module: &'m RtcModule,
}

impl RtcFunction<'_> {
    /// The kernel's `WK_EXPORT_KERNEL` name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The raw `hipFunction_t`, for your own `hipModuleLaunchKernel`.
    pub fn raw(&self) -> *mut c_void {
        self.function
    }

    /// What a launch of it may ask for on its device.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Launches it on `runtime`'s stream after checking the shape against
    /// [`limits`](Self::limits); `args[i]` points at argument i's value.
    ///
    /// # Safety
    /// `args` match the kernel's parameters in number and type, and the memory they address
    /// stays valid, on the device, until the kernel is done.
    ///
    /// # Errors
    /// `LaunchBounds` before anything is queued; `Device` when the runtime refuses the launch.
    pub unsafe fn launch(
        &self,
        runtime: &HipRuntime,
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_shared_bytes: u32,
        args: &mut [*mut c_void],
    ) -> Result<()> {
        gpu_rtc::check_launch(
            &self.name,
            &self.limits,
            grid,
            block,
            dynamic_shared_bytes.into(),
        )?;
        // SAFETY: a function of a module this borrows, a checked shape, the caller's arguments.
        let code = unsafe {
            sys::hipModuleLaunchKernel(
                self.function,
                grid[0],
                grid[1],
                grid[2],
                block[0],
                block[1],
                block[2],
                dynamic_shared_bytes,
                runtime.stream(),
                args.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        check(code, &format!("launch of {}", self.name))
    }
}
