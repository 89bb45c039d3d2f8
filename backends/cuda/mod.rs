//! The CUDA backend: `GpuBackend` over a `GpuRuntime` built on cudarc (driver loaded at run
//! time; one context, one stream handed to the csrc launchers).

mod runtime;

pub use runtime::CudaRuntime;

use crate::error::Result;
use crate::gpu::GpuBackend;

/// The CUDA backend. `CudaBackend::open(ordinal)` or `wavekit::cuda::open(ordinal)`.
pub type CudaBackend = GpuBackend<CudaRuntime>;

/// Opens CUDA device `ordinal`: `NoDevice` when there is no driver or no such device.
pub fn open(ordinal: usize) -> Result<CudaBackend> {
    GpuBackend::new(CudaRuntime::new(ordinal)?)
}

impl GpuBackend<CudaRuntime> {
    /// Opens CUDA device `ordinal` (see [`open`]).
    pub fn open(ordinal: usize) -> Result<CudaBackend> {
        open(ordinal)
    }
}

/// Number of CUDA devices, 0 when no driver is installed.
pub fn device_count() -> usize {
    runtime::device_count()
}

/// The launcher table compiled into this binary; reading it needs no device.
pub fn launchers() -> &'static crate::gpu::ffi::Launchers {
    runtime::launchers()
}
