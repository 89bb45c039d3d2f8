//! What a GPU vendor runtime gives the shared GPU backend: raw device memory, one stream, the
//! device's attributes, and the launcher table of its compiled csrc object.
//!
//! CUDA implements this over cudarc (backends/cuda), HIP over a hand-written FFI
//! (backends/hip). Everything above it (backends/gpu/src/backend.rs) is written once.

pub use crate::ffi::DevPtr;
use crate::ffi::Launchers;
use wavekit_core::error::{Result, WavekitError};

/// Bytes of a vendor's inter-process memory handle (`cudaIpcMemHandle_t`).
pub const IPC_HANDLE_BYTES: usize = 64;

/// Device memory exported to the other processes of this host ([`GpuRuntime::ipc_export`]):
/// the handle of the allocation holding it and where it lies in that allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpcHandle {
    /// The vendor's handle of the whole allocation, as it travels between processes.
    pub bytes: [u8; IPC_HANDLE_BYTES],
    /// Bytes from the allocation's start to the exported address.
    pub offset: u64,
}

impl IpcHandle {
    /// Words of [`Self::to_words`].
    pub const WORDS: usize = IPC_HANDLE_BYTES / 8 + 1;

    /// The handle as words, for exchanges of `u64`s (the offset last).
    pub fn to_words(&self) -> [u64; Self::WORDS] {
        let mut w = [0; Self::WORDS];
        for (word, b) in w.iter_mut().zip(self.bytes.chunks_exact(8)) {
            *word = u64::from_le_bytes(b.try_into().expect("8 bytes"));
        }
        w[Self::WORDS - 1] = self.offset;
        w
    }

    /// The handle [`Self::to_words`] gave.
    pub fn from_words(w: &[u64; Self::WORDS]) -> Self {
        let mut bytes = [0; IPC_HANDLE_BYTES];
        for (b, word) in bytes.chunks_exact_mut(8).zip(w) {
            b.copy_from_slice(&word.to_le_bytes());
        }
        IpcHandle {
            bytes,
            offset: w[Self::WORDS - 1],
        }
    }
}

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
    /// Most bytes of freed memory a backend over this runtime keeps for reuse by default
    /// (`GpuBackend::set_memory_cache_limit`): no limit, unless the runtime needs every
    /// buffer to be exactly its own allocation.
    fn memory_cache_limit(&self) -> usize {
        usize::MAX
    }
    /// Zeroes `bytes` bytes at `ptr`, ordered with the stream.
    ///
    /// # Errors
    /// A `Device` error.
    fn memset_zero(&self, ptr: DevPtr, bytes: usize) -> Result<()>;
    /// Returns once `src` has been read, so the caller may reuse it.
    fn copy_htod(&self, dst: DevPtr, src: &[u8]) -> Result<()>;
    /// Returns once `dst` holds the data (stream-ordered after all queued work).
    fn copy_dtoh(&self, dst: &mut [u8], src: DevPtr) -> Result<()>;
    /// Fills `dst` with `dst.len() / elem` elements of `elem` bytes each, the k-th from
    /// `src + k * stride` (every one inside one region from `alloc`); returns as `copy_dtoh`
    /// does. The default copies one element at a time; a runtime with a pitched copy
    /// (cuMemcpy2D) makes it one.
    ///
    /// # Errors
    /// A `Device` error.
    fn copy_dtoh_strided(
        &self,
        dst: &mut [u8],
        src: DevPtr,
        elem: usize,
        stride: usize,
    ) -> Result<()> {
        copy_dtoh_each(self, dst, src, elem, stride)
    }
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
    /// A handle through which another process of this host can map the memory at `ptr` (an
    /// address from [`Self::alloc`]) with [`Self::ipc_open`] (CUDA IPC). `Ok(None)` where the
    /// runtime cannot, which is the default.
    ///
    /// # Errors
    /// A `Device` error when the driver refuses memory it should export.
    fn ipc_export(&self, ptr: DevPtr) -> Result<Option<IpcHandle>> {
        let _ = ptr;
        Ok(None)
    }
    /// Maps memory another process exported ([`Self::ipc_export`]) for this runtime's kernels;
    /// returns the exported address as this process sees it.
    ///
    /// # Safety
    /// `handle` came from `ipc_export` in another live process of this host, whose memory stays
    /// allocated until [`Self::ipc_close`] here.
    ///
    /// # Errors
    /// A `Device` error (the default: the runtime has no IPC).
    unsafe fn ipc_open(&self, handle: &IpcHandle) -> Result<DevPtr> {
        let _ = handle;
        Err(WavekitError::Device {
            backend: Self::BACKEND,
            call: "ipc_open".into(),
            message: "this runtime cannot map another process's memory".into(),
        })
    }
    /// Unmaps what [`Self::ipc_open`] returned for `handle`; errors are ignored (it runs when a
    /// mapping is dropped).
    ///
    /// # Safety
    /// `ptr` is `ipc_open(handle)`'s result, not closed before and no longer used.
    unsafe fn ipc_close(&self, ptr: DevPtr, handle: &IpcHandle) {
        let _ = (ptr, handle);
    }
}

/// [`GpuRuntime::copy_dtoh_strided`] one element at a time (its default, and a runtime's
/// fallback where its pitched copy does not apply).
///
/// # Errors
/// The runtime's `copy_dtoh` errors.
pub fn copy_dtoh_each<R: GpuRuntime + ?Sized>(
    rt: &R,
    dst: &mut [u8],
    src: DevPtr,
    elem: usize,
    stride: usize,
) -> Result<()> {
    for (k, d) in dst.chunks_exact_mut(elem.max(1)).enumerate() {
        rt.copy_dtoh(d, src + (k * stride) as DevPtr)?;
    }
    Ok(())
}
