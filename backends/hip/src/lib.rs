//! wavekit-hip, the HIP/ROCm backend: the shared GPU backend over a hand-written HIP runtime FFI.
//!
//! Layers, as in cudarc: `sys` (raw extern declarations of libamdhip64 and of the ABI shim
//! abi.cpp), `result` (each call checked, hipError_t turned into `WavekitError`), `runtime`
//! (`HipRuntime`, the safe `GpuRuntime`). The hip-rs crate is not used: see README.md.

#![warn(missing_docs)]
#![warn(missing_debug_implementations)]

pub mod result;
pub mod rtc;
pub mod runtime;
pub mod sys;

pub use runtime::HipRuntime;

/// What this build compiled, for tests that read the built code objects.
pub mod build_info {
    /// The static archive of the HIP kernels (one fat object per csrc source).
    pub const KERNEL_LIB: &str = env!("WAVEKIT_HIP_KERNEL_LIB");
    /// The offload targets built, comma-separated.
    pub const ARCHS: &str = env!("WAVEKIT_HIP_ARCHS");
    /// `default`, or `WAVEKIT_HIP_ARCHS` when the environment chose the targets.
    pub const ARCHS_SOURCE: &str = env!("WAVEKIT_HIP_ARCHS_SOURCE");
    /// The hipcc that compiled them (the host side, and the targets the installed ROCm has
    /// device libraries for).
    pub const HIPCC: &str = env!("WAVEKIT_HIPCC");
    /// The clang++ that compiled the targets the installed ROCm predates (gfx942 on Debian's
    /// ROCm 5.2); empty when hipcc compiled every target.
    pub const CLANG: &str = env!("WAVEKIT_HIP_CLANG");
    /// The targets clang compiled, comma-separated; empty when hipcc compiled every target.
    pub const CLANG_ARCHS: &str = env!("WAVEKIT_HIP_CLANG_ARCHS");
}

use wavekit_core::error::Result;
use wavekit_gpu::GpuBackend;

/// The HIP backend. Open one with [`open`].
pub type HipBackend = GpuBackend<HipRuntime>;

/// Opens HIP device `ordinal`: `NoDevice` when there is no AMD GPU, no such device, or no code
/// object for its target in this build.
pub fn open(ordinal: usize) -> Result<HipBackend> {
    GpuBackend::new(HipRuntime::new(ordinal)?)
}

/// A HIP backend on the caller's raw `hipStream_t` of device `ordinal`: every copy and launch
/// is queued there. Memory the caller allocated goes in through
/// [`GpuBackend::adopt`]/[`GpuBackend::adopt_mut`].
///
/// ```no_run
/// use wavekit_core::{Collectives, ReduceOp};
/// let stream: *mut std::ffi::c_void = std::ptr::null_mut(); // the caller's hipStream_t
/// let wk = unsafe { wavekit_hip::open_on_raw_stream(0, stream)? };
/// let (device_ptr, len): (u64, usize) = (0, 0); // the caller's hipMalloc'd f32s
/// let data = unsafe { wk.adopt::<f32>(device_ptr, len)? };
/// let total = wk.reduce(&data, ReduceOp::Sum)?;
/// # Ok::<(), wavekit_core::WavekitError>(())
/// ```
///
/// # Safety
/// As [`HipRuntime::on_raw_stream`].
///
/// # Errors
/// As [`HipRuntime::new`].
pub unsafe fn open_on_raw_stream(ordinal: usize, stream: sys::HipStream) -> Result<HipBackend> {
    // SAFETY: the caller's contract is on_raw_stream's.
    GpuBackend::new(unsafe { HipRuntime::on_raw_stream(ordinal, stream)? })
}

/// Number of HIP devices, 0 when there is no AMD GPU or driver.
pub fn device_count() -> usize {
    HipRuntime::device_count().unwrap_or(0)
}

/// The launcher table compiled into this binary; reading it needs no device.
pub fn launchers() -> &'static wavekit_gpu::ffi::Launchers {
    runtime::launchers()
}
