//! `GpuBackend::bfly_rows_in_place` (the fold of wavekit-dist's reproducible allreduce over 3
//! to 32 ranks) against the conformance reference's butterfly, column by column, bit for bit:
//! on the SIMT executor at 32 and 64 lanes (CI) and on a CUDA device.

use wavekit::gpu::{GpuBackend, GpuRuntime, MAX_BFLY_ROWS};
use wavekit::prelude::*;
use wavekit::{WavekitError, element::splitmix};
use wavekit_conformance::reference;

fn values<T: Element>(n: usize, seed: u64) -> Vec<T> {
    (0..n as u64)
        .map(|i| T::from_seed(splitmix(seed ^ i)))
        .collect()
}

/// Row `dst` of `r` rows of `m` values folded on the device, the other rows untouched.
fn check<T: Element, R: GpuRuntime>(b: &GpuBackend<R>, r: usize, m: usize, op: ReduceOp) {
    let vals = values::<T>(r * m, (r * 1000 + m) as u64);
    let dst = (r * 7 + 3) % r;
    let mut want = vals.clone();
    for j in 0..m {
        let column: Vec<T> = (0..r).map(|k| vals[k * m + j]).collect();
        want[dst * m + j] = reference::bfly_pow2(op, &column);
    }
    let mut rows = b.upload(&vals).unwrap();
    b.bfly_rows_in_place(&mut rows, r, dst, op).unwrap();
    let got = b.download(&rows).unwrap();
    let what = format!("{} {op:?} r={r} m={m} dst={dst}", T::KIND.name());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            g.same(*w),
            "{what}: row {} column {}: got {g:?}, want {w:?}",
            i / m,
            i % m
        );
    }
}

fn bad_input<R: GpuRuntime>(b: &GpuBackend<R>) {
    let mut rows = b.upload(&values::<f32>(12, 1)).unwrap();
    let before = b.download(&rows).unwrap();
    let refused = |r: Result<()>| r.expect_err("must be refused");
    for (r, dst) in [(0, 0), (MAX_BFLY_ROWS + 1, 0), (3, 3)] {
        let e = refused(b.bfly_rows_in_place(&mut rows, r, dst, ReduceOp::Sum));
        assert!(matches!(e, WavekitError::IndexOutOfRange { .. }), "{e}");
    }
    let e = refused(b.bfly_rows_in_place(&mut rows, 5, 0, ReduceOp::Sum));
    assert!(matches!(e, WavekitError::LengthMismatch { .. }), "{e}");
    let e = refused(b.bfly_rows_in_place(&mut rows, 3, 0, ReduceOp::BitOr));
    assert!(matches!(e, WavekitError::UnsupportedOp { .. }), "{e}");
    assert_eq!(
        b.download(&rows).unwrap(),
        before,
        "nothing written on error"
    );
}

fn every_shape<R: GpuRuntime>(b: &GpuBackend<R>, m: usize) {
    for r in [1, 2, 3, 4, 5, 7, 8, 9, 16, 17, MAX_BFLY_ROWS] {
        check::<f32, R>(b, r, m, ReduceOp::Sum);
    }
    check::<f64, R>(b, 6, m, ReduceOp::Product);
    check::<i64, R>(b, 5, m, ReduceOp::Max);
    check::<f32, R>(b, 3, m, ReduceOp::Min);
    check::<u32, R>(b, 12, m, ReduceOp::BitXor);
    check::<f32, R>(b, 4, 0, ReduceOp::Sum);
    bad_input(b);
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
