//! Executor sessions: the scheduling policy launches run under, and the hazards they report.

use super::ffi;
use std::ffi::{CStr, c_char, c_int, c_void};
use std::fmt;
use std::ptr::NonNull;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::mask::LaneMask;
use wavekit_core::width::WarpWidth;

/// How the executor interleaves the lanes of a block between synchronising points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Schedule {
    /// A warp's lanes advance together, one shared-memory access at a time, and
    /// `__activemask()` sees every lane of the warp at that call: AMD wavefronts and pre-Volta
    /// NVIDIA warps.
    Lockstep,
    /// Independent thread scheduling (Volta+): each lane runs alone to its next synchronising
    /// point, lanes in thread order, and lanes that reach an `__activemask()` together are split
    /// into smaller groups, as the hardware may.
    Forward,
    /// As `Forward`, lanes in reverse thread order.
    Reverse,
    /// As `Forward`, lanes in an order drawn from the seed.
    Random(u64),
}

impl Schedule {
    fn raw(self) -> (u32, u64) {
        match self {
            Schedule::Lockstep => (0, 0),
            Schedule::Forward => (1, 0),
            Schedule::Reverse => (2, 0),
            Schedule::Random(seed) => (3, seed),
        }
    }
}

/// What a report is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HazardKind {
    /// A `__syncthreads` that not every thread of the block reached: some wait at another
    /// barrier call, or exited (seed 001's barrier inside a branch). Also a `grid.sync()` of a
    /// cooperative launch that not every thread of a block, or not every block of the grid,
    /// reached, and a `grid.sync()` reached in a launch that is not cooperative.
    BarrierDivergence,
    /// A collective's mask names a lane that exited, does not exist, or waits at a block
    /// barrier: on hardware a hang or undefined values.
    InactiveMaskLane,
    /// Lanes named in a mask wait at a different collective or with a different mask, or the
    /// mask leaves out its caller.
    MismatchedCollective,
    /// A shuffle read a source lane outside its mask: the value is undefined.
    ShflOutsideMask,
    /// Two threads touched a shared-memory element, at least one writing, not both atomically,
    /// with no barrier both took part in between (seed 000's `__syncwarp` reduction).
    SharedRace,
    /// A shared-memory index past the array it addresses.
    SharedOutOfBounds,
    /// The executor abandoned a block that made no progress.
    Stalled,
    /// A shift by at least the width of its type, or of a negative value: `1u << lane` for
    /// lanes 32..63 (the executor's device code is built with `-fsanitize=shift`).
    ShiftOutOfRange,
    /// A lane mask lost its lanes above 31: a 64-bit mask given to a 32-bit built-in (`__popc`),
    /// or a wave64 ballot stored in 32 bits and then used.
    MaskNarrowed,
    /// A shared element read before any thread of the block wrote it.
    UninitSharedRead,
    /// Elements of a checked output that no thread wrote.
    UnwrittenOutput,
    /// A shuffle reduction tree whose offsets do not span its segment: from 16 on 64 lanes
    /// (lanes left out), or from the width or more (lanes counted twice).
    ReductionSpan,
    /// A lane faulted on memory nothing of the launch holds: plain CUDA or HIP indexing far out
    /// of a shared array or a buffer. The launch was abandoned (its launch call fails).
    InvalidAccess,
}

impl HazardKind {
    fn from_raw(kind: u32) -> Self {
        match kind {
            0 => HazardKind::BarrierDivergence,
            1 => HazardKind::InactiveMaskLane,
            2 => HazardKind::MismatchedCollective,
            3 => HazardKind::ShflOutsideMask,
            4 => HazardKind::SharedRace,
            5 => HazardKind::SharedOutOfBounds,
            7 => HazardKind::ShiftOutOfRange,
            8 => HazardKind::MaskNarrowed,
            9 => HazardKind::UninitSharedRead,
            10 => HazardKind::UnwrittenOutput,
            11 => HazardKind::ReductionSpan,
            12 => HazardKind::InvalidAccess,
            _ => HazardKind::Stalled,
        }
    }
}

/// One hazard: where (kernel, block, warp, lanes) and what happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// What happened.
    pub kind: HazardKind,
    /// The kernel's name.
    pub kernel: String,
    /// The block's index (x, y, z).
    pub block: [u32; 3],
    /// The warp within the block.
    pub warp: u32,
    /// The lanes of that warp the report is about.
    pub lanes: LaneMask,
    /// The executor's account: source lines, masks, values.
    pub detail: String,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.block;
        write!(
            f,
            "{:?} in {} (w{}) block ({x},{y},{z}) warp {} lanes {:#x}: {}",
            self.kind,
            self.kernel,
            self.lanes.width(),
            self.warp,
            self.lanes.bits(),
            self.detail
        )
    }
}

/// A scheduling policy and the reports of the launches made under it. It is the "stream" the
/// executor's launchers are given.
pub struct Session {
    raw: NonNull<ffi::RawSession>,
}

// SAFETY: the C++ session guards its state with a mutex; launches only read its policy and
// append reports under that lock.
unsafe impl Send for Session {}
// SAFETY: as for Send: every access from `&Session` goes through that mutex.
unsafe impl Sync for Session {}

fn c_str(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: the executor hands out NUL-terminated strings that live until the reports are
    // dropped, which happens only after they are copied here.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// `WK_SIMT_HAZARDS`: the launch ran to its end and left reports in the session.
pub(crate) const HAZARDS: c_int = 3;

/// `WK_SIMT_ERR_OUT_OF_MEMORY`: the executor could not get memory for a launch (a fiber stack,
/// its state, shared memory).
pub(crate) const OUT_OF_MEMORY: c_int = 5;

/// `WK_SIMT_ERR_COOPERATIVE_TOO_LARGE`: a cooperative launch of more threads than
/// [`Session::cooperative_max_threads`]; nothing ran.
pub(crate) const COOPERATIVE_TOO_LARGE: c_int = 7;

/// The typed error of a failed executor code: `OutOfMemory` (with the bytes the executor could
/// not get, when it knows them) for [`OUT_OF_MEMORY`], else a `Device` error of `call`.
pub(crate) fn code_error(code: c_int, call: &str, message: String) -> WavekitError {
    if code == OUT_OF_MEMORY {
        // SAFETY: reads and clears a thread-local of the executor; no arguments.
        let bytes = unsafe { ffi::wk_simt_take_oom_bytes() };
        return WavekitError::OutOfMemory { bytes };
    }
    WavekitError::Device {
        backend: "simt",
        call: call.to_string(),
        message,
    }
}

pub(crate) fn error_message(code: c_int) -> String {
    // SAFETY: returns a static NUL-terminated string for any code.
    c_str(unsafe { ffi::wk_simt_error_string(code) })
}

impl Session {
    /// A session with no reports, scheduling under `schedule`.
    pub fn new(schedule: Schedule) -> Self {
        let (policy, seed) = schedule.raw();
        // SAFETY: plain constructor; the pointer is freed once, in Drop.
        let raw = unsafe { ffi::wk_simt_session_new(policy, seed) };
        Session {
            raw: NonNull::new(raw).expect("wk_simt_session_new never returns null"),
        }
    }

    /// Schedules the launches made from now on under `schedule`.
    pub fn set_schedule(&self, schedule: Schedule) {
        let (policy, seed) = schedule.raw();
        // SAFETY: `raw` is live for &self.
        unsafe { ffi::wk_simt_session_configure(self.raw.as_ptr(), policy, seed) }
    }

    /// The reports collected so far, removed from the session.
    pub fn take_reports(&self) -> Vec<Report> {
        let s = self.raw.as_ptr();
        // SAFETY: `raw` is live; each report is copied before `drop` releases its strings.
        unsafe {
            let n = ffi::wk_simt_session_report_count(s);
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                let mut r = ffi::RawReport {
                    kind: 0,
                    block: [0; 3],
                    warp: 0,
                    width: 0,
                    lanes: 0,
                    kernel: std::ptr::null(),
                    detail: std::ptr::null(),
                };
                if ffi::wk_simt_session_report(s, i, &mut r) != 0 {
                    break;
                }
                let width = WarpWidth::new(r.width).unwrap_or(WarpWidth::W32);
                out.push(Report {
                    kind: HazardKind::from_raw(r.kind),
                    kernel: c_str(r.kernel),
                    block: r.block,
                    warp: r.warp,
                    lanes: LaneMask::from_bits(r.lanes & width.full_bits(), width)
                        .expect("masked to the width"),
                    detail: c_str(r.detail),
                });
            }
            ffi::wk_simt_session_drop(s, out.len());
            out
        }
    }

    /// Reports left out because a launch reached its cap (16 of a kind).
    pub fn suppressed(&self) -> u64 {
        // SAFETY: `raw` is live for &self.
        unsafe { ffi::wk_simt_session_suppressed(self.raw.as_ptr()) }
    }

    /// How many reports of each kind a launch keeps from now on (16 unless set); the rest are
    /// counted in [`suppressed`](Self::suppressed). `u32::MAX` keeps them all.
    pub fn set_report_cap(&self, cap: u32) {
        // SAFETY: `raw` is live for &self.
        unsafe { ffi::wk_simt_session_set_report_cap(self.raw.as_ptr(), cap) }
    }

    /// Makes the launches from now on cooperative (`on`), as `cudaLaunchCooperativeKernel`
    /// and `hipLaunchCooperativeKernel` launch: every block of the grid resident at once (its
    /// threads fibers, as a block's are), so that `grid.sync()` (cooperative groups) is a
    /// barrier across every thread of the grid, checked as `__syncthreads` is in each block
    /// (a thread or block that does not reach it is a `BarrierDivergence`). A launch may then
    /// have at most [`cooperative_max_threads`](Self::cooperative_max_threads) threads; a larger
    /// one fails with `LaunchBounds`. Not cooperative (the default), blocks run one after
    /// another and a `grid.sync()` reached abandons the launch.
    pub fn set_cooperative(&self, on: bool) {
        // SAFETY: `raw` is live for &self.
        unsafe { ffi::wk_simt_session_set_cooperative(self.raw.as_ptr(), c_int::from(on)) }
    }

    /// The most threads (blocks times threads a block) a cooperative launch may have: each is
    /// a fiber with its own 64 KiB stack for the whole launch.
    pub fn cooperative_max_threads() -> u64 {
        // SAFETY: returns a constant; no arguments.
        unsafe { ffi::wk_simt_cooperative_max_threads() }
    }

    /// Launches made under this session.
    pub fn launches(&self) -> u64 {
        // SAFETY: `raw` is live for &self.
        unsafe { ffi::wk_simt_session_launches(self.raw.as_ptr()) }
    }

    /// The handle the launchers take as their stream.
    pub(crate) fn stream(&self) -> *mut c_void {
        self.raw.as_ptr().cast()
    }

    /// Turns a launcher's return code into a result; hazards are left in the session.
    pub(crate) fn check(code: c_int, call: &str) -> Result<()> {
        if code == 0 || code == HAZARDS {
            Ok(())
        } else {
            Err(code_error(code, call, error_message(code)))
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // SAFETY: created by wk_simt_session_new, freed exactly once.
        unsafe { ffi::wk_simt_session_free(self.raw.as_ptr()) }
    }
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("launches", &self.launches())
            .finish()
    }
}
