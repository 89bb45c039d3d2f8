//! `HipRuntime`: the safe layer over result.rs, one device and one stream, implementing the
//! shared backend's `GpuRuntime`.

use super::result::{self, CopyKind};
use super::sys::{self, HipStream};
use std::ffi::{c_int, c_void};
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::width::WarpWidth;
use wavekit_gpu::ffi::Launchers;
use wavekit_gpu::runtime::{DevPtr, GpuRuntime};

/// The offload targets the kernels were built for (csrc/src/hip.rs, `WAVEKIT_HIP_ARCHS`).
pub const BUILT_ARCHS: &str = env!("WAVEKIT_HIP_ARCHS");

unsafe extern "C" {
    /// The launcher table of csrc compiled by hipcc (csrc/kernels/table.cu).
    fn wk_hip_launchers() -> *const Launchers;
}

/// The launcher table compiled into this binary; reading it needs no device.
pub fn launchers() -> &'static Launchers {
    // SAFETY: returns the address of a static table that lives for the whole program.
    unsafe { &*wk_hip_launchers() }
}

/// One HIP device and a stream on it that every copy, memset and launch is queued on.
pub struct HipRuntime {
    device: c_int,
    stream: HipStream,
    /// False for a caller's stream (`on_raw_stream`), which is not destroyed on drop.
    owns_stream: bool,
    name: String,
    arch: String,
    warp: WarpWidth,
    multiprocessors: u32,
}

// SAFETY: a HIP stream handle may be used from any host thread (the runtime serialises work on
// it); every other field is plain data. Each call that depends on the thread's current device
// selects this runtime's device first.
unsafe impl Send for HipRuntime {}
// SAFETY: as for Send: `&HipRuntime` only passes the stream handle to HIP calls, which may
// come from several threads at once, and reads the plain fields.
unsafe impl Sync for HipRuntime {}

impl std::fmt::Debug for HipRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HipRuntime")
            .field("device", &self.device)
            .field("name", &self.name)
            .field("arch", &self.arch)
            .field("warp", &self.warp)
            .field("multiprocessors", &self.multiprocessors)
            .field("owns_stream", &self.owns_stream)
            .finish_non_exhaustive()
    }
}

impl HipRuntime {
    /// Opens device `ordinal`. No device, an ordinal past the last, or a device whose target
    /// has no code object in this build give `WavekitError::NoDevice`.
    pub fn new(ordinal: usize) -> Result<Self> {
        let mut rt = Self::described(ordinal, std::ptr::null_mut(), false)?;
        rt.stream = result::stream_create()?;
        rt.owns_stream = true;
        Ok(rt)
    }

    /// Device `ordinal` with every copy, memset and launch queued on the caller's `stream`, in
    /// the caller's stream order. Checked as [`HipRuntime::new`] checks the device.
    ///
    /// ```no_run
    /// use wavekit_hip::HipRuntime;
    /// let stream: *mut std::ffi::c_void = std::ptr::null_mut(); // e.g. from hipStreamCreate
    /// let runtime = unsafe { HipRuntime::on_raw_stream(0, stream)? };
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Safety
    /// `stream` is null (the default stream) or a live stream created on device `ordinal`, and
    /// it is not destroyed while the runtime (or a backend or buffer made with it) lives.
    ///
    /// # Errors
    /// As [`HipRuntime::new`].
    pub unsafe fn on_raw_stream(ordinal: usize, stream: HipStream) -> Result<Self> {
        Self::described(ordinal, stream, false)
    }

    /// Device `ordinal` checked and described, on `stream`.
    fn described(ordinal: usize, stream: HipStream, owns_stream: bool) -> Result<Self> {
        let no_device = |reason: String| WavekitError::NoDevice {
            backend: "hip",
            reason,
        };
        let count = result::device_count().map_err(|e| no_device(e.to_string()))?;
        if count == 0 {
            return Err(no_device(
                "the HIP runtime reports no AMD GPU (hipGetDeviceCount)".into(),
            ));
        }
        if ordinal >= count {
            return Err(no_device(format!(
                "device {ordinal} was requested but {count} exist"
            )));
        }
        let device = ordinal as c_int;
        result::set_device(device)?;
        let name = result::device_name(device)?;
        let arch = result::device_arch_name(device)?;
        if !BUILT_ARCHS
            .split(',')
            .any(|built| target_runs_on(built, &arch))
        {
            return Err(no_device(format!(
                "device {ordinal} ({name}) is {arch}, but wavekit's kernels were built for \
                 {BUILT_ARCHS}; rebuild with WAVEKIT_HIP_ARCHS={}",
                arch.split(':').next().unwrap_or(&arch)
            )));
        }
        // The width comes from the device: code objects and the host agree or kernels say so.
        let lanes = result::device_attribute(sys::wk_hip_abi_attr_warp_size, device, "warp size")?;
        let warp = WarpWidth::new(lanes.max(0) as u32)?;
        let mps = result::device_attribute(
            sys::wk_hip_abi_attr_multiprocessors,
            device,
            "compute units",
        )?;
        Ok(HipRuntime {
            device,
            stream,
            owns_stream,
            name,
            arch,
            warp,
            multiprocessors: mps.max(1) as u32,
        })
    }

    /// Devices the HIP runtime sees (0 without an AMD GPU or driver).
    pub fn device_count() -> Result<usize> {
        result::device_count()
    }

    /// The HIP device index this runtime's work runs on.
    pub fn ordinal(&self) -> usize {
        self.device as usize
    }

    /// The device's target, e.g. `gfx90a:sramecc+:xnack-`.
    pub fn arch(&self) -> &str {
        &self.arch
    }

    fn bind(&self) -> Result<()> {
        result::set_device(self.device)
    }
}

/// Whether a code object built for `built` (`gfx90a`, `gfx90a:xnack-`) loads on a device whose
/// target is `device` (`gfx90a:sramecc+:xnack-`): same processor, and every feature the build
/// pinned set the same way on the device.
pub fn target_runs_on(built: &str, device: &str) -> bool {
    let mut b = built.split(':');
    let mut d = device.split(':');
    if b.next() != d.next() {
        return false;
    }
    let device_features: Vec<&str> = d.collect();
    b.all(|f| device_features.contains(&f))
}

impl Drop for HipRuntime {
    fn drop(&mut self) {
        if !self.owns_stream {
            return;
        }
        let _ = self.bind();
        // SAFETY: the stream is ours and nothing uses it after drop; an error here (a lost
        // device) leaves nothing to recover.
        let _ = unsafe { result::stream_destroy(self.stream) };
    }
}

// SAFETY: (the trait's contract) memory comes from hipMalloc on this runtime's device and goes
// back through hipFree; every copy and memset is queued on the one stream the launchers get,
// and the blocking ones synchronise it first; the table is the one compiled from csrc by this
// crate's build script; the warp size is the device attribute.
unsafe impl GpuRuntime for HipRuntime {
    const BACKEND: &'static str = "hip";

    fn ordinal(&self) -> usize {
        self.device as usize
    }

    fn device_name(&self) -> String {
        format!("{} ({})", self.name, self.arch)
    }

    fn warp_size(&self) -> u32 {
        self.warp.lanes()
    }

    fn multiprocessors(&self) -> u32 {
        self.multiprocessors
    }

    fn launchers(&self) -> &'static Launchers {
        launchers()
    }

    fn make_current(&self) -> Result<()> {
        self.bind()
    }

    fn alloc(&self, bytes: usize) -> Result<DevPtr> {
        if bytes == 0 {
            return Ok(0);
        }
        self.bind()?;
        Ok(result::malloc(bytes)? as DevPtr)
    }

    unsafe fn free(&self, ptr: DevPtr) {
        if ptr == 0 {
            return;
        }
        // Pending work on the stream may still use the memory: it is waited for (hipFree
        // synchronises the device too, per HIP's documentation, but says so only in prose;
        // memory used from other streams is waited for by the buffer, device-wide). An error
        // here (a lost device) leaves nothing to recover.
        let _ = self.bind();
        // SAFETY: `self.stream` is this runtime's live stream (created or adopted in `new`,
        // destroyed only when the runtime drops).
        let _ = unsafe { result::stream_synchronize(self.stream) };
        // SAFETY: the caller promises `ptr` came from this runtime's `alloc` (hipMalloc) and is no
        // longer used; the stream's work on it was waited for just above.
        let _ = unsafe { result::free(ptr as *mut c_void) };
    }

    unsafe fn memset_zero(&self, ptr: DevPtr, bytes: usize) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: ptr..ptr+bytes lies in one live allocation, unused by anything unordered
        // with this stream (the caller's contract); the memset is queued on this stream,
        // which lives as long as `self`.
        unsafe { result::memset_async(ptr as *mut c_void, 0, bytes, self.stream) }
    }

    unsafe fn copy_htod(&self, dst: DevPtr, src: &[u8]) -> Result<()> {
        if src.is_empty() {
            return Ok(());
        }
        // `src` is borrowed only for this call, so the copy must be done before returning.
        // SAFETY: dst..dst+src.len() lies in one live allocation unused by unordered work (the
        // caller's contract); `src` stays borrowed until the stream (live as long as `self`)
        // is synchronised, so the asynchronous copy has read it by then.
        unsafe {
            result::memcpy_async(
                dst as *mut c_void,
                src.as_ptr().cast(),
                src.len(),
                CopyKind::HostToDevice,
                self.stream,
            )?;
            result::stream_synchronize(self.stream)
        }
    }

    unsafe fn copy_dtoh(&self, dst: &mut [u8], src: DevPtr) -> Result<()> {
        if dst.is_empty() {
            return Ok(());
        }
        // SAFETY: src..src+dst.len() lies in one live allocation not written by unordered
        // work (the caller's contract); `dst` is borrowed exclusively until the stream (live
        // as long as `self`) is synchronised, so nothing reads it while the copy writes it.
        unsafe {
            result::memcpy_async(
                dst.as_mut_ptr().cast(),
                src as *const c_void,
                dst.len(),
                CopyKind::DeviceToHost,
                self.stream,
            )?;
            result::stream_synchronize(self.stream)
        }
    }

    unsafe fn copy_dtod(&self, dst: DevPtr, src: DevPtr, bytes: usize) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: both ranges lie in live allocations, do not overlap and are unused by
        // unordered work (the caller's contract); the copy is queued on this stream.
        unsafe {
            result::memcpy_async(
                dst as *mut c_void,
                src as *const c_void,
                bytes,
                CopyKind::DeviceToDevice,
                self.stream,
            )
        }
    }

    fn stream(&self) -> *mut c_void {
        self.stream
    }

    fn synchronize(&self) -> Result<()> {
        // SAFETY: `self.stream` is this runtime's live stream, valid until the runtime drops.
        unsafe { result::stream_synchronize(self.stream) }
    }

    fn synchronize_device(&self) -> Result<()> {
        self.bind()?;
        result::device_synchronize()
    }

    fn check(&self, code: i32, call: &str) -> Result<()> {
        result::check(code, call)
    }
}
