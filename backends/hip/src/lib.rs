//! wavekit-hip, the HIP/ROCm backend: the shared GPU backend over a hand-written HIP runtime FFI.
//!
//! Layers, as in cudarc: `sys` (raw extern declarations of libamdhip64 and of the ABI shim
//! abi.cpp), `result` (each call checked, hipError_t turned into `WavekitError`), `runtime`
//! (`HipRuntime`, the safe `GpuRuntime`). The hip-rs crate is not used: see README.md.

pub mod result;
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
    /// The hipcc that compiled them.
    pub const HIPCC: &str = env!("WAVEKIT_HIPCC");
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

/// Number of HIP devices, 0 when there is no AMD GPU or driver.
pub fn device_count() -> usize {
    HipRuntime::device_count().unwrap_or(0)
}

/// The launcher table compiled into this binary; reading it needs no device.
pub fn launchers() -> &'static wavekit_gpu::ffi::Launchers {
    runtime::launchers()
}
