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
    /// `hipGetDeviceCount`: Devices the runtime sees.
    pub fn hipGetDeviceCount(count: *mut c_int) -> HipError;
    /// `hipSetDevice`: Makes `device` current on the calling thread.
    pub fn hipSetDevice(device: c_int) -> HipError;
    /// `hipDeviceGetAttribute`: One integer attribute of `device` (`attr`: a `hipDeviceAttribute_t` value from the shim).
    pub fn hipDeviceGetAttribute(value: *mut c_int, attr: c_int, device: c_int) -> HipError;
    /// `hipDeviceGetName`: The device's name, NUL-terminated in `name`.
    pub fn hipDeviceGetName(name: *mut c_char, len: c_int, device: c_int) -> HipError;
    /// `hipDeviceSynchronize`: Waits for all work on the current device.
    pub fn hipDeviceSynchronize() -> HipError;
    /// `hipRuntimeGetVersion`: The runtime's version number.
    pub fn hipRuntimeGetVersion(version: *mut c_int) -> HipError;

    // ---- memory ----
    /// `hipMalloc`: Allocates `bytes` of device memory.
    pub fn hipMalloc(ptr: *mut *mut c_void, bytes: usize) -> HipError;
    /// `hipFree`: Frees what `hipMalloc` returned.
    pub fn hipFree(ptr: *mut c_void) -> HipError;
    /// `hipMemcpy`: A synchronous copy; `kind` is one of the shim's `wk_hip_abi_memcpy_*`.
    pub fn hipMemcpy(dst: *mut c_void, src: *const c_void, bytes: usize, kind: c_int) -> HipError;
    /// `hipMemcpyAsync`: A copy queued on `stream`.
    pub fn hipMemcpyAsync(
        dst: *mut c_void,
        src: *const c_void,
        bytes: usize,
        kind: c_int,
        stream: HipStream,
    ) -> HipError;
    /// `hipMemset`: Sets `bytes` bytes of device memory to `value`.
    pub fn hipMemset(dst: *mut c_void, value: c_int, bytes: usize) -> HipError;
    /// `hipMemsetAsync`: A memset queued on `stream`.
    pub fn hipMemsetAsync(
        dst: *mut c_void,
        value: c_int,
        bytes: usize,
        stream: HipStream,
    ) -> HipError;

    // ---- streams ----
    /// `hipStreamCreateWithFlags`: Creates a stream.
    pub fn hipStreamCreateWithFlags(stream: *mut HipStream, flags: c_uint) -> HipError;
    /// `hipStreamDestroy`: Destroys a stream once its work is done.
    pub fn hipStreamDestroy(stream: HipStream) -> HipError;
    /// `hipStreamSynchronize`: Waits for the work queued on `stream`.
    pub fn hipStreamSynchronize(stream: HipStream) -> HipError;

    // ---- errors ----
    /// `hipGetLastError`: Returns and clears the calling thread's last error.
    pub fn hipGetLastError() -> HipError;
    /// `hipGetErrorName`: The error code's name, a static string.
    pub fn hipGetErrorName(error: HipError) -> *const c_char;
    /// `hipGetErrorString`: The error code's description, a static string.
    pub fn hipGetErrorString(error: HipError) -> *const c_char;
}

// The shim's values, from the headers the crate was built against (const after load).
unsafe extern "C" {
    /// `hipSuccess`.
    pub safe static wk_hip_abi_success: c_int;
    /// `hipErrorNoDevice`.
    pub safe static wk_hip_abi_error_no_device: c_int;
    /// `hipErrorInvalidDevice`.
    pub safe static wk_hip_abi_error_invalid_device: c_int;
    /// `hipErrorOutOfMemory`.
    pub safe static wk_hip_abi_error_out_of_memory: c_int;
    /// `hipDeviceAttributeWarpSize`.
    pub safe static wk_hip_abi_attr_warp_size: c_int;
    /// `hipDeviceAttributeMultiprocessorCount`.
    pub safe static wk_hip_abi_attr_multiprocessors: c_int;
    /// `hipMemcpyHostToDevice`.
    pub safe static wk_hip_abi_memcpy_htod: c_int;
    /// `hipMemcpyDeviceToHost`.
    pub safe static wk_hip_abi_memcpy_dtoh: c_int;
    /// `hipMemcpyDeviceToDevice`.
    pub safe static wk_hip_abi_memcpy_dtod: c_int;
    /// `hipStreamDefault`.
    pub safe static wk_hip_abi_stream_default: c_uint;

    /// The device's target name (`gfx90a:sramecc+:xnack-`), NUL-terminated in `out`.
    pub fn wk_hip_device_arch_name(device: c_int, out: *mut c_char, len: usize) -> HipError;
    /// A module kernel's launch limits on `device`: threads, block x/y/z, grid x/y/z, dynamic
    /// shared bytes, in `out[0..8]`.
    pub fn wk_hip_function_limits(f: HipFunction, device: c_int, out: *mut i64) -> HipError;
}

/// `hipModule_t`, an opaque pointer.
pub type HipModule = *mut c_void;
/// `hipFunction_t`, an opaque pointer.
pub type HipFunction = *mut c_void;
/// `hiprtcProgram`, an opaque pointer.
pub type HiprtcProgram = *mut c_void;
/// `hiprtcResult` (a C enum; 0 is success).
pub type HiprtcResult = c_int;

// Modules and the run-time compiler (wavekit::hip::rtc). ROCm 5.2 ships hipRTC inside
// libamdhip64 (later releases in libhiprtc, which the build links when it finds one).
unsafe extern "C" {
    /// `hipModuleLoadData`: a code object loaded on the current device.
    pub fn hipModuleLoadData(module: *mut HipModule, image: *const c_void) -> HipError;
    /// `hipModuleUnload`.
    pub fn hipModuleUnload(module: HipModule) -> HipError;
    /// `hipModuleGetFunction`: a kernel of a module by its (lowered) name.
    pub fn hipModuleGetFunction(
        function: *mut HipFunction,
        module: HipModule,
        name: *const c_char,
    ) -> HipError;
    /// `hipModuleLaunchKernel`: `params[i]` points at argument i.
    pub fn hipModuleLaunchKernel(
        f: HipFunction,
        grid_x: c_uint,
        grid_y: c_uint,
        grid_z: c_uint,
        block_x: c_uint,
        block_y: c_uint,
        block_z: c_uint,
        shared_bytes: c_uint,
        stream: HipStream,
        params: *mut *mut c_void,
        extra: *mut *mut c_void,
    ) -> HipError;

    /// `hiprtcCreateProgram`.
    pub fn hiprtcCreateProgram(
        program: *mut HiprtcProgram,
        source: *const c_char,
        name: *const c_char,
        count: c_int,
        headers: *const *const c_char,
        include_names: *const *const c_char,
    ) -> HiprtcResult;
    /// `hiprtcAddNameExpression`.
    pub fn hiprtcAddNameExpression(program: HiprtcProgram, expr: *const c_char) -> HiprtcResult;
    /// `hiprtcCompileProgram`.
    pub fn hiprtcCompileProgram(
        program: HiprtcProgram,
        count: c_int,
        options: *const *const c_char,
    ) -> HiprtcResult;
    /// `hiprtcGetProgramLogSize`.
    pub fn hiprtcGetProgramLogSize(program: HiprtcProgram, size: *mut usize) -> HiprtcResult;
    /// `hiprtcGetProgramLog`.
    pub fn hiprtcGetProgramLog(program: HiprtcProgram, log: *mut c_char) -> HiprtcResult;
    /// `hiprtcGetCodeSize`.
    pub fn hiprtcGetCodeSize(program: HiprtcProgram, size: *mut usize) -> HiprtcResult;
    /// `hiprtcGetCode`.
    pub fn hiprtcGetCode(program: HiprtcProgram, code: *mut c_char) -> HiprtcResult;
    /// `hiprtcGetLoweredName`.
    pub fn hiprtcGetLoweredName(
        program: HiprtcProgram,
        expr: *const c_char,
        lowered: *mut *const c_char,
    ) -> HiprtcResult;
    /// `hiprtcDestroyProgram`.
    pub fn hiprtcDestroyProgram(program: *mut HiprtcProgram) -> HiprtcResult;
    /// `hiprtcGetErrorString`: a static string.
    pub fn hiprtcGetErrorString(result: HiprtcResult) -> *const c_char;
}
