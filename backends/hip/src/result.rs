//! Thin checked wrappers over sys.rs: each returns `Result`, turning a failed `hipError_t` into
//! `WavekitError::Device` with the runtime's own name and message for the code.
//!
//! Functions taking raw device pointers are `unsafe`: the caller vouches for the pointers and
//! sizes; runtime.rs is the safe layer.

use super::sys::{self, HipError, HipStream};
use std::ffi::{CStr, c_char, c_int, c_void};
use wavekit_core::error::{Result, WavekitError};

const BACKEND: &str = "hip";

/// `Ok` for hipSuccess, else the error with `call` named.
pub fn check(code: HipError, call: &str) -> Result<()> {
    if code == sys::wk_hip_abi_success {
        Ok(())
    } else {
        Err(WavekitError::Device {
            backend: BACKEND,
            call: call.to_string(),
            message: describe(code),
        })
    }
}

/// `hipErrorNoDevice (100): no ROCm-capable device is detected` (ROCm 5.2's
/// hipGetErrorString returns the name again; it is then not repeated).
pub fn describe(code: HipError) -> String {
    // SAFETY: both return pointers to static NUL-terminated strings (or null), for any code.
    let name = unsafe { static_str(sys::hipGetErrorName(code)) };
    // SAFETY: as for the name just above: a static NUL-terminated string (or null) for any code.
    let text = unsafe { static_str(sys::hipGetErrorString(code)) };
    match (name, text) {
        (Some(n), Some(t)) if n != t => format!("{n} ({code}): {t}"),
        (Some(n), _) | (None, Some(n)) => format!("{n} ({code})"),
        (None, None) => format!("HIP error {code}"),
    }
}

/// # Safety
/// `p` is null or points to a NUL-terminated string that lives for the program.
unsafe fn static_str(p: *const c_char) -> Option<String> {
    // SAFETY: the caller promises `p` is a NUL-terminated string that lives for the program, and it
    // is not null here.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// The number of HIP devices; 0 when the runtime reports hipErrorNoDevice.
pub fn device_count() -> Result<usize> {
    let mut n: c_int = 0;
    // SAFETY: writes one c_int through a reference to a local, which outlives the call.
    let code = unsafe { sys::hipGetDeviceCount(&mut n) };
    if code == sys::wk_hip_abi_error_no_device {
        return Ok(0);
    }
    check(code, "hipGetDeviceCount")?;
    Ok(n.max(0) as usize)
}

/// `hipSetDevice`: makes `device` current on the calling thread.
pub fn set_device(device: c_int) -> Result<()> {
    // SAFETY: takes an integer only; an ordinal the runtime does not know is an error code, not UB.
    check(unsafe { sys::hipSetDevice(device) }, "hipSetDevice")
}

/// `hipDeviceGetAttribute`; `what` names the attribute in an error.
pub fn device_attribute(attr: c_int, device: c_int, what: &str) -> Result<i32> {
    let mut v: c_int = 0;
    check(
        // SAFETY: writes one c_int through a reference to a local; any attribute or device number
        // the runtime does not know is an error code.
        unsafe { sys::hipDeviceGetAttribute(&mut v, attr, device) },
        &format!("hipDeviceGetAttribute({what})"),
    )?;
    Ok(v)
}

fn c_buffer_string(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `hipDeviceGetName`: the marketing name, e.g. `AMD Instinct MI250X`.
pub fn device_name(device: c_int) -> Result<String> {
    let mut buf: [c_char; 256] = [0; 256];
    check(
        // SAFETY: writes at most `len` - 1 = 255 chars and a NUL into the 256-char local buffer.
        unsafe { sys::hipDeviceGetName(buf.as_mut_ptr(), buf.len() as c_int - 1, device) },
        "hipDeviceGetName",
    )?;
    Ok(c_buffer_string(&buf))
}

/// The target name, e.g. `gfx90a:sramecc+:xnack-`.
pub fn device_arch_name(device: c_int) -> Result<String> {
    let mut buf: [c_char; 256] = [0; 256];
    check(
        // SAFETY: writes at most `buf.len()` chars (NUL included) into the local buffer (wavekit's
        // own shim truncates to the length given).
        unsafe { sys::wk_hip_device_arch_name(device, buf.as_mut_ptr(), buf.len()) },
        "hipGetDeviceProperties(gcnArchName)",
    )?;
    Ok(c_buffer_string(&buf))
}

/// `hipRuntimeGetVersion`.
pub fn runtime_version() -> Result<i32> {
    let mut v: c_int = 0;
    check(
        // SAFETY: writes one c_int through a reference to a local.
        unsafe { sys::hipRuntimeGetVersion(&mut v) },
        "hipRuntimeGetVersion",
    )?;
    Ok(v)
}

/// `hipDeviceSynchronize`: waits for all work on the current device.
pub fn device_synchronize() -> Result<()> {
    check(
        // SAFETY: takes no arguments; waits for the current device.
        unsafe { sys::hipDeviceSynchronize() },
        "hipDeviceSynchronize",
    )
}

/// Clears and returns the thread's last launch error.
pub fn last_error() -> Result<()> {
    // SAFETY: takes no arguments; reads and clears the thread's last error.
    check(unsafe { sys::hipGetLastError() }, "hipGetLastError")
}

/// `hipMalloc`: `OutOfMemory` when the device has no room for `bytes`.
pub fn malloc(bytes: usize) -> Result<*mut c_void> {
    let mut p: *mut c_void = std::ptr::null_mut();
    // SAFETY: writes one pointer through a reference to a local; the memory it returns is the
    // caller's to free.
    let code = unsafe { sys::hipMalloc(&mut p, bytes) };
    if code == sys::wk_hip_abi_error_out_of_memory {
        return Err(WavekitError::OutOfMemory {
            bytes: bytes as u64,
        });
    }
    check(code, &format!("hipMalloc({bytes} bytes)"))?;
    Ok(p)
}

/// # Safety
/// `p` came from `malloc` and is not used afterwards.
pub unsafe fn free(p: *mut c_void) -> Result<()> {
    // SAFETY: the caller promises `p` came from `malloc` and is not used afterwards.
    check(unsafe { sys::hipFree(p) }, "hipFree")
}

/// Which way a copy goes.
#[derive(Clone, Copy, Debug)]
pub enum CopyKind {
    /// Host memory to device memory.
    HostToDevice,
    /// Device memory to host memory.
    DeviceToHost,
    /// Device memory to device memory.
    DeviceToDevice,
}

impl CopyKind {
    fn raw(self) -> c_int {
        match self {
            CopyKind::HostToDevice => sys::wk_hip_abi_memcpy_htod,
            CopyKind::DeviceToHost => sys::wk_hip_abi_memcpy_dtoh,
            CopyKind::DeviceToDevice => sys::wk_hip_abi_memcpy_dtod,
        }
    }
}

/// Synchronous copy (on the null stream).
///
/// # Safety
/// `dst` and `src` are valid for `bytes` on the sides `kind` names.
pub unsafe fn memcpy(
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: CopyKind,
) -> Result<()> {
    check(
        // SAFETY: the caller promises `dst` and `src` are valid for `bytes` on the sides `kind`
        // names; the copy is synchronous, so they need be valid only during the call.
        unsafe { sys::hipMemcpy(dst, src, bytes, kind.raw()) },
        &format!("hipMemcpy({kind:?})"),
    )
}

/// Copy queued on `stream`; host memory must stay valid until the stream has run it.
///
/// # Safety
/// As `memcpy`, for as long as the copy is pending.
pub unsafe fn memcpy_async(
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: CopyKind,
    stream: HipStream,
) -> Result<()> {
    check(
        // SAFETY: the caller promises both sides are valid for `bytes` until the stream has run the
        // copy.
        unsafe { sys::hipMemcpyAsync(dst, src, bytes, kind.raw(), stream) },
        &format!("hipMemcpyAsync({kind:?})"),
    )
}

/// # Safety
/// `dst` is device memory valid for `bytes`.
pub unsafe fn memset(dst: *mut c_void, value: u8, bytes: usize) -> Result<()> {
    check(
        // SAFETY: the caller promises `dst` is device memory valid for `bytes`, unused by anything
        // else during the synchronous memset.
        unsafe { sys::hipMemset(dst, value as c_int, bytes) },
        "hipMemset",
    )
}

/// # Safety
/// `dst` is device memory valid for `bytes` until the stream has run the memset.
pub unsafe fn memset_async(
    dst: *mut c_void,
    value: u8,
    bytes: usize,
    stream: HipStream,
) -> Result<()> {
    check(
        // SAFETY: the caller promises `dst` is device memory valid for `bytes` until the stream has
        // run the memset.
        unsafe { sys::hipMemsetAsync(dst, value as c_int, bytes, stream) },
        "hipMemsetAsync",
    )
}

/// A stream with default flags: it also waits for work on the null stream.
pub fn stream_create() -> Result<HipStream> {
    let mut s: HipStream = std::ptr::null_mut();
    check(
        // SAFETY: writes one stream handle through a reference to a local.
        unsafe { sys::hipStreamCreateWithFlags(&mut s, sys::wk_hip_abi_stream_default) },
        "hipStreamCreateWithFlags",
    )?;
    Ok(s)
}

/// # Safety
/// `s` came from `stream_create` and is not used afterwards.
pub unsafe fn stream_destroy(s: HipStream) -> Result<()> {
    // SAFETY: the caller promises `s` came from stream_create and is not used afterwards.
    check(unsafe { sys::hipStreamDestroy(s) }, "hipStreamDestroy")
}

/// # Safety
/// `s` is a live stream.
pub unsafe fn stream_synchronize(s: HipStream) -> Result<()> {
    check(
        // SAFETY: the caller promises `s` is a live stream.
        unsafe { sys::hipStreamSynchronize(s) },
        "hipStreamSynchronize",
    )
}
