//! `SliceDevice::reduce_rows_in_place` on the GPU backend (the fold of wavekit-dist's
//! reproducible allreduce over 3 to 32 ranks, 2 to 32 for the 16-bit floats, folded in f32 and
//! rounded once) and on the CPU backend against the conformance reference's butterfly, column by
//! column, bit for bit:
//! on the SIMT executor at 32 and 64 lanes (CI) and on a CUDA device.

use wavekit::SliceDevice;
use wavekit::gpu::{GpuBackend, GpuRuntime, MAX_REDUCE_ROWS};
use wavekit::prelude::*;
use wavekit::{WavekitError, element::splitmix};
use wavekit_conformance::reference;

fn values<T: Element>(n: usize, seed: u64) -> Vec<T> {
    (0..n as u64)
        .map(|i| T::from_seed(splitmix(seed ^ i)))
        .collect()
}

/// The input of a shape, the row folded, and the rows as they must be after the fold.
fn case<T: Element>(r: usize, m: usize, op: ReduceOp) -> (Vec<T>, usize, Vec<T>) {
    let vals = values::<T>(r * m, (r * 1000 + m) as u64);
    let dst = (r * 7 + 3) % r;
    let mut want = vals.clone();
    for j in 0..m {
        // In the accumulator type (f32 for the 16-bit floats), rounded once.
        let column: Vec<T::Acc> = (0..r).map(|k| vals[k * m + j].to_acc()).collect();
        want[dst * m + j] = T::from_acc(reference::bfly_pow2(op, &column));
    }
    (vals, dst, want)
}

fn compare<T: Element>(got: &[T], want: &[T], r: usize, m: usize, dst: usize, op: ReduceOp) {
    let what = format!("{} {op:?} r={r} m={m} dst={dst}", T::KIND.name());
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g.same(*w),
            "{what}: row {} column {}: got {g:?}, want {w:?}",
            i / m,
            i % m
        );
    }
}

/// Row `dst` of `r` rows of `m` values folded on the device, the other rows untouched.
fn check<T: Element, R: GpuRuntime>(b: &GpuBackend<R>, r: usize, m: usize, op: ReduceOp) {
    let (vals, dst, want) = case::<T>(r, m, op);
    let mut rows = b.upload(&vals).unwrap();
    b.reduce_rows_in_place(&mut rows, r, dst, op).unwrap();
    compare(&b.download(&rows).unwrap(), &want, r, m, dst, op);
}

fn bad_input<R: GpuRuntime>(b: &GpuBackend<R>) {
    let mut rows = b.upload(&values::<f32>(12, 1)).unwrap();
    let before = b.download(&rows).unwrap();
    let refused = |r: Result<()>| r.expect_err("must be refused");
    for (r, dst) in [(0, 0), (MAX_REDUCE_ROWS + 1, 0), (3, 3)] {
        let e = refused(b.reduce_rows_in_place(&mut rows, r, dst, ReduceOp::Sum));
        assert!(matches!(e, WavekitError::IndexOutOfRange { .. }), "{e}");
    }
    let e = refused(b.reduce_rows_in_place(&mut rows, 5, 0, ReduceOp::Sum));
    assert!(matches!(e, WavekitError::LengthMismatch { .. }), "{e}");
    let e = refused(b.reduce_rows_in_place(&mut rows, 3, 0, ReduceOp::BitOr));
    assert!(matches!(e, WavekitError::UnsupportedOp { .. }), "{e}");
    assert_eq!(
        b.download(&rows).unwrap(),
        before,
        "nothing written on error"
    );
}

fn every_shape<R: GpuRuntime>(b: &GpuBackend<R>, m: usize) {
    for r in [1, 2, 3, 4, 5, 7, 8, 9, 16, 17, MAX_REDUCE_ROWS] {
        check::<f32, R>(b, r, m, ReduceOp::Sum);
    }
    check::<f64, R>(b, 6, m, ReduceOp::Product);
    check::<i64, R>(b, 5, m, ReduceOp::Max);
    check::<f32, R>(b, 3, m, ReduceOp::Min);
    check::<u32, R>(b, 12, m, ReduceOp::BitXor);
    check::<f32, R>(b, 4, 0, ReduceOp::Sum);
    check::<f16, R>(b, 7, m, ReduceOp::Sum);
    check::<bf16, R>(b, MAX_REDUCE_ROWS, m, ReduceOp::Sum);
    check::<bf16, R>(b, 3, m, ReduceOp::Product);
    check::<f16, R>(b, 5, m, ReduceOp::Max);
    bad_input(b);
}

/// The CPU backend's fold (wavekit-dist's thread transport), past the GPU's row limit too.
#[test]
fn cpu_fold_is_the_reference_butterfly() {
    let cpu = CpuBackend::new(WarpWidth::W32);
    let shapes = [
        (1, ReduceOp::Sum),
        (3, ReduceOp::Sum),
        (5, ReduceOp::Max),
        (33, ReduceOp::Sum),
    ];
    for (r, op) in shapes {
        let (vals, dst, want) = case::<f32>(r, 257, op);
        let mut rows = cpu.upload(&vals).unwrap();
        cpu.reduce_rows_in_place(&mut rows, r, dst, op).unwrap();
        compare(rows.as_slice(), &want, r, 257, dst, op);
    }
    let (vals, dst, want) = case::<bf16>(6, 257, ReduceOp::Sum);
    let mut rows = cpu.upload(&vals).unwrap();
    cpu.reduce_rows_in_place(&mut rows, 6, dst, ReduceOp::Sum)
        .unwrap();
    compare(rows.as_slice(), &want, 6, 257, dst, ReduceOp::Sum);
    let (vals, dst, want) = case::<u64>(12, 100, ReduceOp::BitXor);
    let mut rows = cpu.upload(&vals).unwrap();
    cpu.reduce_rows_in_place(&mut rows, 12, dst, ReduceOp::BitXor)
        .unwrap();
    compare(rows.as_slice(), &want, 12, 100, dst, ReduceOp::BitXor);
    let mut rows = cpu.upload(&values::<f32>(12, 1)).unwrap();
    let before = rows.as_slice().to_vec();
    for (r, dst) in [(0, 0), (3, 3)] {
        let e = cpu
            .reduce_rows_in_place(&mut rows, r, dst, ReduceOp::Sum)
            .unwrap_err();
        assert!(matches!(e, WavekitError::IndexOutOfRange { .. }), "{e}");
    }
    let e = cpu
        .reduce_rows_in_place(&mut rows, 5, 0, ReduceOp::Sum)
        .unwrap_err();
    assert!(matches!(e, WavekitError::LengthMismatch { .. }), "{e}");
    let e = cpu
        .reduce_rows_in_place(&mut rows, 3, 0, ReduceOp::BitOr)
        .unwrap_err();
    assert!(matches!(e, WavekitError::UnsupportedOp { .. }), "{e}");
    assert_eq!(rows.as_slice(), before, "nothing written on error");
}

#[cfg(feature = "simt")]
#[test]
fn executor_fold_is_the_reference_butterfly() {
    for width in WarpWidth::ALL {
        every_shape(&wavekit::simt::open(width).unwrap(), 1000);
    }
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn cuda_fold_is_the_reference_butterfly() {
    every_shape(&wavekit::cuda::open(0).expect("CUDA device 0"), 300_001);
}
