#![cfg(feature = "cuda")]
//! CUDA backend checks that need no GPU: the compiled launcher table matches the Rust mirror,
//! launchers refuse bad arguments before touching a device, and opening a missing device is a
//! typed error. CI runs these on a machine without a GPU.

use std::ffi::CStr;
use std::ptr::{null, null_mut};
use wavekit::gpu::ffi::{ABI_VERSION, ALGO_DEVICE_REDUCE, ALGO_DEVICE_SCAN, Launchers};
use wavekit::{ElemKind, ReduceOp, WavekitError};

const ERR_DTYPE: i32 = -2;
const ERR_ARG: i32 = -3;

fn table() -> &'static Launchers {
    wavekit::cuda::launchers()
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
fn wavekit_error_codes_have_messages() {
    assert_eq!(
        message(-1),
        "kernel compiled for another warp width than the device's"
    );
    assert_eq!(message(-4), "index out of range");
    assert_eq!(message(-99), "unknown wavekit error");
}

#[test]
fn scratch_sizes_follow_the_tile_counts() {
    let t = table();
    // SAFETY: scratch_bytes is a pure size query: integers in, one integer out, no memory touched.
    let bytes = |algo, kind: ElemKind, n| unsafe { (t.scratch_bytes)(algo, kind as u32, n) };
    // One tile: its block writes the result itself, no scratch at all.
    assert_eq!(bytes(ALGO_DEVICE_REDUCE, ElemKind::F32, 4096), 0);
    // Two tiles: one ticket (256-aligned), two partials (256-aligned).
    assert_eq!(bytes(ALGO_DEVICE_REDUCE, ElemKind::F32, 4097), 2 * 256);
    // 4097 tiles of f64: three tickets (two level-1 groups, one level-2), 4097 partials
    // (32776 bytes rounded up to 33024), then 2 level-2 partials.
    assert_eq!(
        bytes(ALGO_DEVICE_REDUCE, ElemKind::F64, 4097 * 4096),
        256 + 33_024 + 256
    );
    // Scan of 4-byte values: counter, then one 8-byte status word (flag and value) per tile.
    assert_eq!(bytes(ALGO_DEVICE_SCAN, ElemKind::U32, 3 * 4096), 256 + 256);
    // 8-byte values: one 16-byte status word per tile.
    assert_eq!(bytes(ALGO_DEVICE_SCAN, ElemKind::F64, 17 * 4096), 256 + 512);
    assert_eq!(bytes(ALGO_DEVICE_SCAN, ElemKind::U32, 0), 0);
    assert_eq!(
        // SAFETY: as above; an unknown element code sizes nothing.
        unsafe { (t.scratch_bytes)(ALGO_DEVICE_SCAN, 99, 10) },
        0,
        "unknown dtype"
    );
}

#[test]
fn launchers_refuse_bad_arguments_before_any_launch() {
    let t = table();
    // SAFETY: every call below is refused by argument checks before any pointer is used.
    unsafe {
        let shfl = |dtype, width, arg| {
            (t.shfl)(
                null_mut(),
                null_mut(),
                32,
                dtype,
                0,
                null(),
                64,
                u32::MAX as u64,
                arg,
                width,
                null_mut(),
            )
        };
        assert_eq!(shfl(99, 32, 0), ERR_DTYPE);
        assert_eq!(shfl(ElemKind::F32 as u32, 3, 0), ERR_ARG);
        assert_eq!(shfl(ElemKind::F32 as u32, 64, 0), ERR_ARG);
        // Any argument is CUDA's (its low five bits count): nothing to refuse there.
        let reduce_sync = |dtype, op: ReduceOp| {
            (t.warp_reduce_sync)(
                null_mut(),
                null_mut(),
                32,
                0,
                dtype,
                op as u32,
                null(),
                64,
                u32::MAX as u64,
                null_mut(),
            )
        };
        assert_eq!(reduce_sync(99, ReduceOp::Sum), ERR_DTYPE);
        assert_eq!(reduce_sync(ElemKind::F32 as u32, ReduceOp::BitAnd), ERR_ARG);
        let bitand_f32 = (t.tile_reduce)(
            null_mut(),
            null_mut(),
            32,
            ElemKind::F32 as u32,
            ReduceOp::BitAnd as u32,
            null(),
            64,
            8,
            null_mut(),
        );
        assert_eq!(bitand_f32, ERR_ARG);
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
        assert_eq!(block(0), ERR_ARG);
        let seg = (t.segmented_reduce)(
            null_mut(),
            null_mut(),
            ElemKind::I32 as u32,
            0,
            null(),
            10,
            null(),
            2,
            5,
            3,
            null_mut(),
        );
        assert_eq!(seg, ERR_ARG, "vector 3 is not a power of two");
        let hist = (t.histogram)(null_mut(), null_mut(), null(), 10, 0, null_mut());
        assert_eq!(hist, ERR_ARG);
    }
}

#[test]
fn a_missing_device_is_a_typed_error() {
    match wavekit::cuda::open(usize::MAX) {
        Err(WavekitError::NoDevice {
            backend: "cuda", ..
        }) => {}
        Err(other) => panic!("expected NoDevice, got {other:?}"),
        Ok(_) => panic!("opened CUDA device usize::MAX"),
    }
}
