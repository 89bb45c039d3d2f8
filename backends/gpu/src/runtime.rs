//! What a GPU vendor runtime gives the shared GPU backend: raw device memory, one stream, the
//! device's attributes, and the launcher table of its compiled csrc object.
//!
//! CUDA implements this over cudarc (backends/cuda), HIP over a hand-written FFI
//! (backends/hip). Everything above it (backends/gpu/src/backend.rs) is written once.

pub use crate::ffi::DevPtr;
use crate::ffi::Launchers;
use wavekit_core::error::Result;

/// A vendor runtime under the shared GPU backend.
///
/// # Safety
///
/// `GpuBackend` hands what this trait returns to compiled kernels and to `unsafe` copies
/// without being able to check it, so an implementation promises all of the following; a
/// runtime that breaks one lets safe calls such as `reduce` read or write arbitrary memory.
///
/// - **Memory.** `alloc(bytes)` with `bytes > 0` returns an error, or the address of a fresh
///   region of at least `bytes` bytes on this runtime's device, reachable by the launchers'
///   kernels and by the copy functions, overlapping no other live region, and valid until it is
///   passed to `free`. `free` releases only what `alloc` returned.
/// - **Copies.** `memset_zero`, `copy_htod`, `copy_dtoh` and `copy_dtod` touch exactly the bytes
///   named, at the addresses given, and are ordered with the work queued on `stream()`;
///   `copy_htod` has read `src` when it returns and `copy_dtoh` has filled `dst` (after all
///   queued work) when it returns.
/// - **Launches.** `launchers()` returns the launcher table of wavekit's own csrc object
///   compiled for this device (the ABI version is checked, the code cannot be), `stream()` a
///   handle those launchers accept (or null for the default stream), `make_current` makes the
///   device they launch on current, and `synchronize` returns only once all queued work is
///   done.
/// - **Attributes.** `warp_size()` is the device's warp width, which the kernels were compiled
///   for; `check` returns `Err` for every nonzero code.
/// - **Devices.** `same_device` is true only for runtimes whose memory is interchangeable:
///   an address from one's `alloc` is valid in the other's launches and copies.
/// - **Threads.** Every method may be called from any thread (`Send + Sync`); the backend
///   serialises its launches but not allocation or copies of distinct buffers.
///
/// A runtime in safe code cannot make these promises, so implementing the trait takes
/// `unsafe impl`.
pub unsafe trait GpuRuntime: Send + Sync + 'static {
    /// "cuda" or "hip": names errors and the backend.
    const BACKEND: &'static str;

    /// The device's index among this vendor's devices.
    fn ordinal(&self) -> usize;
    /// Whether memory of `other` may be used by this runtime's launches and copies (and the
    /// reverse): the same device, whatever the stream. Ordinals by default; the SIMT executor
    /// compares its arch layer and width.
    fn same_device(&self, other: &Self) -> bool {
        self.ordinal() == other.ordinal()
    }
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

    /// A fresh device region of at least `bytes` bytes (see the memory promise above).
    ///
    /// # Errors
    /// `OutOfMemory` when the device has no room; a `Device` error.
    fn alloc(&self, bytes: usize) -> Result<DevPtr>;
    /// # Safety
    /// `ptr` came from `alloc` of this runtime and is not used afterwards.
    unsafe fn free(&self, ptr: DevPtr);
    /// Zeroes `bytes` bytes at `ptr`, ordered with the stream.
    ///
    /// # Errors
    /// A `Device` error.
    fn memset_zero(&self, ptr: DevPtr, bytes: usize) -> Result<()>;
    /// Returns once `src` has been read, so the caller may reuse it.
    fn copy_htod(&self, dst: DevPtr, src: &[u8]) -> Result<()>;
    /// Returns once `dst` holds the data (stream-ordered after all queued work).
    fn copy_dtoh(&self, dst: &mut [u8], src: DevPtr) -> Result<()>;
    /// Copies `bytes` bytes from `src` to `dst` on the device, ordered with the stream.
    ///
    /// # Errors
    /// A `Device` error.
    fn copy_dtod(&self, dst: DevPtr, src: DevPtr, bytes: usize) -> Result<()>;
    /// The stream handle passed to every launcher (cudaStream_t / hipStream_t).
    fn stream(&self) -> *mut std::ffi::c_void;
    /// Returns once all work queued on the stream is done.
    ///
    /// # Errors
    /// A `Device` error reported for queued work.
    fn synchronize(&self) -> Result<()>;
    /// Waits for all work queued on the device, on every stream (cuCtxSynchronize,
    /// hipDeviceSynchronize): before memory used from several streams is freed.
    fn synchronize_device(&self) -> Result<()>;
    /// Turns a launcher's return code (cudaError_t / hipError_t) into an error naming `call`.
    fn check(&self, code: i32, call: &str) -> Result<()>;
    /// Lets this runtime's kernels read and write memory of device `peer` of the same vendor in
    /// this process (CUDA peer access). `Ok(false)` where the devices cannot (no NVLink or PCIe
    /// peer path) or the runtime has no peer access at all, which is the default.
    ///
    /// # Errors
    /// A `Device` error when the driver refuses a pair it said could work.
    fn enable_peer_access(&self, peer: usize) -> Result<bool> {
        let _ = peer;
        Ok(false)
    }
}
