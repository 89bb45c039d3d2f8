//! HIP/ROCm backend: the shared GPU backend over a hand-written HIP runtime FFI.
//!
//! Layers, as in cudarc: `sys` (raw extern declarations of libamdhip64 and of the ABI shim
//! abi.cpp), `result` (each call checked, hipError_t turned into `WavekitError`), `runtime`
//! (`HipRuntime`, the safe `GpuRuntime`). The hip-rs crate is not used: see README.md.

pub mod result;
pub mod runtime;
pub mod sys;

pub use runtime::HipRuntime;

use crate::error::Result;
use crate::gpu::GpuBackend;

/// The HIP backend. `HipBackend::open(ordinal)` or `wavekit::hip::open(ordinal)`.
pub type HipBackend = GpuBackend<HipRuntime>;

/// Opens HIP device `ordinal`: `NoDevice` when there is no AMD GPU, no such device, or no code
/// object for its target in this build.
pub fn open(ordinal: usize) -> Result<HipBackend> {
    GpuBackend::new(HipRuntime::new(ordinal)?)
}

impl GpuBackend<HipRuntime> {
    /// Opens HIP device `ordinal` (see [`open`]).
    pub fn open(ordinal: usize) -> Result<HipBackend> {
        open(ordinal)
    }
}

/// Number of HIP devices, 0 when there is no AMD GPU or driver.
pub fn device_count() -> usize {
    HipRuntime::device_count().unwrap_or(0)
}

/// The launcher table compiled into this binary; reading it needs no device.
pub fn launchers() -> &'static crate::gpu::ffi::Launchers {
    runtime::launchers()
}
