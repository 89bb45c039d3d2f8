//! `GpuBackend<R>`: the `Backend` trait implemented once for every GPU vendor on top of a
//! `GpuRuntime` (memory, stream, attributes) and the launcher table of its csrc object.

use super::buffer::{DeviceMem, GpuBuffer};
use super::ffi::{self, Launchers, Status, dptr};
use super::runtime::{DevPtr, GpuRuntime};
use std::ffi::{CStr, c_void};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};
use wavekit_core::element::{Element, as_bytes, as_bytes_mut};
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::host;
use wavekit_core::width::WarpWidth;

/// Bytes of the result slot that one-value results (a reduce, a count) come back through.
const RESULT_BYTES: usize = 64;

pub struct GpuBackend<R: GpuRuntime> {
    pub(crate) rt: Arc<R>,
    pub(crate) table: &'static Launchers,
    pub(crate) width: WarpWidth,
    /// The warp size handed to the launchers: the device's, unless a test forces another.
    pub(crate) launch_width: u32,
    emulate: bool,
    work: Mutex<Work<R>>,
}

/// Device memory reused by every call: the status word kernels report errors into, the slot
/// one-value results come back through, a grow-only scratch pool (scan tile status, compaction
/// counts), and the device reduce's own scratch, zeroed when allocated: its tickets must start
/// at zero and every reduce leaves them zero (csrc/kernels/device_reduce.cu), so no call pays
/// for a memset. The lock also serialises calls on one backend.
pub(crate) struct Work<R: GpuRuntime> {
    pub(crate) status: DeviceMem<R>,
    pub(crate) result: DeviceMem<R>,
    pub(crate) pool: DeviceMem<R>,
    pub(crate) reduce_pool: DeviceMem<R>,
}

impl<R: GpuRuntime> GpuBackend<R> {
    pub fn new(runtime: R) -> Result<Self> {
        let rt = Arc::new(runtime);
        let table = rt.launchers();
        if table.abi_version != ffi::ABI_VERSION
            || table.struct_size as usize != std::mem::size_of::<Launchers>()
        {
            return Err(WavekitError::Device {
                backend: R::BACKEND,
                call: "launcher table".into(),
                message: format!(
                    "ABI {} with a {}-byte table, expected ABI {} with {} bytes: csrc and \
                     the generated launcher table disagree: rebuild",
                    table.abi_version,
                    table.struct_size,
                    ffi::ABI_VERSION,
                    std::mem::size_of::<Launchers>()
                ),
            });
        }
        let width = WarpWidth::new(rt.warp_size())?;
        rt.make_current()?;
        let status = DeviceMem::new(&rt, std::mem::size_of::<Status>())?;
        rt.copy_htod(status.ptr, &Status::CLEAR.to_bytes())?;
        let result = DeviceMem::new(&rt, RESULT_BYTES)?;
        let pool = DeviceMem::new(&rt, 0)?;
        let reduce_pool = DeviceMem::new(&rt, 0)?;
        Ok(GpuBackend {
            rt,
            table,
            width,
            launch_width: width.lanes(),
            emulate: false,
            work: Mutex::new(Work {
                status,
                result,
                pool,
                reduce_pool,
            }),
        })
    }

    /// Selects the software emulations of uni, match, syncwarp and activemask (the ones AMD
    /// needs) instead of the native instructions, so they can be tested against each other.
    pub fn with_emulation(mut self, on: bool) -> Self {
        self.emulate = on;
        self
    }

    /// Test hook: tells the kernels the device's warp is `lanes` wide, so a test can see them
    /// refuse a launch planned for a width they were not compiled for.
    #[doc(hidden)]
    pub fn with_launch_warp_size(mut self, lanes: u32) -> Self {
        self.launch_width = lanes;
        self
    }

    pub fn emulation(&self) -> bool {
        self.emulate
    }

    pub fn runtime(&self) -> &R {
        &self.rt
    }

    pub(crate) fn impl_code(&self) -> u32 {
        if self.emulate {
            ffi::IMPL_EMULATED
        } else {
            ffi::IMPL_NATIVE
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Work<R>> {
        // A panic while holding the lock leaves no device state half-made that matters: the
        // status word is re-read and cleared by every call.
        self.work.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn message(&self, code: i32) -> String {
        // SAFETY: error_string returns a static NUL-terminated string for any code.
        unsafe { CStr::from_ptr((self.table.error_string)(code)) }
            .to_string_lossy()
            .into_owned()
    }

    pub(crate) fn device_error(&self, call: &str, message: String) -> WavekitError {
        WavekitError::Device {
            backend: R::BACKEND,
            call: call.to_string(),
            message,
        }
    }

    /// Runs one launcher on this backend's stream, checks its return code (launch and API
    /// errors), waits for the work and returns the status word the kernels wrote, cleared
    /// afterwards. Errors other than those the caller maps itself become `Device` errors.
    pub(crate) fn run(
        &self,
        work: &Work<R>,
        call: &str,
        f: impl FnOnce(*mut c_void, *mut Status) -> i32,
    ) -> Result<Status> {
        self.rt.make_current()?;
        let code = f(self.rt.stream(), dptr(work.status.ptr));
        if code > 0 {
            self.rt.check(code, call)?;
        } else if code < 0 {
            return Err(self.device_error(call, self.message(code)));
        }
        let mut bytes = [0u8; 16];
        self.rt.copy_dtoh(&mut bytes, work.status.ptr)?;
        let status = Status::from_bytes(&bytes);
        if status != Status::CLEAR {
            self.rt
                .copy_htod(work.status.ptr, &Status::CLEAR.to_bytes())?;
        }
        Ok(status)
    }

    /// `run` for calls whose kernels report no error of their own beyond the warp width.
    pub(crate) fn run_checked(
        &self,
        work: &Work<R>,
        call: &str,
        f: impl FnOnce(*mut c_void, *mut Status) -> i32,
    ) -> Result<()> {
        let status = self.run(work, call, f)?;
        if status.code != ffi::OK {
            return Err(self.device_error(call, self.message(status.code)));
        }
        Ok(())
    }

    /// Makes the pool at least `bytes` long; it only ever grows.
    pub(crate) fn ensure_pool(&self, work: &mut Work<R>, bytes: u64) -> Result<DevPtr> {
        let bytes = usize::try_from(bytes).map_err(|_| WavekitError::OutOfMemory { bytes })?;
        if work.pool.bytes < bytes {
            let grown = bytes.max(work.pool.bytes.saturating_mul(2));
            work.pool = DeviceMem::new(&self.rt, 0)?;
            work.pool = DeviceMem::new(&self.rt, grown)?;
        }
        Ok(work.pool.ptr)
    }

    /// Makes the device reduce's zeroed scratch at least `bytes` long; it only ever grows, and a
    /// new allocation is zeroed before use.
    pub(crate) fn ensure_reduce_pool(&self, work: &mut Work<R>, bytes: u64) -> Result<DevPtr> {
        let bytes = usize::try_from(bytes).map_err(|_| WavekitError::OutOfMemory { bytes })?;
        if work.reduce_pool.bytes < bytes {
            work.reduce_pool = DeviceMem::new(&self.rt, 0)?;
            work.reduce_pool = self.mem_zeroed(bytes)?;
        }
        Ok(work.reduce_pool.ptr)
    }

    pub(crate) fn scratch_bytes(&self, algo: u32, kind: wavekit_core::ElemKind, n: usize) -> u64 {
        // SAFETY: a pure size computation.
        unsafe { (self.table.scratch_bytes)(algo, kind as u32, n as u64) }
    }

    /// `Ok` for a buffer this backend may use: made by a backend of the same device (any
    /// stream: ordering between streams is then the caller's, as in CUDA) and not moved out of
    /// its `ViewMut`. Another backend's buffer is marked so that freeing it waits for the
    /// device.
    pub(crate) fn own<T: Element>(&self, buf: &GpuBuffer<T, R>) -> Result<()> {
        if !buf.usable() {
            return Err(WavekitError::ForeignBuffer);
        }
        if Arc::ptr_eq(&buf.mem.rt, &self.rt) {
            Ok(())
        } else if buf.mem.rt.same_device(&self.rt) {
            buf.mem.crossed.store(true, Ordering::Release);
            Ok(())
        } else {
            Err(WavekitError::ForeignBuffer)
        }
    }

    pub(crate) fn mem_zeroed(&self, bytes: usize) -> Result<DeviceMem<R>> {
        let mem = DeviceMem::new(&self.rt, bytes)?;
        if bytes != 0 {
            self.rt.memset_zero(mem.ptr, bytes)?;
        }
        Ok(mem)
    }

    pub(crate) fn mem_from(&self, data: &[u8]) -> Result<DeviceMem<R>> {
        let mem = DeviceMem::new(&self.rt, data.len())?;
        if !data.is_empty() {
            self.rt.copy_htod(mem.ptr, data)?;
        }
        Ok(mem)
    }

    pub(crate) fn buffer_zeroed<T: Element>(&self, len: usize) -> Result<GpuBuffer<T, R>> {
        Ok(GpuBuffer::from_mem(
            self.mem_zeroed(bytes_for::<T>(len)?)?,
            len,
        ))
    }

    /// Zeroed device memory for `len` values of `T` (a per-lane output the kernels fill).
    pub(crate) fn lanes_zeroed<T>(&self, len: usize) -> Result<DeviceMem<R>> {
        self.mem_zeroed(bytes_for::<T>(len)?)
    }

    pub(crate) fn buffer_from<T: Element>(&self, data: &[T]) -> Result<GpuBuffer<T, R>> {
        Ok(GpuBuffer::from_mem(
            self.mem_from(as_bytes(data))?,
            data.len(),
        ))
    }

    pub(crate) fn read<T: Element>(&self, ptr: DevPtr, len: usize) -> Result<Vec<T>> {
        let mut out = host::filled(len, T::default())?;
        if len != 0 {
            self.rt.copy_dtoh(as_bytes_mut(&mut out), ptr)?;
        }
        Ok(out)
    }

    pub(crate) fn read_u64s(&self, ptr: DevPtr, len: usize) -> Result<Vec<u64>> {
        self.read::<u64>(ptr, len)
    }

    pub(crate) fn read_bytes(&self, ptr: DevPtr, len: usize) -> Result<Vec<u8>> {
        let mut out = host::filled(len, 0u8)?;
        if len != 0 {
            self.rt.copy_dtoh(&mut out, ptr)?;
        }
        Ok(out)
    }
}

/// Bytes for `len` values of `T`; a size that overflows is memory no device has.
fn bytes_for<T>(len: usize) -> Result<usize> {
    len.checked_mul(size_of::<T>())
        .ok_or(WavekitError::OutOfMemory {
            bytes: host::bytes_of::<T>(len),
        })
}
