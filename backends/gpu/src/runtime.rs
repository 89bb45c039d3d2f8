//! What a GPU vendor runtime gives the shared GPU backend: raw device memory, one stream, the
//! device's attributes, and the launcher table of its compiled csrc object.
//!
//! CUDA implements this over cudarc (backends/cuda), HIP over a hand-written FFI
//! (backends/hip). Everything above it (backends/gpu/src/backend.rs) is written once.

use crate::ffi::Launchers;
use wavekit_core::error::Result;

/// A device address as the vendor runtime hands it out (CUdeviceptr / hipDeviceptr_t).
pub type DevPtr = u64;

pub trait GpuRuntime: Send + Sync + 'static {
    /// "cuda" or "hip": names errors and the backend.
    const BACKEND: &'static str;

    /// The device's index among this vendor's devices.
    fn ordinal(&self) -> usize;
    /// Human-readable device name, e.g. "NVIDIA H100 80GB HBM3".
    fn device_name(&self) -> String;
    /// Warp (wavefront) size read from the device attributes at run time.
    fn warp_size(&self) -> u32;
    /// Streaming multiprocessors / compute units.
    fn multiprocessors(&self) -> u32;
    /// The launcher table of this vendor's compiled csrc object (`wk_<vendor>_launchers()`).
    fn launchers(&self) -> &'static Launchers;
    /// Makes this runtime's device (context) current on the calling thread; the launchers use
    /// the vendor runtime API, which works on the current device.
    fn make_current(&self) -> Result<()>;

    fn alloc(&self, bytes: usize) -> Result<DevPtr>;
    /// # Safety
    /// `ptr` came from `alloc` of this runtime and is not used afterwards.
    unsafe fn free(&self, ptr: DevPtr);
    fn memset_zero(&self, ptr: DevPtr, bytes: usize) -> Result<()>;
    /// Returns once `src` has been read, so the caller may reuse it.
    fn copy_htod(&self, dst: DevPtr, src: &[u8]) -> Result<()>;
    /// Returns once `dst` holds the data (stream-ordered after all queued work).
    fn copy_dtoh(&self, dst: &mut [u8], src: DevPtr) -> Result<()>;
    fn copy_dtod(&self, dst: DevPtr, src: DevPtr, bytes: usize) -> Result<()>;
    /// The stream handle passed to every launcher (cudaStream_t / hipStream_t).
    fn stream(&self) -> *mut std::ffi::c_void;
    fn synchronize(&self) -> Result<()>;
    /// Turns a launcher's return code (cudaError_t / hipError_t) into an error naming `call`.
    fn check(&self, code: i32, call: &str) -> Result<()>;
}
