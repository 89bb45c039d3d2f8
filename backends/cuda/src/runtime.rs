//! `GpuRuntime` over cudarc's driver API. Errors are checked on every call; the csrc launchers
//! run on this runtime's stream in this runtime's (primary) context, made current per thread.

use cudarc::driver::result::{self as cu, DriverError};
use cudarc::driver::sys::{self, CUdevice_attribute};
use cudarc::driver::{CudaContext, CudaStream};
use std::collections::HashMap;
use std::ffi::CStr;
use std::sync::{Arc, Mutex, OnceLock};
use wavekit_core::error::{Result, WavekitError};
use wavekit_gpu::ffi::Launchers;
use wavekit_gpu::{DevPtr, GpuRuntime, IPC_HANDLE_BYTES, IpcHandle};

unsafe extern "C" {
    /// The launcher table of csrc compiled by nvcc (csrc/kernels/table.cu).
    fn wk_cuda_launchers() -> *const Launchers;
}

/// CUDA device memory, one stream (wavekit's own or the caller's), and the device's
/// attributes, over cudarc's driver API.
pub struct CudaRuntime {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    ordinal: usize,
    name: String,
    warp: u32,
    sms: u32,
}

pub(crate) fn launchers() -> &'static Launchers {
    // SAFETY: returns the address of a static table that lives for the whole program.
    unsafe { &*wk_cuda_launchers() }
}

fn driver_present() -> bool {
    // SAFETY: only tries to open the library; no CUDA call is made.
    unsafe { sys::is_culib_present() }
}

pub(crate) fn device_count() -> usize {
    if !driver_present() {
        return 0;
    }
    cu::init()
        .and_then(|_| cu::device::get_count())
        .map_or(0, |c| c.max(0) as usize)
}

/// The primary context of each device opened, kept for the life of the process: the static CUDA
/// runtime inside the launchers binds its state to that context, so it must never be released
/// and re-created under it when the last backend on a device is dropped.
fn primary_context(ordinal: usize) -> std::result::Result<Arc<CudaContext>, DriverError> {
    static CONTEXTS: OnceLock<Mutex<HashMap<usize, Arc<CudaContext>>>> = OnceLock::new();
    let mut map = CONTEXTS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(ctx) = map.get(&ordinal) {
        return Ok(Arc::clone(ctx));
    }
    let ctx = CudaContext::new(ordinal)?;
    map.insert(ordinal, Arc::clone(&ctx));
    Ok(ctx)
}

fn err(call: &str, e: DriverError) -> WavekitError {
    WavekitError::Device {
        backend: "cuda",
        call: call.to_string(),
        message: e.to_string(),
    }
}

fn no_device(reason: String) -> WavekitError {
    WavekitError::NoDevice {
        backend: "cuda",
        reason,
    }
}

/// `Ok` when the driver is present and has device `ordinal`.
fn check_device(ordinal: usize) -> Result<()> {
    if !driver_present() {
        return Err(no_device(
            "the CUDA driver library (libcuda.so.1) was not found".into(),
        ));
    }
    cu::init().map_err(|e| no_device(format!("cuInit failed: {e}")))?;
    let count = cu::device::get_count().map_err(|e| no_device(format!("cuDeviceGetCount: {e}")))?;
    if ordinal >= count.max(0) as usize {
        return Err(no_device(format!(
            "device {ordinal} requested, {count} present"
        )));
    }
    Ok(())
}

impl std::fmt::Debug for CudaRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaRuntime")
            .field("ordinal", &self.ordinal)
            .field("name", &self.name)
            .field("warp", &self.warp)
            .field("sms", &self.sms)
            .finish_non_exhaustive()
    }
}

impl CudaRuntime {
    /// Device `ordinal` on a new stream of its primary context.
    ///
    /// # Errors
    /// `NoDevice` without a driver or such a device; a `Device` error from the driver.
    pub fn new(ordinal: usize) -> Result<Self> {
        check_device(ordinal)?;
        let ctx = primary_context(ordinal).map_err(|e| no_device(format!("context: {e}")))?;
        let stream = ctx.new_stream().map_err(|e| err("cuStreamCreate", e))?;
        Self::with_stream(ctx, stream)
    }

    /// The device of `stream` with every copy, memset and launch queued on `stream`: wavekit
    /// runs in the caller's stream order. The stream's context must be its device's primary
    /// one (what `CudaContext::new` opens), since the launchers' CUDA runtime binds to it.
    ///
    /// ```no_run
    /// use wavekit_cuda::{CudaRuntime, cudarc::driver::CudaContext};
    /// let ctx = CudaContext::new(0)?;
    /// let stream = ctx.new_stream()?;
    /// let runtime = CudaRuntime::on_stream(stream.clone())?;
    /// assert!(runtime.cuda_stream() == &stream);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedStream` for a stream of a context other than the device's primary one;
    /// `NoDevice`; a `Device` error reading the device's attributes.
    pub fn on_stream(stream: Arc<CudaStream>) -> Result<Self> {
        let ctx = Arc::clone(stream.context());
        let ordinal = ctx.ordinal();
        check_device(ordinal)?;
        let primary = primary_context(ordinal).map_err(|e| no_device(format!("context: {e}")))?;
        if ctx.cu_ctx() != primary.cu_ctx() {
            return Err(WavekitError::UnsupportedStream {
                reason: format!(
                    "the stream belongs to a context of device {ordinal} that is not its \
                     primary context; wavekit's kernels run in the primary context \
                     (CudaContext::new)"
                ),
            });
        }
        Self::with_stream(ctx, stream)
    }

    /// [`CudaRuntime::on_stream`] for a raw `CUstream` of device `ordinal`'s primary context
    /// (or null for its legacy default stream).
    ///
    /// ```no_run
    /// use wavekit_cuda::{CudaRuntime, cudarc::driver::CudaContext};
    /// let ctx = CudaContext::new(0)?;
    /// let stream = ctx.new_stream()?;
    /// // A stream handle from another library, here cudarc's own.
    /// let runtime = unsafe { CudaRuntime::on_raw_stream(0, stream.cu_stream())? };
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Safety
    /// `stream` is null or a live stream created in device `ordinal`'s primary context, and it
    /// is not destroyed while the runtime (or a backend or buffer made with it) lives.
    ///
    /// # Errors
    /// `NoDevice`; a `Device` error reading the device's attributes.
    pub unsafe fn on_raw_stream(ordinal: usize, stream: sys::CUstream) -> Result<Self> {
        check_device(ordinal)?;
        let ctx = primary_context(ordinal).map_err(|e| no_device(format!("context: {e}")))?;
        // SAFETY: the caller promises a stream of this (primary) context that outlives us.
        let stream = unsafe { ctx.wrap_borrowed_stream(stream) };
        Self::with_stream(ctx, stream)
    }

    fn with_stream(ctx: Arc<CudaContext>, stream: Arc<CudaStream>) -> Result<Self> {
        let ordinal = ctx.ordinal();
        let attr = |a: CUdevice_attribute, what: &str| -> Result<u32> {
            let v = ctx.attribute(a).map_err(|e| err(what, e))?;
            u32::try_from(v).map_err(|_| WavekitError::Device {
                backend: "cuda",
                call: what.into(),
                message: format!("attribute value {v}"),
            })
        };
        let warp = attr(
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_WARP_SIZE,
            "warp size",
        )?;
        let sms = attr(
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            "multiprocessors",
        )?;
        let name = ctx.name().map_err(|e| err("cuDeviceGetName", e))?;
        Ok(CudaRuntime {
            ctx,
            stream,
            ordinal,
            name,
            warp,
            sms,
        })
    }

    /// The cudarc stream every launch of this runtime goes to, for interoperation: record an
    /// event on it, make another stream wait for it, or launch the caller's own kernels in
    /// order with wavekit's.
    pub fn cuda_stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The (primary) context of this runtime's device.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// A timing event recorded on this runtime's stream now: `a.elapsed_ms(&b)` between two
    /// of them (of any runtime on this device) is the device time between the two points.
    ///
    /// # Errors
    /// A `Device` error when the event cannot be made or recorded.
    pub fn record_event(&self) -> Result<cudarc::driver::CudaEvent> {
        self.stream
            .record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(|e| err("cuEventRecord", e))
    }

    fn bind(&self) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| err("cuCtxSetCurrent", e))
    }
}

// SAFETY: (the trait's contract) memory comes from cuMemAlloc in this runtime's bound context
// and goes back through cuMemFree; every copy and memset is queued on the one stream the
// launchers get, and the blocking ones synchronise it first; the table is the one compiled
// from csrc by this crate's build script; the warp size is the device attribute.
unsafe impl GpuRuntime for CudaRuntime {
    const BACKEND: &'static str = "cuda";

    fn ordinal(&self) -> usize {
        self.ordinal
    }

    fn device_name(&self) -> String {
        self.name.clone()
    }

    fn warp_size(&self) -> u32 {
        self.warp
    }

    fn multiprocessors(&self) -> u32 {
        self.sms
    }

    fn launchers(&self) -> &'static Launchers {
        launchers()
    }

    fn make_current(&self) -> Result<()> {
        self.bind()
    }

    fn alloc(&self, bytes: usize) -> Result<DevPtr> {
        self.bind()?;
        // SAFETY: plain device allocation in the bound context.
        unsafe { cu::malloc_sync(bytes) }.map_err(|e| match e.0 {
            sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => WavekitError::OutOfMemory {
                bytes: bytes as u64,
            },
            _ => err("cuMemAlloc", e),
        })
    }

    unsafe fn free(&self, ptr: DevPtr) {
        // Freeing happens in Drop, where an error cannot be returned; a failure here means
        // the context is already broken, which the next checked call reports. cuMemFree only
        // "may" synchronise, so work queued on this stream is waited for first (memory used
        // from other streams too is waited for by the buffer, device-wide).
        if self.bind().is_ok() && self.synchronize().is_ok() {
            // SAFETY: the caller guarantees ptr came from alloc and is no longer used.
            let _ = unsafe { cu::free_sync(ptr) };
        }
    }

    unsafe fn memset_zero(&self, ptr: DevPtr, bytes: usize) -> Result<()> {
        self.bind()?;
        // SAFETY: ptr..ptr+bytes lies in one live allocation of this context, unused by
        // anything unordered with this stream (the caller's contract); the memset is queued
        // on the stream.
        unsafe { cu::memset_d8_async(ptr, 0, bytes, self.stream.cu_stream()) }
            .map_err(|e| err("cuMemsetD8Async", e))
    }

    unsafe fn copy_htod(&self, dst: DevPtr, src: &[u8]) -> Result<()> {
        self.bind()?;
        // SAFETY: dst..dst+src.len() lies in one live allocation unused by unordered work (the
        // caller's contract); `src` stays borrowed until the stream is synchronised below, so
        // the asynchronous copy has read it before the borrow ends (on an error from the
        // enqueue, nothing was queued).
        unsafe { cu::memcpy_htod_async(dst, src, self.stream.cu_stream()) }
            .map_err(|e| err("cuMemcpyHtoDAsync", e))?;
        self.synchronize()
    }

    unsafe fn copy_dtoh(&self, dst: &mut [u8], src: DevPtr) -> Result<()> {
        self.bind()?;
        // SAFETY: src..src+dst.len() lies in one live allocation not written by unordered
        // work (the caller's contract); `dst` is borrowed exclusively until the stream is
        // synchronised below, so nothing reads it while the copy writes it.
        unsafe { cu::memcpy_dtoh_async(dst, src, self.stream.cu_stream()) }
            .map_err(|e| err("cuMemcpyDtoHAsync", e))?;
        self.synchronize()
    }

    unsafe fn copy_dtoh_strided(
        &self,
        dst: &mut [u8],
        src: DevPtr,
        elem: usize,
        stride: usize,
    ) -> Result<()> {
        // A pitch takes at most i32::MAX bytes and at least a row's.
        if elem == 0 || stride < elem || stride > i32::MAX as usize {
            // SAFETY: the same contract as this method's, passed on.
            return unsafe { wavekit_gpu::runtime::copy_dtoh_each(self, dst, src, elem, stride) };
        }
        self.bind()?;
        let copy = sys::CUDA_MEMCPY2D {
            srcXInBytes: 0,
            srcY: 0,
            srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
            srcHost: std::ptr::null(),
            srcDevice: src,
            srcArray: std::ptr::null_mut(),
            srcPitch: stride,
            dstXInBytes: 0,
            dstY: 0,
            dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_HOST,
            dstHost: dst.as_mut_ptr().cast(),
            dstDevice: 0,
            dstArray: std::ptr::null_mut(),
            dstPitch: elem,
            WidthInBytes: elem,
            Height: dst.len() / elem,
        };
        // SAFETY: rows of `elem` bytes `stride` apart lie in one live allocation not written
        // by unordered work (the caller's contract); `dst` holds every row (`Height` is
        // `dst.len() / elem` rows of `elem` bytes, packed) and is borrowed exclusively until
        // the stream is synchronised below; the descriptor lives on this frame, which the
        // driver reads during the call.
        unsafe { sys::cuMemcpy2DAsync_v2(&copy, self.stream.cu_stream()) }
            .result()
            .map_err(|e| err("cuMemcpy2DAsync", e))?;
        self.synchronize()
    }

    unsafe fn copy_dtod(&self, dst: DevPtr, src: DevPtr, bytes: usize) -> Result<()> {
        self.bind()?;
        // SAFETY: both ranges lie in live allocations, do not overlap and are not used by
        // unordered work (the caller's contract); the copy is queued on the stream.
        unsafe { cu::memcpy_dtod_async(dst, src, bytes, self.stream.cu_stream()) }
            .map_err(|e| err("cuMemcpyDtoDAsync", e))
    }

    fn stream(&self) -> *mut std::ffi::c_void {
        self.stream.cu_stream().cast()
    }

    fn synchronize(&self) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(|e| err("cuStreamSynchronize", e))
    }

    fn synchronize_device(&self) -> Result<()> {
        self.ctx
            .synchronize()
            .map_err(|e| err("cuCtxSynchronize", e))
    }

    fn check(&self, code: i32, call: &str) -> Result<()> {
        if code == 0 {
            return Ok(());
        }
        // SAFETY: error_string returns a static NUL-terminated string for any code.
        let msg = unsafe { CStr::from_ptr((self.launchers().error_string)(code)) };
        Err(WavekitError::Device {
            backend: "cuda",
            call: call.to_string(),
            message: format!("{} (CUDA runtime error {code})", msg.to_string_lossy()),
        })
    }

    fn enable_peer_access(&self, peer: usize) -> Result<bool> {
        if peer == self.ordinal {
            return Ok(true);
        }
        check_device(peer)?;
        let mut can = 0;
        let code =
            // SAFETY: two device ordinals that exist (the peer's checked just above).
            unsafe { sys::cuDeviceCanAccessPeer(&mut can, self.ordinal as i32, peer as i32) };
        code.result().map_err(|e| err("cuDeviceCanAccessPeer", e))?;
        if can == 0 {
            return Ok(false);
        }
        let peer_ctx = primary_context(peer).map_err(|e| err("cuDevicePrimaryCtxRetain", e))?;
        self.bind()?;
        // SAFETY: the peer's primary context, kept for the life of the process.
        match unsafe { sys::cuCtxEnablePeerAccess(peer_ctx.cu_ctx(), 0) } {
            sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {
                Ok(true)
            }
            code => Err(err("cuCtxEnablePeerAccess", DriverError(code))),
        }
    }

    fn ipc_export(&self, ptr: DevPtr) -> Result<Option<IpcHandle>> {
        self.bind()?;
        let (mut base, mut size) = (0, 0);
        // SAFETY: writes two words; `ptr` is any address (an error when it is not device memory).
        unsafe { sys::cuMemGetAddressRange_v2(&mut base, &mut size, ptr) }
            .result()
            .map_err(|e| err("cuMemGetAddressRange", e))?;
        let mut handle = sys::CUipcMemHandle {
            reserved: [0; IPC_HANDLE_BYTES],
        };
        // SAFETY: writes one handle for the allocation holding `ptr`.
        match unsafe { sys::cuIpcGetMemHandle(&mut handle, ptr) } {
            sys::CUresult::CUDA_SUCCESS => {}
            sys::CUresult::CUDA_ERROR_NOT_SUPPORTED => return Ok(None),
            code => return Err(err("cuIpcGetMemHandle", DriverError(code))),
        }
        Ok(Some(IpcHandle {
            bytes: handle.reserved.map(|c| c as u8),
            offset: ptr - base,
        }))
    }

    unsafe fn ipc_open(&self, handle: &IpcHandle) -> Result<DevPtr> {
        self.bind()?;
        let h = sys::CUipcMemHandle {
            reserved: handle.bytes.map(|b| b as std::ffi::c_char),
        };
        let mut base = 0;
        let lazy = sys::CUipcMem_flags_enum::CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS as u32;
        // SAFETY: the caller vouches for the handle (another live process's export).
        unsafe { sys::cuIpcOpenMemHandle_v2(&mut base, h, lazy) }
            .result()
            .map_err(|e| err("cuIpcOpenMemHandle", e))?;
        Ok(base + handle.offset)
    }

    unsafe fn ipc_close(&self, ptr: DevPtr, handle: &IpcHandle) {
        if self.bind().is_ok() {
            // SAFETY: the caller passes an address ipc_open returned and no longer uses it.
            let _ = unsafe { sys::cuIpcCloseMemHandle(ptr - handle.offset) };
        }
    }
}
