//! Probes of the executor's AMDGCN builtins (csrc/simt/amdgcn/probe.cu, built in the `Hip`
//! flavour): one block whose threads each run a builtin with their own operands, so
//! tests/simt_amdgcn.rs can hold every builtin against the AMD ISA's description of its
//! instruction, at 64 lanes (gfx90a/gfx940) and 32 (gfx1030).

use super::session::Session;
use std::ffi::{c_int, c_void};
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::width::WarpWidth;

type ProbeFn = unsafe extern "C" fn(
    *mut c_void,
    u32,
    u32,
    u32,
    *const u8,
    *const u32,
    *const u32,
    *mut u64,
) -> c_int;

unsafe extern "C" {
    fn wk_simthip32_amdgcn_probe(
        s: *mut c_void,
        probe: u32,
        arg: u32,
        threads: u32,
        active: *const u8,
        a: *const u32,
        b: *const u32,
        out: *mut u64,
    ) -> c_int;
    fn wk_simthip64_amdgcn_probe(
        s: *mut c_void,
        probe: u32,
        arg: u32,
        threads: u32,
        active: *const u8,
        a: *const u32,
        b: *const u32,
        out: *mut u64,
    ) -> c_int;
}

/// What the block runs (probe.cu's `Probe`). The first group runs in the threads whose
/// `active` flag is set, the others returning first, so their EXEC bit is off at the builtin;
/// the second runs in every thread, `active` choosing a branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// `__builtin_amdgcn_mbcnt_lo(a, b)`.
    MbcntLo = 0,
    /// `__builtin_amdgcn_mbcnt_hi(a, b)`.
    MbcntHi = 1,
    /// arch_hip.h's `lane_id()` and `lanemask_lt()`.
    LaneId = 2,
    /// `__builtin_amdgcn_uicmp(a, b, arg)`.
    Uicmp = 3,
    /// `__builtin_amdgcn_sicmp(a as i32, b as i32, arg)`.
    Sicmp = 4,
    /// `__builtin_amdgcn_ds_bpermute(a, b)`.
    Bpermute = 5,
    /// `__builtin_amdgcn_readfirstlane(b)`.
    Readfirstlane = 6,
    /// `__builtin_amdgcn_read_exec()`.
    ReadExec = 7,
    /// arch_hip.h's 64-bit `shfl_idx_sync` of `b << 32 | a` from lane `arg`: two permutes.
    Shfl64 = 8,
    /// `if (active) x = ballot(a != 0);` then in every thread `y = ballot(b != 0)`.
    BranchJoin = 9,
    /// `x = active ? ballot(a != 0) : read_exec();` then in every thread `y = read_exec()`.
    IfElse = 10,
    /// `a` rounds of `x += popcount(read_exec())`, then `y = read_exec()`.
    Loop = 11,
    /// `lds[t] = a`, `s_barrier` if `arg` is non-zero, `x = lds[(t + warp size) % threads]`.
    LdsBarrier = 12,
    /// `lds[t] = a`, then a ballot between two fences if `arg` is non-zero, else a ballot
    /// after a `wave_barrier`; `x = lds[t ^ 1]`.
    LdsWave = 13,
}

/// One thread's inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lane {
    pub active: bool,
    pub a: u32,
    pub b: u32,
}

/// What each thread wrote, `(x, y)`; `None` where it wrote nothing.
pub type Written = (Option<u64>, Option<u64>);

/// What no probe writes, to tell the outputs a thread left alone.
const UNWRITTEN: u64 = 0xDEAD_BEEF_DEAD_BEEF;

/// Runs `probe` in one block of `lanes.len()` threads (1 to 1024) of the `Hip` flavour at
/// `width` lanes, under the session's schedule. The session keeps the launch's reports.
pub fn run(
    s: &Session,
    width: WarpWidth,
    probe: Probe,
    arg: u32,
    lanes: &[Lane],
) -> Result<Vec<Written>> {
    if lanes.is_empty() || lanes.len() > 1024 {
        return Err(WavekitError::LengthMismatch {
            what: "probe threads (1 to 1024)",
            expected: lanes.len().clamp(1, 1024),
            got: lanes.len(),
        });
    }
    let active: Vec<u8> = lanes.iter().map(|l| l.active as u8).collect();
    let a: Vec<u32> = lanes.iter().map(|l| l.a).collect();
    let b: Vec<u32> = lanes.iter().map(|l| l.b).collect();
    let mut out = vec![UNWRITTEN; 2 * lanes.len()];
    let f: ProbeFn = match width {
        WarpWidth::W32 => wk_simthip32_amdgcn_probe,
        WarpWidth::W64 => wk_simthip64_amdgcn_probe,
    };
    // SAFETY: every array holds one entry per thread of the block (two for `out`), as the
    // kernel reads and writes; the session outlives the launch, which runs to its end here.
    let code = unsafe {
        f(
            s.stream(),
            probe as u32,
            arg,
            lanes.len() as u32,
            active.as_ptr(),
            a.as_ptr(),
            b.as_ptr(),
            out.as_mut_ptr(),
        )
    };
    Session::check(code, "amdgcn_probe")?;
    let seen = |v: u64| (v != UNWRITTEN).then_some(v);
    Ok(out.chunks(2).map(|p| (seen(p[0]), seen(p[1]))).collect())
}
