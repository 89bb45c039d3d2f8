//! The C ABI of the compiled csrc object, mirroring csrc/wavekit/launch.h field for field.

use std::ffi::{c_char, c_void};

pub const ABI_VERSION: u32 = 2;

pub const WK_OK: i32 = 0;
pub const WK_ERR_WARP_SIZE: i32 = -1;
pub const WK_ERR_INDEX: i32 = -4;

pub const IMPL_NATIVE: u32 = 0;
pub const IMPL_EMULATED: u32 = 1;

pub const DETAIL_NONE: u64 = u64::MAX;

pub const ALGO_DEVICE_REDUCE: u32 = 0;
pub const ALGO_DEVICE_SCAN: u32 = 1;
pub const ALGO_COMPACT: u32 = 3;

/// The device status word kernels report errors into (`wk_status`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Status {
    pub code: i32,
    pub reserved: u32,
    pub detail: u64,
}

impl Status {
    pub const CLEAR: Status = Status {
        code: 0,
        reserved: 0,
        detail: DETAIL_NONE,
    };

    pub fn to_bytes(self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[..4].copy_from_slice(&self.code.to_ne_bytes());
        b[4..8].copy_from_slice(&self.reserved.to_ne_bytes());
        b[8..].copy_from_slice(&self.detail.to_ne_bytes());
        b
    }

    pub fn from_bytes(b: &[u8; 16]) -> Status {
        Status {
            code: i32::from_ne_bytes(b[..4].try_into().expect("4 bytes")),
            reserved: u32::from_ne_bytes(b[4..8].try_into().expect("4 bytes")),
            detail: u64::from_ne_bytes(b[8..].try_into().expect("8 bytes")),
        }
    }
}

type S = *mut c_void;
type St = *mut Status;
type In = *const c_void;
type Out = *mut c_void;

/// `wk_launchers`: every launcher queues work on the stream and returns 0, a positive vendor
/// error code, or a negative `WK_ERR_*`.
#[repr(C)]
pub struct Launchers {
    pub abi_version: u32,
    pub struct_size: u32,
    pub error_string: unsafe extern "C" fn(i32) -> *const c_char,
    pub scratch_bytes: unsafe extern "C" fn(u32, u32, u64) -> u64,
    pub vote: unsafe extern "C" fn(S, St, u32, u32, u32, In, u64, u64, Out) -> i32,
    pub shfl: unsafe extern "C" fn(S, St, u32, u32, u32, In, u64, u64, u32, u32, Out) -> i32,
    pub match_: unsafe extern "C" fn(S, St, u32, u32, u32, u32, In, u64, u64, Out, Out) -> i32,
    pub activemask: unsafe extern "C" fn(S, St, u32, u32, u64, u64, Out) -> i32,
    pub syncwarp_transpose: unsafe extern "C" fn(S, St, u32, u32, u32, In, u64, u64, Out) -> i32,
    pub tile_shfl: unsafe extern "C" fn(S, St, u32, u32, u32, In, u64, u32, u32, Out) -> i32,
    pub tile_vote: unsafe extern "C" fn(S, St, u32, u32, u32, In, u64, u32, Out) -> i32,
    pub tile_reduce: unsafe extern "C" fn(S, St, u32, u32, u32, In, u64, u32, Out) -> i32,
    pub warp_reduce: unsafe extern "C" fn(S, St, u32, u32, u32, In, u64, u32, Out) -> i32,
    pub warp_scan: unsafe extern "C" fn(S, St, u32, u32, u32, u32, In, u64, u32, Out) -> i32,
    pub block_reduce: unsafe extern "C" fn(S, St, u32, u32, In, u64, u32, Out) -> i32,
    pub device_reduce: unsafe extern "C" fn(S, St, u32, u32, In, u64, Out, u64, Out) -> i32,
    pub device_scan: unsafe extern "C" fn(S, St, u32, u32, u32, In, u64, Out, u64, Out) -> i32,
    pub segmented_reduce:
        unsafe extern "C" fn(S, St, u32, u32, In, u64, In, u64, u64, u32, Out) -> i32,
    pub spmv: unsafe extern "C" fn(S, St, u32, In, In, In, In, u64, u32, Out) -> i32,
    pub atomic_agg_inc: unsafe extern "C" fn(S, St, u32, u32, In, u64, Out, u64, Out) -> i32,
    pub count_if: unsafe extern "C" fn(S, St, u32, u32, u64, u64, In, u64, Out, u64, Out) -> i32,
    #[allow(clippy::type_complexity)]
    pub compact: unsafe extern "C" fn(
        S,
        St,
        u32,
        u32,
        u32,
        u64,
        u64,
        u32,
        In,
        u64,
        Out,
        u64,
        Out,
        Out,
    ) -> i32,
    pub histogram: unsafe extern "C" fn(S, St, In, u64, u32, Out) -> i32,
    pub look_back_probe: unsafe extern "C" fn(S, u32, u32, In, In, u64, Out, u64, Out) -> i32,
}

/// A device address as the pointer type the launchers take.
pub fn dptr(p: super::runtime::DevPtr) -> *mut c_void {
    p as usize as *mut c_void
}
