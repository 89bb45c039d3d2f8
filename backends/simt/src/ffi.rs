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
    pub fn wk_simt_session_set_report_cap(s: *mut RawSession, cap: u32);
    pub fn wk_simt_session_set_cooperative(s: *mut RawSession, on: c_int);
    pub fn wk_simt_cooperative_max_threads() -> u64;
    pub fn wk_simt_session_drop(s: *mut RawSession, n: usize);
    pub fn wk_simt_session_launches(s: *mut RawSession) -> u64;
    pub fn wk_simt_error_string(code: c_int) -> *const c_char;
    pub fn wk_simt_take_oom_bytes() -> u64;
    pub fn wk_simt_expect_written(
        p: *mut c_void,
        count: usize,
        elem_bytes: usize,
        stride: usize,
        name: *const c_char,
        file: *const c_char,
        line: c_int,
    );
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

/// The pitfall entry points built at one width (`wk_simt<width>_pitfall_*`) as a table.
macro_rules! pitfalls_at {
    ($table:ident, $width:literal) => {
        pub const $table: PitfallFns = {
            unsafe extern "C" {
                #[link_name = concat!("wk_simt", $width, "_pitfall_spmv_reduce")]
                fn spmv_reduce(
                    s: *mut c_void,
                    v: c_int,
                    x: *const i32,
                    y: *mut i32,
                    a: c_int,
                    n: c_int,
                ) -> c_int;
                #[link_name = concat!("wk_simt", $width, "_pitfall_activemask_sum")]
                fn activemask_sum(
                    s: *mut c_void,
                    v: c_int,
                    x: *const i32,
                    y: *mut i32,
                    t: u32,
                    n: u32,
                ) -> c_int;
                #[link_name = concat!("wk_simt", $width, "_pitfall_syncwarp_sum")]
                fn syncwarp_sum(
                    s: *mut c_void,
                    v: c_int,
                    x: *const i32,
                    y: *mut i32,
                    b: u32,
                ) -> c_int;
                #[link_name = concat!("wk_simt", $width, "_pitfall_vote_all")]
                fn vote_all(
                    s: *mut c_void,
                    v: c_int,
                    x: *const i32,
                    y: *mut i32,
                    t: u32,
                    n: u32,
                ) -> c_int;
                #[link_name = concat!("wk_simt", $width, "_pitfall_hang")]
                fn hang(s: *mut c_void, v: c_int, x: *const i32, y: *mut i32) -> c_int;
            }
            PitfallFns {
                spmv_reduce,
                activemask_sum,
                syncwarp_sum,
                vote_all,
                hang,
            }
        };
    };
}

pitfalls_at!(PITFALLS_W32, "32");
pitfalls_at!(PITFALLS_W64, "64");
