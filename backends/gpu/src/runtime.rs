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
/// - **Copies.** `memset_zero`, `copy_htod`, `copy_dtoh`, `copy_dtoh_strided` and `copy_dtod`
///   touch exactly the bytes named, at the addresses given, and are ordered with the work
///   queued on `stream()`; `copy_htod` has read `src` when it returns and `copy_dtoh` has
///   filled `dst` (after all queued work) when it returns. (Their callers in turn promise
///   that the bytes named lie in live memory: the methods are `unsafe fn`.)
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

    /// Whether a launch can fail for want of host memory after earlier stream work of the
    /// same call has already written its output: the SIMT executor maps fiber stacks and
    /// launch state when a launch starts. A call whose launcher writes its output before the
    /// kernel (the histogram zeroes its counts) then keeps a copy to put back, so that an
    /// error leaves the output as it was. CUDA and HIP launches allocate nothing: false.
    const LAUNCH_ALLOCATES: bool = false;

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
    /// The safe form is `Backend::alloc`, which returns zeroed buffers, or
    /// [`GpuBackend::fill_zero`](crate::GpuBackend::fill_zero) for one that exists.
    ///
    /// # Safety
    /// `ptr..ptr + bytes` lies inside one live device region this runtime may use: one that
    /// `alloc` of this runtime (or of a runtime it is [`same_device`](Self::same_device) with)
    /// returned and `free` has not released, or memory adopted under
    /// [`GpuBackend::adopt_mut`](crate::GpuBackend::adopt_mut)'s contract. Nothing reads or
    /// writes that range while the memset may run unless it is ordered with it: work queued
    /// earlier on [`stream`](Self::stream) is; a kernel on another stream, or a host thread
    /// using the memory (on the SIMT executor device memory is host memory, so that is a data
    /// race), is not. Rust references to the range, if any, are given up for the duration.
    ///
    /// # Errors
    /// A `Device` error.
    unsafe fn memset_zero(&self, ptr: DevPtr, bytes: usize) -> Result<()>;
    /// Copies `src` to `dst`; returns once `src` has been read, so the caller may reuse it.
    ///
    /// The safe form is `Backend::write` (or `Backend::upload`), which checks the length.
    ///
    /// # Safety
    /// `dst..dst + src.len()` satisfies [`memset_zero`](Self::memset_zero)'s contract for
    /// `ptr..ptr + bytes`: inside one live region, written by nothing and read by nothing
    /// that is not ordered with this runtime's stream until the copy is done.
    ///
    /// # Errors
    /// A `Device` error.
    unsafe fn copy_htod(&self, dst: DevPtr, src: &[u8]) -> Result<()>;
    /// Fills `dst` from `src`; returns once `dst` holds the data (stream-ordered after all
    /// queued work).
    ///
    /// The safe form is `Backend::download`, which reads exactly the buffer's bytes.
    ///
    /// # Safety
    /// `src..src + dst.len()` lies inside one live region (as for
    /// [`memset_zero`](Self::memset_zero)) and nothing writes it during the copy unless it is
    /// ordered with this runtime's stream (a kernel on another stream, or a host thread on the
    /// SIMT executor, is not).
    ///
    /// # Errors
    /// A `Device` error.
    unsafe fn copy_dtoh(&self, dst: &mut [u8], src: DevPtr) -> Result<()>;
    /// Fills `dst` with `dst.len() / elem` elements of `elem` bytes each, the k-th from
    /// `src + k * stride`; returns as `copy_dtoh` does. The default copies one element at a
    /// time; a runtime with a pitched copy (cuMemcpy2D) makes it one.
    ///
    /// The safe form is [`SliceDevice::download_strided`](wavekit_core::SliceDevice) on
    /// [`GpuBackend`](crate::GpuBackend), which checks the last element against the buffer.
    ///
    /// # Safety
    /// For every k below `dst.len() / elem`, `src + k * stride .. src + k * stride + elem`
    /// (computed without overflow) satisfies [`copy_dtoh`](Self::copy_dtoh)'s contract, all
    /// inside one live region.
    ///
    /// # Errors
    /// A `Device` error.
    unsafe fn copy_dtoh_strided(
        &self,
        dst: &mut [u8],
        src: DevPtr,
        elem: usize,
        stride: usize,
    ) -> Result<()> {
        // SAFETY: copy_dtoh_each's contract is this method's, passed on unchanged.
        unsafe { copy_dtoh_each(self, dst, src, elem, stride) }
    }
    /// Copies `bytes` bytes from `src` to `dst` on the device, ordered with the stream.
    ///
    /// The safe form is [`GpuBackend::copy`](crate::GpuBackend::copy), between typed buffers
    /// (or their views) of equal length.
    ///
    /// # Safety
    /// `dst..dst + bytes` satisfies [`memset_zero`](Self::memset_zero)'s contract and
    /// `src..src + bytes` [`copy_dtoh`](Self::copy_dtoh)'s (each inside one live region; the
    /// source written by nothing unordered, the destination neither read nor written by
    /// anything unordered), and the two ranges do not overlap.
    ///
    /// # Errors
    /// A `Device` error.
    unsafe fn copy_dtod(&self, dst: DevPtr, src: DevPtr, bytes: usize) -> Result<()>;
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
/// # Safety
/// [`GpuRuntime::copy_dtoh_strided`]'s contract: every element `src + k * stride` of `elem`
/// bytes, for k below `dst.len() / elem`, lies inside one live region of `rt` and is not
/// written during the copy by anything unordered with `rt`'s stream.
///
/// # Errors
/// The runtime's `copy_dtoh` errors.
pub unsafe fn copy_dtoh_each<R: GpuRuntime + ?Sized>(
    rt: &R,
    dst: &mut [u8],
    src: DevPtr,
    elem: usize,
    stride: usize,
) -> Result<()> {
    for (k, d) in dst.chunks_exact_mut(elem.max(1)).enumerate() {
        // SAFETY: element k is one of those the caller vouches for (k < dst.len() / elem), of
        // `d.len()` bytes at `src + k * stride`; `d` is a disjoint part of `dst`.
        unsafe { rt.copy_dtoh(d, src + (k * stride) as DevPtr)? };
    }
    Ok(())
}
