//! The executor's C interface (csrc/simt/capi.h) and the device entry points built from
//! csrc/simt at each width.

use std::ffi::{c_char, c_int, c_void};

#[repr(C)]
pub struct RawSession {
    _private: [u8; 0],
}

#[repr(C)]
pub struct RawReport {
    pub kind: u32,
    pub block: [u32; 3],
    pub warp: u32,
    pub width: u32,
    pub lanes: u64,
    pub kernel: *const c_char,
    pub detail: *const c_char,
}

unsafe extern "C" {
    pub fn wk_simt_session_new(policy: u32, seed: u64) -> *mut RawSession;
    pub fn wk_simt_session_free(s: *mut RawSession);
    pub fn wk_simt_session_configure(s: *mut RawSession, policy: u32, seed: u64);
    pub fn wk_simt_session_report_count(s: *mut RawSession) -> usize;
    pub fn wk_simt_session_report(s: *mut RawSession, i: usize, out: *mut RawReport) -> c_int;
    pub fn wk_simt_session_suppressed(s: *mut RawSession) -> u64;
    pub fn wk_simt_session_drop(s: *mut RawSession, n: usize);
    pub fn wk_simt_session_launches(s: *mut RawSession) -> u64;
    pub fn wk_simt_error_string(code: c_int) -> *const c_char;
}

/// The pitfall kernels of csrc/simt/pitfalls at one width.
pub struct PitfallFns {
    pub spmv_reduce: SpmvFn,
    pub activemask_sum: SumFn,
    pub syncwarp_sum: BlocksFn,
    pub vote_all: SumFn,
    pub hang: HangFn,
}

type SpmvFn = unsafe extern "C" fn(*mut c_void, c_int, *const i32, *mut i32, c_int, c_int) -> c_int;
type SumFn = unsafe extern "C" fn(*mut c_void, c_int, *const i32, *mut i32, u32, u32) -> c_int;
type BlocksFn = unsafe extern "C" fn(*mut c_void, c_int, *const i32, *mut i32, u32) -> c_int;
type HangFn = unsafe extern "C" fn(*mut c_void, c_int, *const i32, *mut i32) -> c_int;

unsafe extern "C" {
    fn wk_simt32_pitfall_spmv_reduce(
        s: *mut c_void,
        v: c_int,
        x: *const i32,
        y: *mut i32,
        a: c_int,
        n: c_int,
    ) -> c_int;
    fn wk_simt64_pitfall_spmv_reduce(
        s: *mut c_void,
        v: c_int,
        x: *const i32,
        y: *mut i32,
        a: c_int,
        n: c_int,
    ) -> c_int;
    fn wk_simt32_pitfall_activemask_sum(
        s: *mut c_void,
        v: c_int,
        x: *const i32,
        y: *mut i32,
        t: u32,
        n: u32,
    ) -> c_int;
    fn wk_simt64_pitfall_activemask_sum(
        s: *mut c_void,
        v: c_int,
        x: *const i32,
        y: *mut i32,
        t: u32,
        n: u32,
    ) -> c_int;
    fn wk_simt32_pitfall_syncwarp_sum(
        s: *mut c_void,
        v: c_int,
        x: *const i32,
        y: *mut i32,
        b: u32,
    ) -> c_int;
    fn wk_simt64_pitfall_syncwarp_sum(
        s: *mut c_void,
        v: c_int,
        x: *const i32,
        y: *mut i32,
        b: u32,
    ) -> c_int;
    fn wk_simt32_pitfall_vote_all(
        s: *mut c_void,
        v: c_int,
        x: *const i32,
        y: *mut i32,
        t: u32,
        n: u32,
    ) -> c_int;
    fn wk_simt32_pitfall_hang(s: *mut c_void, v: c_int, x: *const i32, y: *mut i32) -> c_int;
    fn wk_simt64_pitfall_hang(s: *mut c_void, v: c_int, x: *const i32, y: *mut i32) -> c_int;
    fn wk_simt64_pitfall_vote_all(
        s: *mut c_void,
        v: c_int,
        x: *const i32,
        y: *mut i32,
        t: u32,
        n: u32,
    ) -> c_int;
}

pub const PITFALLS_W32: PitfallFns = PitfallFns {
    spmv_reduce: wk_simt32_pitfall_spmv_reduce,
    activemask_sum: wk_simt32_pitfall_activemask_sum,
    syncwarp_sum: wk_simt32_pitfall_syncwarp_sum,
    vote_all: wk_simt32_pitfall_vote_all,
    hang: wk_simt32_pitfall_hang,
};

pub const PITFALLS_W64: PitfallFns = PitfallFns {
    spmv_reduce: wk_simt64_pitfall_spmv_reduce,
    activemask_sum: wk_simt64_pitfall_activemask_sum,
    syncwarp_sum: wk_simt64_pitfall_syncwarp_sum,
    vote_all: wk_simt64_pitfall_vote_all,
    hang: wk_simt64_pitfall_hang,
};
