//! The canonical device scan: exact integer prefix sums, hand-built float cases, and bit
//! equality with the conformance reference.

use super::{assert_bits_eq, scan};
use wavekit_conformance::reference;
use wavekit_core::ScanKind;
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;

#[test]
fn prefix_sums_of_1_to_n() {
    let n = 3 * 4096 + 17;
    let vals: Vec<u64> = (1..=n as u64).collect();
    let mut want = Vec::new();
    let mut acc = 0u64;
    for &v in &vals {
        acc += v;
        want.push(acc);
    }
    assert_eq!(scan(&vals, ReduceOp::Sum, ScanKind::Inclusive), want);
    let mut exclusive = vec![0u64];
    exclusive.extend_from_slice(&want[..n - 1]);
    assert_eq!(scan(&vals, ReduceOp::Sum, ScanKind::Exclusive), exclusive);
}

#[test]
fn running_max_and_wrapping_sum() {
    let vals = [3i32, -1, 7, 2, 7, 9, i32::MAX, 1];
    assert_eq!(
        scan(&vals, ReduceOp::Max, ScanKind::Inclusive),
        vec![3, 3, 7, 7, 7, 9, i32::MAX, i32::MAX]
    );
    let sums = scan(&vals, ReduceOp::Sum, ScanKind::Inclusive);
    // 27 + i32::MAX wraps to i32::MIN + 26.
    assert_eq!(sums[6], i32::MIN + 26);
}

#[test]
fn float_thread_prefixes_are_combined_after_the_thread_fold() {
    // Thread 0 owns items 0..15 (1e8 then zeros), thread 1 owns 16..: [4, 4]. Thread 1's
    // items are folded first (s = 4, 8) and then added to P_1 = 1e8: out[17] = 1e8 + 8 =
    // 100000008, while a sequential prefix sum rounds 1e8 + 4 back to 1e8 twice.
    let mut vals = vec![0.0f32; 18];
    vals[0] = 1.0e8;
    vals[16] = 4.0;
    vals[17] = 4.0;
    let got = scan(&vals, ReduceOp::Sum, ScanKind::Inclusive);
    let mut want = vec![1.0e8f32; 18];
    want[17] = 100_000_008.0;
    assert_bits_eq(&got, &want);
    let sequential = vals.iter().fold(-0.0f32, |a, &x| a + x);
    assert_eq!(sequential, 1.0e8);
}

#[test]
fn float_tile_prefix_is_combined_after_the_local_scan() {
    // Tile 1 starts with [4, 4]: its local values are 4, 8, combined with X_1 = 1e8.
    let mut vals = vec![0.0f32; 4098];
    vals[0] = 1.0e8;
    vals[4096] = 4.0;
    vals[4097] = 4.0;
    let got = scan(&vals, ReduceOp::Sum, ScanKind::Inclusive);
    assert_eq!(
        (got[4095], got[4096], got[4097]),
        (1.0e8, 1.0e8, 100_000_008.0)
    );
    let exc = scan(&vals, ReduceOp::Sum, ScanKind::Exclusive);
    assert_eq!(
        (exc[0].to_bits(), exc[4096], exc[4097]),
        ((-0.0f32).to_bits(), 1.0e8, 1.0e8)
    );
}

fn check_against_reference<T: Element>(n: usize, seed: u64) {
    let vals: Vec<T> = (0..n as u64)
        .map(|i| T::from_seed(seed * 1000 + i))
        .collect();
    for op in ReduceOp::ops_for(T::KIND) {
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            let want = reference::device_scan(&vals, op, kind);
            assert_bits_eq(&scan(&vals, op, kind), &want);
        }
    }
}

#[test]
fn matches_reference_for_every_type_and_op() {
    for n in [1, 15, 16, 17, 513, 4095, 4096, 4097, 3 * 4096 + 5] {
        check_against_reference::<f32>(n, 1);
        check_against_reference::<f64>(n, 2);
        check_against_reference::<i64>(n, 3);
        check_against_reference::<u32>(n, 4);
    }
}
