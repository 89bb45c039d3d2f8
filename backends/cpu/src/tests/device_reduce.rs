//! The canonical device reduce: exact integer sums, hand-built float trees, and bit equality
//! with the conformance reference over several tile levels.

use super::cpu32;
use wavekit_conformance::reference;
use wavekit_core::Backend;
use wavekit_core::ScanKind;
use wavekit_core::api::Collectives;
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;

#[test]
fn three_tiles_of_small_integers() {
    let vals: Vec<i32> = (0..2 * 4096 + 100).map(|i| i % 7 - 3).collect();
    let b = cpu32();
    let input = b.upload(&vals).unwrap();
    let mut sum = 0i32;
    for &v in &vals {
        sum += v;
    }
    assert_eq!(b.reduce(&input, ReduceOp::Sum).unwrap(), sum);
    assert_eq!(b.reduce(&input, ReduceOp::Max).unwrap(), 3);
    assert_eq!(b.reduce(&input, ReduceOp::Min).unwrap(), -3);
    let mut xor = 0i32;
    for &v in &vals {
        xor ^= v;
    }
    assert_eq!(b.reduce(&input, ReduceOp::BitXor).unwrap(), xor);
}

#[test]
fn one_element_and_wrapping() {
    let b = cpu32();
    assert_eq!(
        b.reduce(&b.upload(&[42u64]).unwrap(), ReduceOp::Product)
            .unwrap(),
        42
    );
    let big = b.upload(&[u32::MAX, 5, u32::MAX]).unwrap();
    // 2 (2^32 - 1) + 5 = 2^33 + 3 wraps to 3.
    assert_eq!(b.reduce(&big, ReduceOp::Sum).unwrap(), 3);
}

#[test]
fn f32_tile_order_is_not_a_left_fold() {
    // V = 4: lane 0 holds elements 0..3 = [1e8, 0, 0, 0], lane 1 holds 4..7 = four 1s (4),
    // lane 2 holds zeros, lane 3 holds 12..15 = four 1s (4). The group butterfly pairs lanes
    // 1 and 3 at d = 2 (4 + 4 = 8) before adding lane 0: (1e8 + 0) + (4 + 4) = 100000008.
    // A left fold adds each 1 to 1e8 and rounds it away (ulp 8).
    let mut vals = vec![0.0f32; 16];
    vals[0] = 1.0e8;
    vals[4..8].fill(1.0);
    vals[12..16].fill(1.0);
    let b = cpu32();
    let got = b.reduce(&b.upload(&vals).unwrap(), ReduceOp::Sum).unwrap();
    let left_fold = vals.iter().fold(-0.0f32, |a, &x| a + x);
    let tree = (1.0e8f32 + 0.0) + ((1.0f32 + 1.0 + 1.0 + 1.0) + (1.0f32 + 1.0 + 1.0 + 1.0));
    assert_eq!(left_fold, 1.0e8);
    assert_eq!(tree, 100_000_008.0);
    assert_eq!(got.to_bits(), tree.to_bits());
}

#[test]
fn f64_lanes_hold_two_elements() {
    // V = 2: lane 0 = [2^53, 0], lane 1 = [1, 1] (2), lane 2 = [0, 0], lane 3 = [1, 1] (2).
    // (2^53 + 0) + (2 + 2) = 2^53 + 4; a left fold rounds every + 1 back to 2^53 (ulp 2).
    let p53 = 9_007_199_254_740_992.0f64;
    let vals = [p53, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0];
    let b = cpu32();
    let got = b.reduce(&b.upload(&vals).unwrap(), ReduceOp::Sum).unwrap();
    assert_eq!(vals.iter().fold(-0.0f64, |a, &x| a + x), p53);
    assert_eq!(got, p53 + 4.0);
}

#[test]
fn tile_partials_are_reduced_again() {
    // Two tiles: partial 0 = 1e8 (element 0), partial 1 = 8 (eight 1s, one in each of lanes
    // 0..7, summed exactly). Second level: one tile of the two partials, both in lane 0
    // (V = 4), folded in order: 1e8 + 8 = 100000008.
    let mut vals = vec![0.0f32; 8192];
    vals[0] = 1.0e8;
    for k in 0..8 {
        vals[4096 + 4 * k] = 1.0;
    }
    let b = cpu32();
    let got = b.reduce(&b.upload(&vals).unwrap(), ReduceOp::Sum).unwrap();
    assert_eq!(got, 100_000_008.0);
}

fn check_against_reference<T: Element>(n: usize, seed: u64) {
    let vals: Vec<T> = (0..n as u64).map(|i| T::from_seed(seed + i)).collect();
    reduce_matches_reference(&vals);
}

/// Every op of T on `vals` against the reference, bit for bit.
pub(super) fn reduce_matches_reference<T: Element>(vals: &[T]) {
    let b = cpu32();
    let input = b.upload(vals).unwrap();
    let n = vals.len();
    for op in ReduceOp::ops_for(T::KIND) {
        let got = b.reduce(&input, op).unwrap();
        let want = reference::device_reduce(vals, op);
        assert!(
            got.same(want),
            "{} {} n={n}: got {got:?}, want {want:?}",
            T::KIND.name(),
            op.name()
        );
    }
}

#[test]
fn matches_reference_for_every_type_and_op() {
    for n in [1, 5, 4095, 4096, 4097, 3 * 4096 + 17] {
        check_against_reference::<f32>(n, 1);
        check_against_reference::<f64>(n, 2);
        check_against_reference::<i32>(n, 3);
        check_against_reference::<u64>(n, 4);
    }
}

#[test]
fn matches_reference_across_three_levels() {
    // More than 4096 tiles, so the partials take two more levels.
    let n = 4096 * 4096 + 4096 * 3 + 11;
    let vals: Vec<f32> = (0..n as u64).map(|i| f32::from_seed(i ^ 0x5eed)).collect();
    let b = cpu32();
    let got = b.reduce(&b.upload(&vals).unwrap(), ReduceOp::Sum).unwrap();
    let want = reference::device_reduce(&vals, ReduceOp::Sum);
    assert_eq!(got.to_bits(), want.to_bits());
}

#[test]
fn scratch_is_kept_between_calls() {
    let b = cpu32();
    // A float sum: order-free ops (integers, float Min/Max) need no partials.
    let input = b.upload(&vec![1.0f64; 5 * 4096]).unwrap();
    assert_eq!(b.scratch.held_bytes(), 0);
    assert_eq!(b.reduce(&input, ReduceOp::Sum).unwrap(), 20480.0);
    let held = b.scratch.held_bytes();
    // Five partials and one more level: six f64s.
    assert_eq!(held, 6 * 8);
    assert_eq!(b.reduce(&input, ReduceOp::Sum).unwrap(), 20480.0);
    assert_eq!(b.scratch.held_bytes(), held);
}

#[test]
fn the_scans_worker_buffers_are_kept_between_calls() {
    let b = cpu32();
    let input = b.upload(&vec![1.0f32; 40 * 4096]).unwrap();
    let mut out = b.alloc::<f32>(40 * 4096).unwrap();
    assert_eq!(b.wide.held_bytes(), 0);
    b.scan(&input, &mut out, ReduceOp::Sum, ScanKind::Inclusive)
        .unwrap();
    let held = b.wide.held_bytes();
    // At least one worker's kept running folds: a chunk of tiles.
    let chunk = crate::device_scan_tile::TILES_PER_CHUNK * 4096;
    assert!(held >= chunk * 4, "{held} bytes");
    b.scan(&input, &mut out, ReduceOp::Sum, ScanKind::Inclusive)
        .unwrap();
    assert_eq!(b.wide.held_bytes(), held);
    assert_eq!(b.download(&out).unwrap()[40 * 4096 - 1], 163_840.0);
}

#[test]
fn a_small_scan_takes_only_the_buffers_it_uses() {
    let b = cpu32();
    // One tile of floats: one worker, one tile of kept running folds.
    let input = b.upload(&vec![1.0f32; 100]).unwrap();
    let mut out = b.alloc::<f32>(100).unwrap();
    b.scan(&input, &mut out, ReduceOp::Sum, ScanKind::Inclusive)
        .unwrap();
    assert_eq!(b.wide.held_bytes(), 4096 * 4);
    assert_eq!(b.download(&out).unwrap()[99], 100.0);
    // Integers not streamed scan straight into the output: no buffer.
    let b = cpu32();
    let input = b.upload(&vec![1i32; 100_000]).unwrap();
    let mut out = b.alloc::<i32>(100_000).unwrap();
    b.scan(&input, &mut out, ReduceOp::Sum, ScanKind::Inclusive)
        .unwrap();
    assert_eq!(b.wide.held_bytes(), 0);
    assert_eq!(b.download(&out).unwrap()[99_999], 100_000);
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let vals: Vec<f32> = (0..9 * 4096 + 123)
        .map(|i| f32::from_seed(i ^ 0xabc))
        .collect();
    let want_reduce = reference::device_reduce(&vals, ReduceOp::Sum);
    let want_scan = reference::device_scan(&vals, ReduceOp::Sum, wavekit_core::ScanKind::Inclusive);
    for threads in [1, 3, 8] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let (got_reduce, got_scan) = pool.install(|| {
            let b = cpu32();
            let input = b.upload(&vals).unwrap();
            let mut out = b.alloc::<f32>(vals.len()).unwrap();
            b.scan(
                &input,
                &mut out,
                ReduceOp::Sum,
                wavekit_core::ScanKind::Inclusive,
            )
            .unwrap();
            (
                b.reduce(&input, ReduceOp::Sum).unwrap(),
                b.download(&out).unwrap(),
            )
        });
        assert_eq!(
            got_reduce.to_bits(),
            want_reduce.to_bits(),
            "{threads} threads"
        );
        super::assert_bits_eq(&got_scan, &want_scan);
    }
}

/// Floats that stress the Min/Max order: signed zeros, infinities, subnormals, the extremes.
fn awkward_f32(n: usize, seed: u32) -> Vec<f32> {
    let pool = [
        0.0f32,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE / 4.0,
        -f32::MIN_POSITIVE / 4.0,
        f32::MAX,
        f32::MIN,
        1.5,
        -1.5,
    ];
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let k = (s >> 8) as usize;
            if k.is_multiple_of(3) {
                pool[k % pool.len()]
            } else {
                f32::from_bits(s)
            }
        })
        .filter(|x| !x.is_nan())
        .collect()
}

/// The plain left fold with the element's own combine: Min/Max select one element, so any
/// order gives the same bits and this is the expected value.
fn left_fold<T: Element>(vals: &[T], op: ReduceOp) -> T {
    vals.iter()
        .fold(T::identity(op), |a, &x| T::combine(op, a, x))
}

#[test]
fn float_min_max_match_a_left_fold_bit_for_bit() {
    let b = cpu32();
    for (n, seed) in [
        (1usize, 1u32),
        (17, 2),
        (4096, 3),
        (3 * 4096 + 5, 4),
        (300_001, 5),
    ] {
        let x = awkward_f32(n, seed);
        let d: Vec<f64> = x.iter().map(|&v| v as f64 * 3.0).collect();
        for op in [ReduceOp::Min, ReduceOp::Max] {
            let got = b.reduce(&b.upload(&x).unwrap(), op).unwrap();
            assert_eq!(
                got.to_bits(),
                left_fold(&x, op).to_bits(),
                "f32 {op:?} n={n}"
            );
            let got = b.reduce(&b.upload(&d).unwrap(), op).unwrap();
            assert_eq!(
                got.to_bits(),
                left_fold(&d, op).to_bits(),
                "f64 {op:?} n={n}"
            );
        }
    }
}

#[test]
fn signed_zeros_order_in_min_max() {
    let b = cpu32();
    let z = b.upload(&[0.0f32, -0.0, 0.0]).unwrap();
    assert_eq!(
        b.reduce(&z, ReduceOp::Min).unwrap().to_bits(),
        (-0.0f32).to_bits()
    );
    assert_eq!(
        b.reduce(&z, ReduceOp::Max).unwrap().to_bits(),
        0.0f32.to_bits()
    );
    let z = b.upload(&[-0.0f64, -0.0]).unwrap();
    assert_eq!(
        b.reduce(&z, ReduceOp::Max).unwrap().to_bits(),
        (-0.0f64).to_bits()
    );
}

#[test]
fn a_nan_anywhere_makes_min_max_nan() {
    let b = cpu32();
    for at in [0usize, 4095, 4096, 70_000] {
        let mut x = vec![1.0f32; 70_001];
        x[at] = f32::from_bits(0x7fc0_0123);
        let mut d: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        d[at] = -f64::NAN;
        for op in [ReduceOp::Min, ReduceOp::Max] {
            assert!(
                b.reduce(&b.upload(&x).unwrap(), op).unwrap().is_nan(),
                "f32 {op:?} at {at}"
            );
            assert!(
                b.reduce(&b.upload(&d).unwrap(), op).unwrap().is_nan(),
                "f64 {op:?} at {at}"
            );
        }
    }
}
