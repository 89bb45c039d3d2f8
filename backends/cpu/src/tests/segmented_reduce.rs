//! Segmented reduce and SpMV with vector lanes, worked by hand.

use super::{assert_bits_eq, cpu32};
use wavekit_core::Backend;
use wavekit_core::op::ReduceOp;
use wavekit_core::{Collectives, Csr, Segments, VectorSize};

#[test]
fn fixed_segments_with_a_short_last_one() {
    let b = cpu32();
    let input = b.upload(&(1..=12).collect::<Vec<i64>>()).unwrap();
    let segs = Segments::fixed(5, VectorSize::Lanes(2)).unwrap();
    let out = b.segmented_reduce(&input, &segs, ReduceOp::Sum).unwrap();
    // {1..5}, {6..10}, {11, 12}.
    assert_eq!(b.download(&out).unwrap(), vec![15, 40, 23]);
}

#[test]
fn offsets_with_an_empty_segment() {
    let b = cpu32();
    let input = b.upload(&[1u32, 2, 3, 4, 5, 6, 7]).unwrap();
    let segs = Segments::from_offsets(&b, &[0, 3, 3, 7], 7, VectorSize::Lanes(4)).unwrap();
    let out = b
        .segmented_reduce(&input, &segs, ReduceOp::Product)
        .unwrap();
    // {1, 2, 3}, {} (identity 1), {4, 5, 6, 7}.
    assert_eq!(b.download(&out).unwrap(), vec![6, 1, 840]);
}

#[test]
fn float_vector_lanes_fold_strided_items() {
    // V = 2 over [1e8, 4, 0, 4]: lane 0 folds items 0, 2 (1e8), lane 1 folds 1, 3 (8);
    // bfly: 1e8 + 8 = 100000008. The empty second segment is -0.0, the float Sum identity.
    let b = cpu32();
    let input = b.upload(&[1.0e8f32, 4.0, 0.0, 4.0]).unwrap();
    let segs = Segments::from_offsets(&b, &[0, 4, 4], 4, VectorSize::Lanes(2)).unwrap();
    let out = b.segmented_reduce(&input, &segs, ReduceOp::Sum).unwrap();
    assert_bits_eq(&b.download(&out).unwrap(), &[100_000_008.0, -0.0]);
    // With one lane the items fold left to right and both 4s round away.
    let segs = Segments::from_offsets(&b, &[0, 4, 4], 4, VectorSize::Lanes(1)).unwrap();
    let out = b.segmented_reduce(&input, &segs, ReduceOp::Sum).unwrap();
    assert_bits_eq(&b.download(&out).unwrap(), &[1.0e8, -0.0]);
}

#[test]
fn spmv_small_matrix() {
    // A = [[1, 0, 2], [0, 0, 0], [3, 4, 5]], x = [1, 2, 3]: y = [7, -0.0 (empty row), 26].
    let b = cpu32();
    let a = Csr::new(
        &b,
        3,
        3,
        &[0, 2, 2, 5],
        &[0, 2, 0, 1, 2],
        &[1.0f64, 2.0, 3.0, 4.0, 5.0],
    )
    .unwrap();
    let x = b.upload(&[1.0f64, 2.0, 3.0]).unwrap();
    for v in [1, 2, 4, 32] {
        let mut y = b.alloc::<f64>(3).unwrap();
        b.spmv(&a, &x, &mut y, VectorSize::Lanes(v)).unwrap();
        assert_bits_eq(&b.download(&y).unwrap(), &[7.0, -0.0, 26.0]);
    }
}

#[test]
fn spmv_multiplies_then_adds_per_lane() {
    // One row, V = 2: products [1e8, 4, 0, 4]; lane 0 = 1e8 + 0, lane 1 = 4 + 4, then
    // 1e8 + 8 = 100000008. Integer rows wrap.
    let b = cpu32();
    let a = Csr::new(&b, 1, 2, &[0, 4], &[0, 1, 1, 1], &[1.0e8f32, 2.0, 0.0, 2.0]).unwrap();
    let x = b.upload(&[1.0f32, 2.0]).unwrap();
    let mut y = b.alloc::<f32>(1).unwrap();
    b.spmv(&a, &x, &mut y, VectorSize::Lanes(2)).unwrap();
    assert_eq!(b.download(&y).unwrap(), vec![100_000_008.0]);

    let a = Csr::new(&b, 1, 1, &[0, 2], &[0, 0], &[u32::MAX, 3]).unwrap();
    let x = b.upload(&[2u32]).unwrap();
    let mut y = b.alloc::<u32>(1).unwrap();
    b.spmv(&a, &x, &mut y, VectorSize::Auto).unwrap();
    // (2^32 - 1) * 2 + 6 wraps to 4.
    assert_eq!(b.download(&y).unwrap(), vec![4]);
}
