//! `GpuBackend<R>`: the `Backend` trait implemented once for every GPU vendor on top of a
//! `GpuRuntime` (memory, stream, attributes) and the launcher table of its csrc object.
//!
//! A backend is a stream plus its workspace: the launches of one backend go, in call order, to
//! its runtime's one stream, and use that backend's scratch (`Work`), which nothing else
//! touches. Two backends (two streams, two workspaces) share no lock, so their work can
//! overlap on one device; threads sharing one backend take its lock in turn.

use super::buffer::{DeviceMem, GpuBuffer};
use super::ffi::{self, Launchers, Status, dptr};
use super::mem_cache::MemCache;
use super::runtime::{DevPtr, GpuRuntime};
use super::tagged_pool::TaggedPool;
use std::ffi::{CStr, c_void};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use wavekit_core::element::{Element, as_bytes, as_bytes_mut};
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::host;
use wavekit_core::width::WarpWidth;

/// Bytes of the result slot that one-value results (a reduce, a count) come back through.
const RESULT_BYTES: usize = 64;

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

/// Device memory reused by every call: the status slots kernels report errors into, the slot
/// one-value results come back through, a grow-only scratch pool (compaction counts, look-back
/// statuses), the device reduce's own scratch, zeroed when allocated: its tickets must start
/// at zero and every reduce leaves them zero (csrc/kernels/device_reduce.cu), so no call pays
/// for a memset, and the look-back collectives' own, whose statuses each call tags
/// (tagged_pool.rs), for the same reason. The lock also serialises calls on one backend, so the work of one call uses
/// the pools after the previous call's work on the same stream.
pub(crate) struct Work<R: GpuRuntime> {
    pub(crate) status: DeviceMem<R>,
    pub(crate) result: DeviceMem<R>,
    pub(crate) pool: DeviceMem<R>,
    pub(crate) reduce_pool: DeviceMem<R>,
    /// The look-back collectives' scratch, their statuses kept between calls (tagged_pool.rs),
    /// indexed by `Tagged`.
    pub(crate) tagged: [TaggedPool<R>; 4],
    /// One-element outputs lent to the returning conveniences (`raw_scalar`), kept for reuse.
    pub(crate) slots: Vec<DeviceMem<R>>,
    /// Queued launches whose kernels may have written a status slot since they were last read.
    pub(crate) pending: Pending,
}

/// What a launch's kernels can report through the status word.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Reports {
    /// Nothing: the launcher does not pass the status word to its kernels.
    Nothing,
    /// Errors without an index (a launch planned for another warp width, ...).
    Errors,
    /// Also `WK_ERR_INDEX`: `what` at or past `limit`, the value in the detail's low 32 bits.
    Index { what: &'static str, limit: u64 },
}

/// Status words in the workspace. Each launch that can report an error, queued since the
/// statuses were last read, writes its own, so the error read back is the one of the launch
/// that reported it, whatever was queued around it; past this many, the launches share the
/// last one.
pub(crate) const STATUS_SLOTS: usize = 64;

/// Bytes of one status word.
const STATUS_BYTES: usize = std::mem::size_of::<Status>();

/// The launches that write one status slot: one launch, or (the last slot) every launch queued
/// once the others were taken.
struct Slot {
    launches: u64,
    first: &'static str,
    /// The index source when exactly one of the launches reports index errors.
    index: Option<(&'static str, u64)>,
    index_launches: u64,
}

impl Slot {
    fn new(call: &'static str) -> Slot {
        Slot {
            launches: 0,
            first: call,
            index: None,
            index_launches: 0,
        }
    }

    fn add(&mut self, reports: Reports) {
        self.launches += 1;
        if let Reports::Index { what, limit } = reports {
            self.index_launches += 1;
            self.index = Some((what, limit));
        }
    }

    /// The call an error is reported under: the slot's only launch, or the first of several.
    fn call(&self) -> String {
        match self.launches {
            1 => self.first.to_string(),
            2 => format!("{} or the launch queued after it", self.first),
            n => format!(
                "{} or one of the {} launches queued after it",
                self.first,
                n - 1
            ),
        }
    }
}

/// The launches queued since the status slots were last read that can have written them, in
/// launch order: slot i is the i-th such launch's.
#[derive(Default)]
pub(crate) struct Pending {
    slots: Vec<Slot>,
}

impl Pending {
    /// The slot the next launch writes.
    fn next(&self) -> usize {
        self.slots.len().min(STATUS_SLOTS - 1)
    }

    fn add(&mut self, call: &'static str, reports: Reports) {
        if let Reports::Nothing = reports {
            return;
        }
        if self.slots.len() < STATUS_SLOTS {
            self.slots.push(Slot::new(call));
        }
        self.slots.last_mut().expect("just pushed").add(reports);
    }
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
                result: empty()?,
                pool: empty()?,
                reduce_pool: empty()?,
                tagged: [
                    TaggedPool::new(empty()?),
                    TaggedPool::new(empty()?),
                    TaggedPool::new(empty()?),
                    TaggedPool::new(empty()?),
                ],
                slots: Vec::new(),
                pending: Pending::default(),
            }),
            allocations: AtomicU64::new(0),
            cache,
            rt,
        };
        {
            let mut work = backend.lock();
            work.status = backend.mem_from(&clear(STATUS_SLOTS))?;
            work.result = backend.mem(RESULT_BYTES)?;
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
            ffi::ALGO_ARG_REDUCE,
        ]
        .map(|algo| self.scratch_bytes(algo, T::KIND, n))
        .into_iter()
        .max()
        .unwrap_or(0)
        .max(self.sort_reserve_bytes::<T>(n));
        self.ensure_pool(&mut work, pool)?;
        let reduce = self.scratch_bytes(ffi::ALGO_DEVICE_REDUCE, T::KIND, n);
        self.ensure_reduce_pool(&mut work, reduce)?;
        self.reserve_tagged::<T>(&mut work, n)?;
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

    /// Enqueues one launcher on this backend's stream and returns without waiting. Its return
    /// code (launch and API errors, found on the host) is checked now; what its kernels report
    /// into its status slot is read at the next `flush`, if `reports` says they can write it.
    pub(crate) fn launch(
        &self,
        work: &mut Work<R>,
        call: &'static str,
        reports: Reports,
        f: impl FnOnce(*mut c_void, *mut Status) -> i32,
    ) -> Result<()> {
        self.rt.make_current()?;
        let slot = work.status.ptr + (work.pending.next() * STATUS_BYTES) as u64;
        let code = f(self.rt.stream(), dptr(slot));
        if code > 0 {
            self.rt.check(code, call)?;
        } else if code < 0 {
            return Err(self.device_error(call, self.message(code)));
        }
        work.pending.add(call, reports);
        Ok(())
    }

    /// Reads the status slots of the queued launches that can have written them (which waits
    /// for the stream), clears them, and turns the first reported error, in launch order, into
    /// the error of the launch that reported it. Without such a launch it reads nothing and
    /// does not wait.
    pub(crate) fn flush(&self, work: &mut Work<R>) -> Result<()> {
        let pending = std::mem::take(&mut work.pending);
        let used = pending.slots.len();
        if used == 0 {
            return Ok(());
        }
        let mut bytes = vec![0u8; used * STATUS_BYTES];
        self.read_mem(&work.status, &mut bytes)?;
        let statuses: Vec<Status> = bytes
            .chunks_exact(STATUS_BYTES)
            .map(|b| Status::from_bytes(b.try_into().expect("one status")))
            .collect();
        if statuses.iter().all(|s| *s == Status::CLEAR) {
            return Ok(());
        }
        self.write_mem(&mut work.status, &clear(used))?;
        let Some((slot, status)) = pending
            .slots
            .iter()
            .zip(&statuses)
            .find(|(_, s)| s.code != ffi::OK)
        else {
            return Ok(());
        };
        match (status.code, slot.index) {
            (ffi::ERR_INDEX, Some((what, limit))) if slot.index_launches == 1 => {
                Err(WavekitError::IndexOutOfRange {
                    what,
                    value: status.detail & u64::from(u32::MAX),
                    limit,
                })
            }
            (code, _) => Err(self.device_error(&slot.call(), self.message(code))),
        }
    }

    /// A synchronous launch: reports earlier queued errors first (under their own calls), then
    /// runs `f` and waits for the status word its kernels wrote.
    pub(crate) fn run_checked(
        &self,
        work: &mut Work<R>,
        call: &'static str,
        f: impl FnOnce(*mut c_void, *mut Status) -> i32,
    ) -> Result<()> {
        self.flush(work)?;
        self.launch(work, call, Reports::Errors, f)?;
        self.flush(work)
    }

    /// `len` values of `T` at `ptr`, read once the queued work is done, then the status word
    /// of that work (`flush`): a read is where asynchronous errors come back.
    /// The wait itself happens outside the lock, so threads sharing the backend can queue
    /// work meanwhile.
    pub(crate) fn read_flushed<T: Element>(
        &self,
        mem: &DeviceMem<R>,
        len: usize,
    ) -> Result<Vec<T>> {
        self.rt.make_current()?;
        let out = self.read(mem, len)?;
        self.flush(&mut self.lock())?;
        Ok(out)
    }

    /// Waits for the queued work (outside the lock), then reports what its kernels wrote to
    /// the status word.
    pub(crate) fn synchronize_flushed(&self) -> Result<()> {
        self.rt.make_current()?;
        self.rt.synchronize()?;
        self.flush(&mut self.lock())
    }

    /// A one-element output for a returning convenience: one this backend lent before, or a
    /// new one (counted).
    pub(crate) fn take_slot(&self) -> Result<DeviceMem<R>> {
        let slot = self.lock().slots.pop();
        match slot {
            Some(slot) => Ok(slot),
            None => self.mem(RESULT_BYTES),
        }
    }

    /// Keeps a lent slot for the next convenience.
    pub(crate) fn return_slot(&self, slot: DeviceMem<R>) {
        self.lock().slots.push(slot);
    }

    /// Makes the pool at least `bytes` long; it only ever grows.
    pub(crate) fn ensure_pool(&self, work: &mut Work<R>, bytes: u64) -> Result<DevPtr> {
        let bytes = usize::try_from(bytes).map_err(|_| WavekitError::OutOfMemory { bytes })?;
        if work.pool.bytes < bytes {
            let grown = bytes.max(work.pool.bytes.saturating_mul(2));
            // Freeing the old pool waits for the work queued on it (cuMemFree, hipFree).
            work.pool = DeviceMem::new(&self.cache, 0)?;
            work.pool = self.mem(grown)?;
        }
        Ok(work.pool.ptr)
    }

    /// Makes the device reduce's zeroed scratch at least `bytes` long; it only ever grows, and a
    /// new allocation is zeroed before use.
    pub(crate) fn ensure_reduce_pool(&self, work: &mut Work<R>, bytes: u64) -> Result<DevPtr> {
        let bytes = usize::try_from(bytes).map_err(|_| WavekitError::OutOfMemory { bytes })?;
        if work.reduce_pool.bytes < bytes {
            work.reduce_pool = DeviceMem::new(&self.cache, 0)?;
            work.reduce_pool = self.mem_zeroed(bytes)?;
        }
        Ok(work.reduce_pool.ptr)
    }

    /// The device reduce's scratch for `n` elements: the whole pool, address and size. The
    /// launcher keeps its tickets at the pool's start and its partials at the end, so that no
    /// call's partials land where another's tickets must stay zero.
    pub(crate) fn reduce_scratch<T: Element>(
        &self,
        work: &mut Work<R>,
        n: usize,
    ) -> Result<(DevPtr, u64)> {
        let need = self.scratch_bytes(ffi::ALGO_DEVICE_REDUCE, T::KIND, n);
        let ptr = self.ensure_reduce_pool(work, need)?;
        Ok((ptr, work.reduce_pool.bytes as u64))
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
        let mut mem = self.mem(bytes)?;
        self.zero_mem(&mut mem, bytes)?;
        Ok(mem)
    }

    pub(crate) fn mem_from(&self, data: &[u8]) -> Result<DeviceMem<R>> {
        let mut mem = self.mem(data.len())?;
        self.write_mem(&mut mem, data)?;
        Ok(mem)
    }

    /// Zeroes the first `bytes` bytes of `mem` (refused past its end), ordered with this
    /// backend's stream.
    pub(crate) fn zero_mem(&self, mem: &mut DeviceMem<R>, bytes: usize) -> Result<()> {
        check_fits("device zero fill", bytes, mem.bytes)?;
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: `bytes <= mem.bytes` (checked above), and `mem` is `mem.bytes` bytes of one
        // live region (DeviceMem's invariant: an allocation of at least that size from this
        // backend's cache, a checked part of one, or memory an `adopt_mut` caller vouched
        // for), alive while borrowed here. The `&mut` means no other handle of this process's
        // safe API can use it meanwhile: kernels of this backend that used it were queued on
        // this stream before the memset, and the executor runs launches to completion on the
        // calling thread.
        unsafe { self.rt.memset_zero(mem.ptr, bytes) }
    }

    /// Copies `data` to the start of `mem` (refused when longer than `mem`), ordered with this
    /// backend's stream; returns once `data` has been read.
    pub(crate) fn write_mem(&self, mem: &mut DeviceMem<R>, data: &[u8]) -> Result<()> {
        check_fits("device write", data.len(), mem.bytes)?;
        if data.is_empty() {
            return Ok(());
        }
        // SAFETY: `data.len() <= mem.bytes` (checked above), so the range lies inside `mem`,
        // one live region as `zero_mem` says; the `&mut` keeps every other user of the memory
        // out, as there, and `data` is host memory, which no device region overlaps.
        unsafe { self.rt.copy_htod(mem.ptr, data) }
    }

    /// Fills `out` from the start of `mem` (refused when `out` is longer than `mem`), after
    /// the work queued on this backend's stream.
    pub(crate) fn read_mem(&self, mem: &DeviceMem<R>, out: &mut [u8]) -> Result<()> {
        check_fits("device read", out.len(), mem.bytes)?;
        if out.is_empty() {
            return Ok(());
        }
        // SAFETY: `out.len() <= mem.bytes` (checked above), so the range lies inside `mem`,
        // one live region as `zero_mem` says, alive while borrowed here. Writers: a kernel
        // takes its outputs as `&mut`, which cannot coexist with this `&`; those queued on
        // this stream before are ordered before the copy, and the executor's have finished.
        // (Work of another backend, on another stream, is ordered by the caller: see `own`.)
        unsafe { self.rt.copy_dtoh(out, mem.ptr) }
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

    /// The first `len` values of `T` in `mem`, after the work queued before (checked: `len`
    /// values fit in `mem`).
    pub(crate) fn read<T: Element>(&self, mem: &DeviceMem<R>, len: usize) -> Result<Vec<T>> {
        check_fits("device read", bytes_for::<T>(len)?, mem.bytes)?;
        let mut out = host::filled(len, T::default())?;
        self.read_mem(mem, as_bytes_mut(&mut out))?;
        Ok(out)
    }

    pub(crate) fn read_u64s(&self, mem: &DeviceMem<R>, len: usize) -> Result<Vec<u64>> {
        self.read::<u64>(mem, len)
    }

    pub(crate) fn read_bytes(&self, mem: &DeviceMem<R>, len: usize) -> Result<Vec<u8>> {
        let mut out = host::filled(len, 0u8)?;
        self.read_mem(mem, &mut out)?;
        Ok(out)
    }
}

/// `Ok` when `bytes` bytes fit in memory of `limit` bytes: the device copies above check
/// every length against the memory they name, so no caller can reach past it.
fn check_fits(what: &'static str, bytes: usize, limit: usize) -> Result<()> {
    if bytes <= limit {
        Ok(())
    } else {
        Err(WavekitError::IndexOutOfRange {
            what,
            value: bytes as u64,
            limit: limit as u64,
        })
    }
}

/// `slots` clear status words, as the device stores them.
fn clear(slots: usize) -> Vec<u8> {
    Status::CLEAR.to_bytes().repeat(slots)
}

/// Bytes for `len` values of `T`; a size that overflows is memory no device has.
fn bytes_for<T>(len: usize) -> Result<usize> {
    len.checked_mul(size_of::<T>())
        .ok_or(WavekitError::OutOfMemory {
            bytes: host::bytes_of::<T>(len),
        })
}
