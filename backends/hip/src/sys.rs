//! Raw declarations of the HIP runtime (libamdhip64) calls wavekit uses, and of the ABI shim
//! (backends/hip/abi.cpp) that supplies the installed headers' enum values. Every call returns
//! a `hipError_t` as a C int; result.rs turns it into a `WavekitError`.
//!
//! Only what the GPU backend needs is declared: devices and their attributes, memory,
//! copies, memset, one stream, errors.

#![allow(non_snake_case)]

use std::ffi::{c_char, c_int, c_uint, c_void};

/// `hipError_t` (a C enum, int-sized: abi.cpp asserts it).
pub type HipError = c_int;
/// `hipStream_t`, an opaque pointer.
pub type HipStream = *mut c_void;

unsafe extern "C" {
    // ---- devices ----
    pub fn hipGetDeviceCount(count: *mut c_int) -> HipError;
    pub fn hipSetDevice(device: c_int) -> HipError;
    pub fn hipDeviceGetAttribute(value: *mut c_int, attr: c_int, device: c_int) -> HipError;
    pub fn hipDeviceGetName(name: *mut c_char, len: c_int, device: c_int) -> HipError;
    pub fn hipDeviceSynchronize() -> HipError;
    pub fn hipRuntimeGetVersion(version: *mut c_int) -> HipError;

    // ---- memory ----
    pub fn hipMalloc(ptr: *mut *mut c_void, bytes: usize) -> HipError;
    pub fn hipFree(ptr: *mut c_void) -> HipError;
    pub fn hipMemcpy(dst: *mut c_void, src: *const c_void, bytes: usize, kind: c_int) -> HipError;
    pub fn hipMemcpyAsync(
        dst: *mut c_void,
        src: *const c_void,
        bytes: usize,
        kind: c_int,
        stream: HipStream,
    ) -> HipError;
    pub fn hipMemset(dst: *mut c_void, value: c_int, bytes: usize) -> HipError;
    pub fn hipMemsetAsync(
        dst: *mut c_void,
        value: c_int,
        bytes: usize,
        stream: HipStream,
    ) -> HipError;

    // ---- streams ----
    pub fn hipStreamCreateWithFlags(stream: *mut HipStream, flags: c_uint) -> HipError;
    pub fn hipStreamDestroy(stream: HipStream) -> HipError;
    pub fn hipStreamSynchronize(stream: HipStream) -> HipError;

    // ---- errors ----
    pub fn hipGetLastError() -> HipError;
    pub fn hipGetErrorName(error: HipError) -> *const c_char;
    pub fn hipGetErrorString(error: HipError) -> *const c_char;
}

// The shim's values, from the headers the crate was built against (const after load).
unsafe extern "C" {
    pub safe static wk_hip_abi_success: c_int;
    pub safe static wk_hip_abi_error_no_device: c_int;
    pub safe static wk_hip_abi_error_invalid_device: c_int;
    pub safe static wk_hip_abi_error_out_of_memory: c_int;
    pub safe static wk_hip_abi_attr_warp_size: c_int;
    pub safe static wk_hip_abi_attr_multiprocessors: c_int;
    pub safe static wk_hip_abi_memcpy_htod: c_int;
    pub safe static wk_hip_abi_memcpy_dtoh: c_int;
    pub safe static wk_hip_abi_memcpy_dtod: c_int;
    pub safe static wk_hip_abi_stream_default: c_uint;

    /// The device's target name (`gfx90a:sramecc+:xnack-`), NUL-terminated in `out`.
    pub fn wk_hip_device_arch_name(device: c_int, out: *mut c_char, len: usize) -> HipError;
}
