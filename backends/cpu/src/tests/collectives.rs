//! Warp reduce, warp scan and block reduce, worked by hand and against the conformance
//! reference.

use super::{assert_bits_eq, cpu32, cpu64};
use wavekit_conformance::reference;
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;
use wavekit_core::{Backend, ScanKind};
use wavekit_core::{Collectives, WarpPrimitives};

#[test]
fn warp_reduce_per_segment() {
    let vals: Vec<i32> = (1..=10).collect();
    // Segments {1..4}, {5..8}, {9, 10}.
    assert_eq!(
        cpu32().warp_reduce(&vals, 4, ReduceOp::Sum).unwrap(),
        vec![10, 26, 19]
    );
    assert_eq!(
        cpu32().warp_reduce(&vals, 4, ReduceOp::Product).unwrap(),
        vec![24, 1680, 90]
    );
    assert_eq!(cpu32().warp_reduce(&vals, 1, ReduceOp::Min).unwrap(), vals);
    assert_eq!(
        cpu64().warp_reduce(&vals, 64, ReduceOp::BitXor).unwrap(),
        vec![11]
    );
}

#[test]
fn warp_scan_inclusive_and_exclusive() {
    let vals: Vec<u64> = (1..=10).collect();
    let inc = cpu32()
        .warp_scan(&vals, 4, ReduceOp::Sum, ScanKind::Inclusive)
        .unwrap();
    assert_eq!(inc, vec![1, 3, 6, 10, 5, 11, 18, 26, 9, 19]);
    let exc = cpu32()
        .warp_scan(&vals, 4, ReduceOp::Sum, ScanKind::Exclusive)
        .unwrap();
    assert_eq!(exc, vec![0, 1, 3, 6, 0, 5, 11, 18, 0, 9]);
    let max = cpu32()
        .warp_scan(
            &[3i32, 1, 4, 1, 5, 9, 2, 6],
            8,
            ReduceOp::Max,
            ScanKind::Exclusive,
        )
        .unwrap();
    assert_eq!(max, vec![i32::MIN, 3, 3, 4, 4, 5, 9, 9]);
}

#[test]
fn warp_scan_float_is_kogge_stone_not_a_left_fold() {
    // d = 1: [1e8, 1e8 + 4 -> 1e8 (tie to even), 8, 8]; d = 2: lanes 2, 3 add 1e8: 100000008.
    // A left fold would give 1e8 on lanes 1..3.
    let vals = [1.0e8f32, 4.0, 4.0, 4.0];
    let got = cpu32()
        .warp_scan(&vals, 4, ReduceOp::Sum, ScanKind::Inclusive)
        .unwrap();
    assert_bits_eq(&got, &[1.0e8, 1.0e8, 100_000_008.0, 100_000_008.0]);
    let exc = cpu32()
        .warp_scan(&vals, 4, ReduceOp::Sum, ScanKind::Exclusive)
        .unwrap();
    assert_bits_eq(&exc, &[-0.0, 1.0e8, 1.0e8, 100_000_008.0]);
}

#[test]
fn warp_collectives_match_reference_on_random_floats() {
    let vals: Vec<f64> = (0..1000).map(f64::from_seed).collect();
    for width in [2u32, 8, 32, 64] {
        let b = cpu64();
        let got = b.warp_reduce(&vals, width, ReduceOp::Sum).unwrap();
        assert_bits_eq(&got, &reference::warp_reduce(&vals, width, ReduceOp::Sum));
        let got = b
            .warp_scan(&vals, width, ReduceOp::Sum, ScanKind::Inclusive)
            .unwrap();
        let want = reference::warp_scan(&vals, width, ReduceOp::Sum, ScanKind::Inclusive);
        assert_bits_eq(&got, &want);
    }
}

#[test]
fn block_reduce_sums_each_block() {
    let b = cpu32();
    let input = b.upload(&(1..=100).collect::<Vec<i32>>()).unwrap();
    // Blocks 1..=64 and 65..=100.
    assert_eq!(
        b.block_reduce(&input, 64, ReduceOp::Sum).unwrap(),
        vec![2080, 2970]
    );
    assert_eq!(
        b.block_reduce(&input, 1024, ReduceOp::Max).unwrap(),
        vec![100]
    );
}

#[test]
fn block_reduce_float_uses_groups_of_32() {
    // Block of 64: group 0 = 1e8 alone, group 1 = thirty-two 0.5s; bfly(group 1) = 16 exactly,
    // so the block is 1e8 + 16 = 100000016; a left fold adds each 0.5 to 1e8 and loses it.
    let mut vals = vec![0.0f32; 64];
    vals[0] = 1.0e8;
    vals[32..].fill(0.5);
    let b = cpu32();
    let got = b
        .block_reduce(&b.upload(&vals).unwrap(), 64, ReduceOp::Sum)
        .unwrap();
    assert_eq!(got, vec![100_000_016.0]);
    assert_eq!(vals.iter().fold(-0.0f32, |a, &x| a + x), 1.0e8);
}

#[test]
fn block_reduce_matches_reference_on_random_floats() {
    let vals: Vec<f32> = (0..5000).map(|i| f32::from_seed(i + 7)).collect();
    let b = cpu32();
    let input = b.upload(&vals).unwrap();
    for block in [32u32, 96, 256, 1024] {
        let got = b.block_reduce(&input, block, ReduceOp::Sum).unwrap();
        assert_bits_eq(&got, &reference::block_reduce(&vals, block, ReduceOp::Sum));
    }
}
