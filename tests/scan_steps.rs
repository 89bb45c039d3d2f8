//! The sharded scan's device steps on the GPU backend (`SliceDevice::scan_aggregates_into`,
//! `scan_carried_into`, `fold_left_into`, what wavekit-dist's scan of tile-aligned shards runs) against the
//! conformance reference, bit for bit: on the SIMT executor at 32 and 64 lanes (CI) and on a
//! CUDA device. The property of the carried scan: the scan of `tail` from the left fold of the
//! aggregates of `head` (a whole number of tiles) is the end of the scan of `head ++ tail`.

use wavekit::SliceDevice;
use wavekit::canonical::SCAN_TILE;
use wavekit::gpu::{GpuBackend, GpuRuntime};
use wavekit::prelude::*;
use wavekit::{WavekitError, element::splitmix};
use wavekit_conformance::reference;

fn values<T: Element>(n: usize, seed: u64) -> Vec<T> {
    (0..n as u64)
        .map(|i| T::from_seed(splitmix(seed ^ (i << 3))))
        .collect()
}

fn same<T: Element>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(*y))
}

/// `head` (whole tiles) then `tail`, through the three steps, against the reference.
fn check<T: Element, R: GpuRuntime>(
    b: &GpuBackend<R>,
    head_tiles: usize,
    tail: usize,
    op: ReduceOp,
    seed: u64,
) {
    let all = values::<T>(head_tiles * SCAN_TILE + tail, seed);
    let (head, rest) = all.split_at(head_tiles * SCAN_TILE);
    let what = format!(
        "{} {op:?} head {head_tiles} tiles, tail {tail}",
        T::KIND.name()
    );
    // Aggregates of every tile of the whole array: each tile's own scan's last value.
    let want_aggs: Vec<T> = all
        .chunks(SCAN_TILE)
        .map(|t| {
            *reference::device_scan(t, op, ScanKind::Inclusive)
                .last()
                .unwrap()
        })
        .collect();
    let input = b.upload(&all).unwrap();
    let mut aggs = b.upload(&vec![T::from_seed(7); want_aggs.len()]).unwrap();
    b.scan_aggregates_into(&input, op, &mut aggs).unwrap();
    assert!(
        same(&b.download(&aggs).unwrap(), &want_aggs),
        "{what}: aggregates"
    );
    if head_tiles == 0 {
        return;
    }
    // The left fold of the head's aggregates is X of the tail's first tile.
    let mut carry = b.alloc::<T>(1).unwrap();
    let head_aggs = b.upload(&want_aggs[..head_tiles]).unwrap();
    b.fold_left_into(&head_aggs, op, &mut carry).unwrap();
    let x = want_aggs[1..head_tiles]
        .iter()
        .fold(want_aggs[0], |x, &a| T::combine(op, x, a));
    assert!(b.download(&carry).unwrap()[0].same(x), "{what}: fold");
    let _ = head;
    let tail_in = b.upload(rest).unwrap();
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        let whole = reference::device_scan(&all, op, kind);
        let mut out = b.upload(&vec![T::from_seed(9); rest.len()]).unwrap();
        b.scan_carried_into(&tail_in, &mut out, op, kind, &carry)
            .unwrap();
        let got = b.download(&out).unwrap();
        if let Some(i) = (0..got.len()).find(|&i| !got[i].same(whole[head_tiles * SCAN_TILE + i])) {
            panic!(
                "{what} {kind:?}: element {i} of the tail: {:?} != {:?}",
                got[i],
                whole[head_tiles * SCAN_TILE + i]
            );
        }
    }
}

/// The fold alone over `n` values (batches of the kernel's warp and a short last one).
fn fold<T: Element, R: GpuRuntime>(b: &GpuBackend<R>, n: usize, op: ReduceOp, seed: u64) {
    let v = values::<T>(n, seed);
    let want = v[1..].iter().fold(v[0], |x, &a| T::combine(op, x, a));
    let mut out = b.alloc::<T>(1).unwrap();
    b.fold_left_into(&b.upload(&v).unwrap(), op, &mut out)
        .unwrap();
    let got = b.download(&out).unwrap()[0];
    assert!(
        got.same(want),
        "{} {op:?} fold of {n}: {got:?} != {want:?}",
        T::KIND.name()
    );
}

/// The fold of an op whose result does not depend on the order of its combines (the kernel
/// folds those with the whole block, in no fixed order): integers wrap, and float Min/Max keep
/// `-0.0` below `+0.0` and let a NaN win however the values are grouped.
fn fold_any_order<R: GpuRuntime>(b: &GpuBackend<R>) {
    for n in [1, 3, 256, 1025, 5000, 70_001] {
        fold::<i32, _>(b, n, ReduceOp::Sum, 20 + n as u64);
        fold::<u64, _>(b, n, ReduceOp::Sum, 21 + n as u64);
        fold::<i64, _>(b, n, ReduceOp::Min, 25 + n as u64);
        fold::<u32, _>(b, n, ReduceOp::BitXor, 22 + n as u64);
        fold::<f64, _>(b, n, ReduceOp::Max, 23 + n as u64);
    }
    // Every other value above (Min) or below (Max) zero, and both zeros inside.
    let v = values::<f32>(5000, 24);
    for (op, sign, want) in [(ReduceOp::Min, 1.0f32, -0.0f32), (ReduceOp::Max, -1.0, 0.0)] {
        let mut w: Vec<f32> = v.iter().map(|x| sign * (x.abs() + 1.0)).collect();
        w[4000] = 0.0;
        w[10] = -0.0;
        let mut out = b.alloc::<f32>(1).unwrap();
        b.fold_left_into(&b.upload(&w).unwrap(), op, &mut out)
            .unwrap();
        let got = b.download(&out).unwrap()[0];
        assert_eq!(got.to_bits(), want.to_bits(), "{op:?}: signed zeros");
    }
    let mut v = v;
    v[3001] = f32::NAN;
    for op in [ReduceOp::Min, ReduceOp::Max] {
        let mut out = b.alloc::<f32>(1).unwrap();
        b.fold_left_into(&b.upload(&v).unwrap(), op, &mut out)
            .unwrap();
        assert!(b.download(&out).unwrap()[0].is_nan(), "{op:?}: a NaN wins");
    }
}

fn bad_input<R: GpuRuntime>(b: &GpuBackend<R>) {
    let input = b.upload(&values::<f32>(2 * SCAN_TILE + 1, 1)).unwrap();
    let mut three = b.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    let mut two = b.alloc::<f32>(2).unwrap();
    let e = b
        .scan_aggregates_into(&input, ReduceOp::Sum, &mut two)
        .unwrap_err();
    assert!(matches!(e, WavekitError::LengthMismatch { .. }), "{e}");
    let e = b
        .scan_aggregates_into(&input, ReduceOp::BitAnd, &mut three)
        .unwrap_err();
    assert!(matches!(e, WavekitError::UnsupportedOp { .. }), "{e}");
    let empty = b.alloc::<f32>(0).unwrap();
    let e = b
        .fold_left_into(&empty, ReduceOp::Sum, &mut two)
        .unwrap_err();
    assert!(matches!(e, WavekitError::EmptyInput { .. }), "{e}");
    let mut out = b.alloc::<f32>(input.len()).unwrap();
    let e = b
        .scan_carried_into(&input, &mut out, ReduceOp::Sum, ScanKind::Inclusive, &two)
        .unwrap_err();
    assert!(matches!(e, WavekitError::LengthMismatch { .. }), "{e}");
    let halves = b.upload(&[wavekit::f16::from_f32(1.0); 4]).unwrap();
    let mut one = b.alloc::<wavekit::f16>(1).unwrap();
    let e = b
        .fold_left_into(&halves, ReduceOp::Sum, &mut one)
        .unwrap_err();
    assert!(matches!(e, WavekitError::UnsupportedType { .. }), "{e}");
    assert_eq!(
        b.download(&three).unwrap(),
        [1.0, 2.0, 3.0],
        "nothing written on error"
    );
}

#[cfg(feature = "simt")]
#[test]
fn executor_scan_steps_are_the_reference() {
    for width in WarpWidth::ALL {
        let b = wavekit::simt::open(width).unwrap();
        check::<f32, _>(&b, 2, 3 * SCAN_TILE + 5, ReduceOp::Sum, 1);
        check::<f64, _>(&b, 1, 100, ReduceOp::Max, 2);
        check::<i32, _>(&b, 3, 2 * SCAN_TILE, ReduceOp::BitXor, 3);
        check::<u64, _>(&b, 0, SCAN_TILE + 1, ReduceOp::Sum, 4);
        for n in [1, 2, 255, 256, 257, 5000] {
            fold::<f32, _>(&b, n, ReduceOp::Sum, 10 + n as u64);
        }
        fold::<i64, _>(&b, 3333, ReduceOp::Max, 11);
        fold_any_order(&b);
        bad_input(&b);
    }
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn cuda_scan_steps_are_the_reference() {
    let b = wavekit::cuda::open(0).expect("CUDA device 0");
    // Past one wave of blocks, so the carried scan's look-back chains through many tiles.
    check::<f32, _>(&b, 300, 1000 * SCAN_TILE + 17, ReduceOp::Sum, 5);
    check::<f64, _>(&b, 7, 40 * SCAN_TILE, ReduceOp::Sum, 6);
    check::<f32, _>(&b, 2, 5 * SCAN_TILE + 3, ReduceOp::Product, 7);
    check::<i64, _>(&b, 50, 3000 * SCAN_TILE, ReduceOp::Sum, 8);
    check::<u32, _>(&b, 1, 1, ReduceOp::BitOr, 9);
    for n in [1, 257, 1 << 20, 786_433] {
        fold::<f32, _>(&b, n, ReduceOp::Sum, 12 + n as u64);
    }
    fold::<f64, _>(&b, 100_001, ReduceOp::Product, 13);
    fold_any_order(&b);
    bad_input(&b);
}
