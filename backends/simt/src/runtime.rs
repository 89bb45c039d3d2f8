//! `GpuRuntime` over host memory for the SIMT executor: "device" memory is host memory, copies
//! are memcpy, the stream is the executor session, and the launcher table is the csrc kernels
//! compiled for the host at the runtime's width, on the runtime's arch layer. `GpuBackend<SimtRuntime>`
//! thus runs the shared GPU host code and the real kernels, with every launch checked for hazards.

use super::arch::Arch;
use super::session::{HAZARDS, HazardKind, Report, Schedule, Session, code_error, error_message};
use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::collections::BTreeMap;
use std::sync::Mutex;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::width::WarpWidth;
use wavekit_gpu::ffi::Launchers;
use wavekit_gpu::{DevPtr, GpuRuntime};

/// Every allocation is aligned for the kernels' 16-byte vector loads, and then some.
const ALIGN: usize = 64;

/// Hazards the public layer expects from a launcher, because it marks the affected lanes
/// `None`: the shuffle primitives read whatever source lane the caller names, member or not
/// (a tile shuffle's Xor may name a lane of an earlier tile, outside the tile's mask).
fn expected(call: &str, kind: HazardKind) -> bool {
    matches!(call, "shfl" | "tile_shfl") && kind == HazardKind::ShflOutsideMask
}

/// The executor as a [`GpuRuntime`]: host memory as device memory, a [`Session`] as the stream,
/// the csrc kernels compiled for the host as the launcher table. Open a backend over it with
/// [`crate::open`].
///
/// Its copies (`memset_zero`, `copy_htod`, `copy_dtoh`, `copy_dtod`) check every range against
/// the live allocations of all executor runtimes and return a `Device` error for one that is
/// not inside one, before touching memory: of their `# Safety` contract, the bounds are thus
/// checked here, and what remains the caller's is that no other thread uses the memory while
/// the call runs (device memory is host memory here: that would be a data race).
pub struct SimtRuntime {
    arch: Arch,
    width: WarpWidth,
    schedule: Schedule,
    session: Session,
    /// Unexpected hazards, kept after the error they caused was returned.
    hazards: Mutex<Vec<Report>>,
    expected_count: Mutex<u64>,
}

/// Live allocations of every executor runtime, start address to length, so copies are checked
/// against them. One map for the process: a buffer of one runtime may be used by another of the
/// same arch and width (another "stream" of the device, `GpuRuntime::same_device`).
fn allocs() -> std::sync::MutexGuard<'static, BTreeMap<DevPtr, usize>> {
    static ALLOCS: Mutex<BTreeMap<DevPtr, usize>> = Mutex::new(BTreeMap::new());
    ALLOCS.lock().unwrap_or_else(|p| p.into_inner())
}

fn mem_error(call: &str, message: String) -> WavekitError {
    WavekitError::Device {
        backend: "simt",
        call: call.to_string(),
        message,
    }
}

impl std::fmt::Debug for SimtRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimtRuntime")
            .field("arch", &self.arch)
            .field("width", &self.width)
            .field("schedule", &self.schedule)
            .finish_non_exhaustive()
    }
}

impl SimtRuntime {
    /// The kernels on the executor's own arch layer ([`Arch::Simt`]).
    pub fn new(width: WarpWidth, schedule: Schedule) -> Self {
        Self::with_arch(Arch::Simt, width, schedule)
    }

    /// The kernels compiled against `arch`.
    pub fn with_arch(arch: Arch, width: WarpWidth, schedule: Schedule) -> Self {
        SimtRuntime {
            arch,
            width,
            schedule,
            session: Session::new(schedule),
            hazards: Mutex::new(Vec::new()),
            expected_count: Mutex::new(0),
        }
    }

    /// The arch layer the kernels were compiled against.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// The schedule the runtime was opened with.
    pub fn schedule(&self) -> Schedule {
        self.schedule
    }

    /// The session its launches run in (set its schedule, read its reports).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The unexpected hazards reported so far (each also failed the call that caused it),
    /// removed from the runtime.
    pub fn take_hazards(&self) -> Vec<Report> {
        std::mem::take(&mut *self.hazards.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Hazards the public layer expects and hides (see `expected`), counted.
    pub fn expected_hazards(&self) -> u64 {
        *self
            .expected_count
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// Checks that `[ptr, ptr + bytes)` lies inside one live allocation.
    fn check_range(&self, call: &str, ptr: DevPtr, bytes: usize) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        let allocs = allocs();
        match allocs.range(..=ptr).next_back() {
            Some((&start, &len)) if ptr + bytes as u64 <= start + len as u64 => Ok(()),
            _ => Err(mem_error(
                call,
                format!("{bytes} bytes at {ptr:#x} are not inside one allocation"),
            )),
        }
    }
}

// SAFETY: (the trait's contract) `alloc` returns fresh zeroed host memory, tracked until `free`
// releases it; the copies are checked against those live allocations; the launchers are this
// crate's tables for the executor compiled from csrc at this width, and they run synchronously
// on the calling thread, so all work is done when a call returns.
unsafe impl GpuRuntime for SimtRuntime {
    const BACKEND: &'static str = "simt";
    const LAUNCH_ALLOCATES: bool = true;

    fn ordinal(&self) -> usize {
        0
    }

    /// Executors of the same arch layer and width share memory (all of it is host memory);
    /// another layer or width is another device, as a kernel compiled for one would be.
    fn same_device(&self, other: &Self) -> bool {
        self.arch == other.arch && self.width == other.width
    }

    fn device_name(&self) -> String {
        let schedule = match self.schedule {
            Schedule::Lockstep => "lockstep",
            Schedule::Forward => "forward order",
            Schedule::Reverse => "reverse order",
            Schedule::Random(_) => "random order",
        };
        format!(
            "SIMT executor, {}, {} lanes, {schedule}",
            self.arch.name(),
            self.width.lanes()
        )
    }

    fn warp_size(&self) -> u32 {
        self.width.lanes()
    }

    fn multiprocessors(&self) -> u32 {
        1
    }

    fn launchers(&self) -> &'static Launchers {
        self.arch.launchers(self.width)
    }

    fn make_current(&self) -> Result<()> {
        Ok(())
    }

    fn alloc(&self, bytes: usize) -> Result<DevPtr> {
        // The executor's device memory is host memory: the host limit applies.
        wavekit_core::host::check::<u8>(bytes)?;
        let oom = WavekitError::OutOfMemory {
            bytes: bytes as u64,
        };
        let layout = Layout::from_size_align(bytes.max(1), ALIGN).map_err(|_| oom.clone())?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(oom);
        }
        let addr = ptr as DevPtr;
        allocs().insert(addr, bytes.max(1));
        Ok(addr)
    }

    // Every buffer exactly its own allocation, so copies and kernels past its end are caught.
    fn memory_cache_limit(&self) -> usize {
        0
    }

    unsafe fn free(&self, ptr: DevPtr) {
        let len = allocs().remove(&ptr);
        if let Some(len) = len {
            let layout = Layout::from_size_align(len, ALIGN).expect("valid when allocated");
            // SAFETY: allocated by `alloc` with this layout; the caller no longer uses it.
            unsafe { dealloc(ptr as *mut u8, layout) };
        }
    }

    // The executor checks every range against its live allocations anyway (a caller's broken
    // promise becomes an error where it can be seen); what it cannot check is the contract's
    // other half, that no other thread uses the memory meanwhile.
    unsafe fn memset_zero(&self, ptr: DevPtr, bytes: usize) -> Result<()> {
        self.check_range("memset", ptr, bytes)?;
        // SAFETY: the range lies inside a live allocation (checked above; the caller also
        // promises it), and the caller promises that nothing else reads or writes it during
        // the call.
        unsafe { std::ptr::write_bytes(ptr as *mut u8, 0, bytes) };
        Ok(())
    }

    unsafe fn copy_htod(&self, dst: DevPtr, src: &[u8]) -> Result<()> {
        self.check_range("copy to device", dst, src.len())?;
        // SAFETY: dst..dst+len lies inside a live allocation (checked above), which the caller
        // promises nothing else uses during the call and which never overlaps `src` (a
        // borrowed slice: a live allocation is not also borrowed as one).
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst as *mut u8, src.len()) };
        Ok(())
    }

    unsafe fn copy_dtoh(&self, dst: &mut [u8], src: DevPtr) -> Result<()> {
        self.check_range("copy from device", src, dst.len())?;
        // SAFETY: src..src+len lies inside a live allocation (checked above), which the caller
        // promises nothing writes during the call; `dst` is exclusively borrowed, so it is not
        // that allocation's memory.
        unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }

    unsafe fn copy_dtod(&self, dst: DevPtr, src: DevPtr, bytes: usize) -> Result<()> {
        self.check_range("copy on device", dst, bytes)?;
        self.check_range("copy on device", src, bytes)?;
        // SAFETY: both ranges lie inside live allocations (checked above), which the caller
        // promises nothing else uses during the call; `copy` allows them to overlap, though
        // the contract says they do not.
        unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, bytes) };
        Ok(())
    }

    fn stream(&self) -> *mut std::ffi::c_void {
        self.session.stream()
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn synchronize_device(&self) -> Result<()> {
        // Launches run to completion on the calling thread: nothing is ever queued.
        Ok(())
    }

    /// Launches that report hazards fail with every unexpected report in the message (and kept
    /// for `take_hazards`); the shuffle primitive's reads of non-members are expected.
    fn check(&self, code: i32, call: &str) -> Result<()> {
        if code == 0 {
            return Ok(());
        }
        let reports = self.session.take_reports();
        let (hidden, unexpected): (Vec<Report>, Vec<Report>) =
            reports.into_iter().partition(|r| expected(call, r.kind));
        *self
            .expected_count
            .lock()
            .unwrap_or_else(|p| p.into_inner()) += hidden.len() as u64;
        if code == HAZARDS && unexpected.is_empty() {
            return Ok(());
        }
        let mut message = if code == HAZARDS {
            format!("{} hazard(s)", unexpected.len())
        } else {
            error_message(code)
        };
        for r in &unexpected {
            message.push_str("\n  ");
            message.push_str(&r.to_string());
        }
        self.hazards
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(unexpected);
        // A launch the executor had no memory for: `OutOfMemory`, as any allocation of the
        // call would give.
        Err(code_error(code, call, message))
    }
}
