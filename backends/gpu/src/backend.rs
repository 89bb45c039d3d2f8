//! `GpuBackend<R>`: the `Backend` trait implemented once for every GPU vendor on top of a
//! `GpuRuntime` (memory, stream, attributes) and the launcher table of its csrc object.
//!
//! A backend is a stream plus its workspace: the launches of one backend go, in call order, to
//! its runtime's one stream, and use that backend's scratch (`Work`, workspace.rs), which
//! nothing else touches. Two backends (two streams, two workspaces) share no lock, so their
//! work can overlap on one device; threads sharing one backend take its lock in turn. Launching
//! and reading back what kernels report is queue.rs; raw device memory, memory.rs.

use super::buffer::{DeviceMem, GpuBuffer};
use super::ffi::{self, Launchers};
use super::mem_cache::MemCache;
use super::queue::{Pending, STATUS_SLOTS, clear};
use super::runtime::GpuRuntime;
use super::tagged_pool::TaggedPool;
use super::workspace::{Pools, RESULT_BYTES, Work};
use std::ffi::CStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::width::WarpWidth;

/// The GPU backend: wavekit's csrc kernels launched through a vendor runtime `R` (CUDA, HIP,
/// or the SIMT executor). Users get it as `CudaBackend`, `HipBackend` or `SimtBackend` from
/// their crates' `open` functions.
///
/// The GPU backend over a vendor runtime: one stream and the workspace its collectives use.
///
/// Calls that take `&mut` outputs (the `_into` forms, `scan`, `spmv`) enqueue their work on
/// the stream and return without waiting for it; `synchronize`, `download` and every call that
/// returns host values wait, and are where an error a kernel reported into the status word
/// comes back (see [`Collectives`](wavekit_core::Collectives)). The workspace only grows:
/// after [`reserve`](Self::reserve), or once the largest input has been seen, the `_into`
/// forms allocate nothing ([`device_allocations`](Self::device_allocations) counts).
pub struct GpuBackend<R: GpuRuntime> {
    pub(crate) rt: Arc<R>,
    pub(crate) table: &'static Launchers,
    pub(crate) width: WarpWidth,
    /// The warp size handed to the launchers: the device's, unless a test forces another.
    pub(crate) launch_width: u32,
    emulate: bool,
    work: Mutex<Work<R>>,
    /// Device allocations this backend has made (workspace, buffers, lent slots).
    allocations: AtomicU64,
    /// Where its memory comes from and goes back to (mem_cache.rs).
    pub(crate) cache: Arc<MemCache<R>>,
}

impl<R: GpuRuntime> std::fmt::Debug for GpuBackend<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuBackend")
            .field("backend", &R::BACKEND)
            .field("ordinal", &self.rt.ordinal())
            .field("width", &self.width)
            .field("launch_width", &self.launch_width)
            .field("emulate", &self.emulate)
            .field("device_allocations", &self.device_allocations())
            .finish_non_exhaustive()
    }
}

impl<R: GpuRuntime> GpuBackend<R> {
    /// A backend over `runtime`, after checking that its launcher table has this build's ABI.
    ///
    /// # Errors
    /// `Device` when the table's ABI version or size is not this build's;
    /// `UnsupportedWarpWidth` for a device warp other than 32 or 64; the runtime's errors
    /// making its device current and allocating the backend's status and result slots.
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
        let cache = Arc::new(MemCache::new(Arc::clone(&rt)));
        let empty = || DeviceMem::new(&cache, 0);
        let backend = GpuBackend {
            table,
            width,
            launch_width: width.lanes(),
            emulate: false,
            work: Mutex::new(Work {
                status: empty()?,
                pending: Pending::default(),
                pools: Pools {
                    result: empty()?,
                    pool: empty()?,
                    reduce_pool: empty()?,
                    tagged: [
                        TaggedPool::new(empty()?),
                        TaggedPool::new(empty()?),
                        TaggedPool::new(empty()?),
                        TaggedPool::new(empty()?),
                    ],
                },
                slots: Vec::new(),
            }),
            allocations: AtomicU64::new(0),
            cache,
            rt,
        };
        {
            let mut work = backend.lock();
            work.status = backend.mem_from(&clear(STATUS_SLOTS))?;
            work.pools.result = backend.mem(RESULT_BYTES)?;
        }
        Ok(backend)
    }

    /// Device allocations this backend has made so far: its workspace (status slots, result
    /// slot, scratch pools, lent one-value outputs) and every buffer it allocated or uploaded.
    /// A test reads it before and after a loop to see that the loop allocated nothing.
    pub fn device_allocations(&self) -> u64 {
        self.allocations.load(Ordering::Relaxed)
    }

    /// Sizes the workspace so that every collective on inputs of up to `n` elements of `T`
    /// finds its scratch there: after this the first call allocates no more than later ones
    /// (nothing, for the `_into` forms). The workspace only grows; reserving for a smaller `n`
    /// or another type keeps what is there.
    ///
    /// # Errors
    /// `OutOfMemory` when the device has no room; a `Device` error.
    pub fn reserve<T: Element>(&self, n: usize) -> Result<()> {
        let mut work = self.lock();
        self.rt.make_current()?;
        // SpMV's scratch is sized by the nonzeros: a matrix of up to `n` of them.
        let pool = [
            ffi::ALGO_DEVICE_SCAN,
            ffi::ALGO_COMPACT,
            ffi::ALGO_SPMV,
            ffi::ALGO_RUNS,
            ffi::ALGO_BY_KEY,
            ffi::ALGO_PARTITION,
            ffi::ALGO_PARTITION_REVERSED,
        ]
        .map(|algo| self.scratch_bytes(algo, T::KIND, n))
        .into_iter()
        .max()
        .unwrap_or(0)
        .max(self.sort_reserve_bytes::<T>(n));
        self.ensure_pool(&mut work.pools, pool)?;
        let reduce = [ffi::ALGO_DEVICE_REDUCE, ffi::ALGO_ARG_REDUCE]
            .map(|algo| self.scratch_bytes(algo, T::KIND, n))
            .into_iter()
            .max()
            .unwrap_or(0);
        self.ensure_reduce_pool(&mut work.pools, reduce)?;
        self.reserve_tagged::<T>(&mut work.pools, n)?;
        if work.slots.is_empty() {
            let slot = self.mem(RESULT_BYTES)?;
            work.slots.push(slot);
        }
        Ok(())
    }

    /// Device memory of `bytes`, counted in `device_allocations` (a zero-byte one holds none).
    pub(crate) fn mem(&self, bytes: usize) -> Result<DeviceMem<R>> {
        let mem = DeviceMem::new(&self.cache, bytes)?;
        if bytes != 0 {
            self.allocations.fetch_add(1, Ordering::Relaxed);
        }
        Ok(mem)
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

    /// `true` when the software emulations were selected ([`Self::with_emulation`]).
    pub fn emulation(&self) -> bool {
        self.emulate
    }

    /// The vendor runtime underneath: its device, stream and attributes. Its raw copies take
    /// bare device addresses and are `unsafe fn`s; the checked forms on buffers are
    /// `Backend::write` / `download`, [`Self::copy`], [`Self::fill_zero`] and
    /// `SliceDevice::download_strided`.
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

    /// Bytes of scratch `algo` (`ALGO_*`) needs for `n` elements of `kind` (the
    /// `scratch_bytes` query).
    pub(crate) fn scratch_bytes(&self, algo: u32, kind: wavekit_core::ElemKind, n: usize) -> u64 {
        // SAFETY: a pure size computation of this runtime's table (`GpuRuntime::launchers`).
        unsafe { (self.table.scratch_bytes)(algo, kind as u32, n as u64) }
    }

    /// Bytes of scratch the sorting launcher of `algo` needs for `n` keys of `key_size` bytes
    /// with values of `value_size` (the `sort_scratch_bytes` query).
    pub(crate) fn sort_scratch(
        &self,
        algo: u32,
        key_size: usize,
        value_size: usize,
        n: usize,
    ) -> u64 {
        // SAFETY: a pure size computation of this runtime's table (`GpuRuntime::launchers`).
        unsafe {
            (self.table.sort_scratch_bytes)(algo, key_size as u32, value_size as u32, n as u64)
        }
    }

    /// The scratch every sorting collective needs for `n` keys of `T` with values of `T`
    /// (`reserve`'s part for them).
    fn sort_reserve_bytes<T: Element>(&self, n: usize) -> u64 {
        let size = size_of::<T>();
        [
            self.sort_scratch(ffi::ALGO_SORT, size, size, n),
            self.sort_scratch(ffi::ALGO_ARGSORT, size, 4, n),
            self.sort_scratch(ffi::ALGO_SEGMENTED_SORT, size, size, n),
            self.sort_scratch(ffi::ALGO_TOP_K, size, 4, n),
        ]
        .into_iter()
        .max()
        .unwrap_or(0)
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
}
