//! `SliceDevice::reduce_partials_into` on the GPU backend (level L of device_reduce's tree from one launch, what
//! wavekit-dist's sharded reduce gathers) against the conformance reference, chunk by chunk,
//! bit for bit: on the SIMT executor at 32 and 64 lanes (CI) and on a CUDA device (full scale,
//! where the partials sit above a level of their own).

use wavekit::SliceDevice;
use wavekit::canonical::REDUCE_TILE;
use wavekit::gpu::{GpuBackend, GpuRuntime};
use wavekit::prelude::*;
use wavekit::{WavekitError, element::splitmix};
use wavekit_conformance::reference;

fn values<T: Element>(n: usize, seed: u64) -> Vec<T> {
    (0..n as u64)
        .map(|i| T::from_seed(splitmix(seed ^ i)))
        .collect()
}

/// `levels` of the tree over `vals`, compared with the reference's reduce of every chunk in the
/// accumulator type (a 16-bit float's partial is an `f32` sum, not rounded); then the partials
/// folded by `reduce_acc_into`, compared with the reference's reduce of the whole.
fn check<T: Element, R: GpuRuntime>(b: &GpuBackend<R>, vals: &[T], op: ReduceOp, levels: u32) {
    let chunk = REDUCE_TILE.saturating_pow(levels);
    let want: Vec<T::Acc> = vals
        .chunks(chunk)
        .map(|c| {
            let wide: Vec<T::Acc> = c.iter().map(|x| x.to_acc()).collect();
            reference::device_reduce(&wide, op)
        })
        .collect();
    let input = b.upload(vals).unwrap();
    // A poisoned output: every slot must be written.
    let mut out = b.upload(&vec![T::Acc::from_seed(7); want.len()]).unwrap();
    b.reduce_partials_into(&input, op, levels, &mut out)
        .unwrap();
    let got = b.download(&out).unwrap();
    let what = format!("{} {op:?} n={} levels={levels}", T::KIND.name(), vals.len());
    assert_eq!(got.len(), want.len(), "{what}: partials");
    for (c, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(g.same(*w), "{what}: chunk {c}: got {g:?}, want {w:?}");
    }
    let mut one = b.upload(&[T::from_seed(8)]).unwrap();
    b.reduce_acc_into(&out, op, &mut one).unwrap();
    let (g, w) = (
        b.download(&one).unwrap()[0],
        reference::device_reduce(vals, op),
    );
    assert!(
        g.same(w),
        "{what}: the partials folded: got {g:?}, want {w:?}"
    );
}

fn bad_input<R: GpuRuntime>(b: &GpuBackend<R>) {
    let input = b.upload(&values::<f32>(3 * REDUCE_TILE, 1)).unwrap();
    let mut three = b.alloc::<f32>(3).unwrap();
    let before = b.download(&three).unwrap();
    let bad = |r: Result<()>| r.expect_err("must be refused");
    for levels in [0, 5] {
        let e = bad(b.reduce_partials_into(&input, ReduceOp::Sum, levels, &mut three));
        assert!(matches!(e, WavekitError::IndexOutOfRange { .. }), "{e}");
    }
    let mut two = b.alloc::<f32>(2).unwrap();
    let e = bad(b.reduce_partials_into(&input, ReduceOp::Sum, 1, &mut two));
    assert!(matches!(e, WavekitError::LengthMismatch { .. }), "{e}");
    let e = bad(b.reduce_partials_into(&input, ReduceOp::BitAnd, 1, &mut three));
    assert!(matches!(e, WavekitError::UnsupportedOp { .. }), "{e}");
    let empty = b.alloc::<f32>(0).unwrap();
    let e = bad(b.reduce_partials_into(&empty, ReduceOp::Sum, 1, &mut three));
    assert!(matches!(e, WavekitError::EmptyInput { .. }), "{e}");
    assert_eq!(
        b.download(&three).unwrap(),
        before,
        "nothing written on error"
    );
    // The fold: one output, at least one partial, a float op.
    let before = b.download(&two).unwrap();
    let e = bad(b.reduce_acc_into::<f32>(&empty, ReduceOp::Sum, &mut two));
    assert!(matches!(e, WavekitError::EmptyInput { .. }), "{e}");
    let e = bad(b.reduce_acc_into::<f32>(&three, ReduceOp::Sum, &mut two));
    assert!(matches!(e, WavekitError::LengthMismatch { .. }), "{e}");
    let mut one = b.alloc::<wavekit::f16>(1).unwrap();
    let e = bad(b.reduce_acc_into(&three, ReduceOp::BitOr, &mut one));
    assert!(matches!(e, WavekitError::UnsupportedOp { .. }), "{e}");
    assert_eq!(
        b.download(&two).unwrap(),
        before,
        "nothing written on error"
    );
}

#[cfg(feature = "simt")]
#[test]
fn executor_partials_are_the_chunks_reduces() {
    use wavekit::simt;
    let n = 5 * REDUCE_TILE + 77;
    for width in WarpWidth::ALL {
        let b = simt::open(width).unwrap();
        // Level 1: one partial a tile, the last tile short.
        check(&b, &values::<f32>(n, 2), ReduceOp::Sum, 1);
        check(&b, &values::<i64>(n, 3), ReduceOp::Max, 1);
        check(&b, &values::<u32>(REDUCE_TILE, 4), ReduceOp::BitXor, 1);
        // Levels at or past the tree's top: the one value of `reduce`.
        check(&b, &values::<f64>(n, 5), ReduceOp::Sum, 2);
        check(&b, &values::<f32>(n, 6), ReduceOp::Min, 4);
        // The 16-bit floats: f32 partials, also at the top of the tree (level 2 here).
        check(&b, &values::<f16>(n, 12), ReduceOp::Sum, 1);
        check(&b, &values::<bf16>(n, 13), ReduceOp::Sum, 2);
        check(&b, &values::<f16>(n, 14), ReduceOp::Product, 1);
        check(&b, &values::<bf16>(n, 15), ReduceOp::Max, 1);
        bad_input(&b);
    }
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn cuda_partials_are_the_chunks_reduces() {
    let b = wavekit::cuda::open(0).expect("CUDA device 0");
    let t = REDUCE_TILE;
    // Three level-2 chunks and a short fourth: the partials come from the climb's middle.
    let n = 3 * t * t + 5 * t + 11;
    let big = values::<f32>(n, 8);
    let whole = reference::device_reduce(&big, ReduceOp::Sum);
    let reduce = |vals: &[f32]| {
        let v = b.reduce(&b.upload(vals).unwrap(), ReduceOp::Sum).unwrap();
        assert!(
            v.same(reference::device_reduce(vals, ReduceOp::Sum)),
            "reduce n={}",
            vals.len()
        );
        v
    };
    // Full reduces and partial levels of several sizes share one scratch pool in turns: a
    // call's partials must never be left where another's tickets are read.
    assert!(reduce(&big).same(whole));
    check(&b, &big, ReduceOp::Sum, 2);
    reduce(&big[..5 * t + 3]);
    assert!(reduce(&big).same(whole));
    check(&b, &values::<f64>(n, 9), ReduceOp::Product, 2);
    check(&b, &values::<f32>(n, 10), ReduceOp::Sum, 1);
    check(&b, &values::<i32>(n, 11), ReduceOp::Min, 3);
    check(&b, &values::<bf16>(n, 16), ReduceOp::Sum, 1);
    check(&b, &values::<f16>(n, 17), ReduceOp::Sum, 2);
    assert!(reduce(&big).same(whole));
    bad_input(&b);
}
