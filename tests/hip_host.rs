//! HIP backend checks that need no AMD GPU: the hipcc-built launcher table matches the Rust
//! mirror, its messages come from HIP for vendor codes, launchers refuse bad arguments before
//! touching a device (at wave64 widths too), and opening a missing device is a typed error.
#![cfg(feature = "hip")]

use std::ffi::CStr;
use std::ptr::{null, null_mut};
use wavekit::gpu::ffi::{ABI_VERSION, Launchers};
use wavekit::hip::sys;
use wavekit::{ElemKind, ReduceOp, WavekitError};

const ERR_DTYPE: i32 = -2;
const ERR_ARG: i32 = -3;

fn table() -> &'static Launchers {
    wavekit::hip::launchers()
}

fn message(code: i32) -> String {
    // SAFETY: error_string returns a static C string for any code.
    unsafe { CStr::from_ptr((table().error_string)(code)) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn table_matches_the_rust_mirror() {
    let t = table();
    assert_eq!(t.abi_version, ABI_VERSION);
    assert_eq!(t.struct_size as usize, std::mem::size_of::<Launchers>());
}

#[test]
fn vendor_codes_get_hip_messages() {
    // Positive codes go to hipGetErrorString through arch_hip.h's host::error_string.
    assert!(message(sys::wk_hip_abi_error_no_device).contains("NoDevice"));
    assert!(message(sys::wk_hip_abi_error_invalid_device).contains("InvalidDevice"));
    assert_eq!(
        message(-1),
        "kernel compiled for another warp width than the device's"
    );
    assert_eq!(message(-99), "unknown wavekit error");
}

#[test]
fn launchers_refuse_bad_arguments_at_wave64() {
    let t = table();
    let f32 = ElemKind::F32 as u32;
    // SAFETY: every call below is refused by argument checks before any pointer is used.
    unsafe {
        let shfl = |dtype, width, arg| {
            (t.shfl)(
                null_mut(),
                null_mut(),
                64,
                dtype,
                0,
                null(),
                64,
                u64::MAX,
                arg,
                width,
                null_mut(),
            )
        };
        assert_eq!(shfl(99, 64, 0), ERR_DTYPE);
        assert_eq!(shfl(f32, 48, 0), ERR_ARG, "width not a power of two");
        assert_eq!(shfl(f32, 128, 0), ERR_ARG, "width past the wave");
        let reduce_sync = |dtype, op: ReduceOp| {
            (t.warp_reduce_sync)(
                null_mut(),
                null_mut(),
                64,
                0,
                dtype,
                op as u32,
                null(),
                64,
                u64::MAX,
                null_mut(),
            )
        };
        assert_eq!(reduce_sync(99, ReduceOp::Sum), ERR_DTYPE);
        assert_eq!(
            reduce_sync(f32, ReduceOp::BitXor),
            ERR_ARG,
            "bitwise op on floats"
        );
        let tile = |tile| {
            (t.tile_shfl)(
                null_mut(),
                null_mut(),
                64,
                f32,
                0,
                null(),
                64,
                tile,
                0,
                null_mut(),
            )
        };
        assert_eq!(tile(128), ERR_ARG);
        assert_eq!(tile(0), ERR_ARG);
        let vote = (t.vote)(
            null_mut(),
            null_mut(),
            64,
            1,
            7,
            null(),
            64,
            u64::MAX,
            null_mut(),
        );
        assert_eq!(vote, ERR_ARG, "vote kind 7");
        let block = |b| {
            (t.block_reduce)(
                null_mut(),
                null_mut(),
                ElemKind::I32 as u32,
                0,
                null(),
                100,
                b,
                null_mut(),
            )
        };
        assert_eq!(block(48), ERR_ARG);
        assert_eq!(block(2048), ERR_ARG);
    }
}

#[test]
fn a_missing_device_is_a_typed_error() {
    let count = wavekit::hip::device_count();
    assert_eq!(Some(count), wavekit::hip::HipRuntime::device_count().ok());
    for ordinal in [count, usize::MAX] {
        match wavekit::hip::open(ordinal) {
            Err(WavekitError::NoDevice { backend: "hip", .. }) => {}
            Err(other) => panic!("expected NoDevice, got {other:?}"),
            Ok(_) => panic!("opened HIP device {ordinal} of {count}"),
        }
    }
}
