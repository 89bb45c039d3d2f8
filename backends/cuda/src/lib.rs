//! wavekit-cuda, the CUDA backend: `GpuBackend` over a `GpuRuntime` built on cudarc (driver loaded at run
//! time; one context, one stream handed to the csrc launchers).

mod runtime;

pub use runtime::CudaRuntime;

use wavekit_core::error::Result;
use wavekit_gpu::GpuBackend;

/// The CUDA backend. Open one with [`open`].
pub type CudaBackend = GpuBackend<CudaRuntime>;

/// Opens CUDA device `ordinal`: `NoDevice` when there is no driver or no such device.
pub fn open(ordinal: usize) -> Result<CudaBackend> {
    GpuBackend::new(CudaRuntime::new(ordinal)?)
}

/// Number of CUDA devices, 0 when no driver is installed.
pub fn device_count() -> usize {
    runtime::device_count()
}

/// The launcher table compiled into this binary; reading it needs no device.
pub fn launchers() -> &'static wavekit_gpu::ffi::Launchers {
    runtime::launchers()
}
