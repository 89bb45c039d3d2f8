//! wavekit-cuda, the CUDA backend: `GpuBackend` over a `GpuRuntime` built on cudarc (driver loaded at run
//! time; one context, one stream handed to the csrc launchers).

#![warn(missing_docs)]
#![warn(missing_debug_implementations)]

mod interop;
pub mod rtc;
mod runtime;

/// The cudarc this crate is built with: use its types (`CudaContext`, `CudaStream`,
/// `CudaSlice`) so that they match the ones wavekit takes.
pub use cudarc;
pub use interop::{AsWavekit, AsWavekitMut, CudaBufferView, CudaBufferViewMut};
pub use runtime::CudaRuntime;

use wavekit_core::error::Result;
use wavekit_gpu::GpuBackend;

/// The CUDA backend. Open one with [`open`].
pub type CudaBackend = GpuBackend<CudaRuntime>;

/// Opens CUDA device `ordinal`: `NoDevice` when there is no driver or no such device.
pub fn open(ordinal: usize) -> Result<CudaBackend> {
    GpuBackend::new(CudaRuntime::new(ordinal)?)
}

/// A CUDA backend on the caller's `stream`: every copy and launch is queued there, in the
/// caller's stream order (see [`CudaRuntime::on_stream`]). Several backends on several streams
/// of one device share buffers; ordering between the streams is then the caller's.
///
/// ```no_run
/// use wavekit_cuda::cudarc::driver::CudaContext;
/// use wavekit_core::{Backend, Collectives, ReduceOp};
/// let stream = CudaContext::new(0)?.new_stream()?;
/// let wk = wavekit_cuda::open_on_stream(stream)?;
/// let buf = wk.upload(&[1i32, 2, 3])?;
/// assert_eq!(wk.reduce(&buf, ReduceOp::Sum)?, 6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`CudaRuntime::on_stream`].
pub fn open_on_stream(stream: std::sync::Arc<cudarc::driver::CudaStream>) -> Result<CudaBackend> {
    GpuBackend::new(CudaRuntime::on_stream(stream)?)
}

/// A CUDA backend on a raw `CUstream` of device `ordinal`'s primary context (see
/// [`CudaRuntime::on_raw_stream`]).
///
/// ```no_run
/// use wavekit_cuda::cudarc::driver::CudaContext;
/// let stream = CudaContext::new(0)?.new_stream()?;
/// let wk = unsafe { wavekit_cuda::open_on_raw_stream(0, stream.cu_stream())? };
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Safety
/// As [`CudaRuntime::on_raw_stream`].
///
/// # Errors
/// As [`CudaRuntime::on_raw_stream`].
pub unsafe fn open_on_raw_stream(
    ordinal: usize,
    stream: cudarc::driver::sys::CUstream,
) -> Result<CudaBackend> {
    // SAFETY: the caller's contract is on_raw_stream's.
    GpuBackend::new(unsafe { CudaRuntime::on_raw_stream(ordinal, stream)? })
}

/// Number of CUDA devices, 0 when no driver is installed.
pub fn device_count() -> usize {
    runtime::device_count()
}

/// The launcher table compiled into this binary; reading it needs no device.
pub fn launchers() -> &'static wavekit_gpu::ffi::Launchers {
    runtime::launchers()
}
