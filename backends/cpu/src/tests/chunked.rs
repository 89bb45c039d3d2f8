//! The collectives that work the input in chunks chained by the look-back (device scan, stable
//! compaction) or count into private tables (histogram), and the vector tile kernels of scan and
//! reduce, at sizes that span several chunks, odd tails, 0 and 1 elements, under several thread
//! counts. Expected values come from `wavekit_conformance::reference` (the one executable copy
//! of docs/SEMANTICS.md), plain loops, or are worked out by hand.

use super::device_reduce::reduce_matches_reference;
use super::{assert_bits_eq, cpu32, scan, with_threads};
use wavekit_conformance::reference;
use wavekit_core::api::Collectives;
use wavekit_core::element::{Element, bf16, f16, splitmix};
use wavekit_core::{Backend, ScanKind};
use wavekit_core::{Predicate, ReduceOp};

/// Elements in one chunk of the float scan (16 tiles) and of the 4-byte integer scan; the
/// 8-byte integer scan's chunk is half as long. The sizes below straddle all of them.
const CHUNK: usize = 16 * 4096;

const SIZES: [usize; 9] = [
    1,
    2,
    4097,
    CHUNK / 2 + 1,
    CHUNK - 1,
    CHUNK,
    CHUNK + 1,
    2 * CHUNK + 4096,
    3 * CHUNK + 4095 + 7,
];

/// Random values of T with, for floats, signed zeros, a NaN and infinities mixed in.
fn awkward<T: Element>(n: usize, seed: u64) -> Vec<T> {
    (0..n as u64)
        .map(|i| {
            let x = T::from_seed(seed << 32 | i);
            if !T::KIND.is_float() {
                return x;
            }
            match i % 997 {
                3 => T::from_bits(if T::KIND.size() == 4 {
                    0x8000_0000
                } else {
                    1 << 63
                }),
                5 => T::default(),
                _ if i == 2 * CHUNK as u64 + 77 => {
                    T::from_bits(u64::MAX >> (64 - 8 * T::KIND.size()))
                }
                _ => x,
            }
        })
        .collect()
}

fn scan_matches_spec<T: Element>(seed: u64) {
    for n in SIZES {
        let vals = awkward::<T>(n, seed);
        for op in ReduceOp::ops_for(T::KIND) {
            let want = reference::device_scan(&vals, op, ScanKind::Inclusive);
            assert_bits_eq(&scan(&vals, op, ScanKind::Inclusive), &want);
            let mut exclusive = vec![T::identity(op)];
            exclusive.extend_from_slice(&want[..n - 1]);
            assert_bits_eq(&scan(&vals, op, ScanKind::Exclusive), &exclusive);
        }
    }
}

#[test]
fn scan_matches_spec_across_chunks() {
    scan_matches_spec::<f32>(1);
    scan_matches_spec::<f64>(2);
    scan_matches_spec::<i32>(3);
    scan_matches_spec::<u64>(4);
    scan_matches_spec::<f16>(15);
    scan_matches_spec::<bf16>(16);
}

#[test]
fn scan_does_not_depend_on_the_thread_count() {
    let n = 5 * CHUNK + 3 * 4096 + 11;
    let f: Vec<f32> = awkward(n, 5);
    let i: Vec<i64> = awkward(n, 6);
    let want_f = reference::device_scan(&f, ReduceOp::Sum, ScanKind::Inclusive);
    let want_i = reference::device_scan(&i, ReduceOp::Sum, ScanKind::Inclusive);
    let h: Vec<bf16> = awkward(n, 7);
    let want_h = reference::device_scan(&h, ReduceOp::Sum, ScanKind::Exclusive);
    for threads in [1, 2, 3, 8] {
        let (got_f, got_i, got_h) = with_threads(threads, || {
            (
                scan(&f, ReduceOp::Sum, ScanKind::Inclusive),
                scan(&i, ReduceOp::Sum, ScanKind::Inclusive),
                scan(&h, ReduceOp::Sum, ScanKind::Exclusive),
            )
        });
        assert_bits_eq(&got_f, &want_f);
        assert_eq!(got_i, want_i, "{threads} threads");
        assert_bits_eq(&got_h, &want_h);
    }
}

#[test]
fn scan_folds_tile_aggregates_one_by_one_across_chunks() {
    // Tile 0 is 1e8 then zeros; every later tile holds a single 4 at its start, so every tile
    // aggregate after the first is 4. The canonical prefix folds them one at a time,
    // X_i = X_{i-1} + 4, which rounds back to 1e8 every time (f32 spacing there is 8), so every
    // output is 1e8. Adding a chunk's aggregates together first (64 per 16 tiles) would reach
    // 1e8 + 64 at the second chunk.
    let tiles = 3 * 16 + 5;
    let mut vals = vec![0.0f32; tiles * 4096];
    vals[0] = 1.0e8;
    for t in 1..tiles {
        vals[t * 4096] = 4.0;
    }
    let got = scan(&vals, ReduceOp::Sum, ScanKind::Inclusive);
    assert!(
        got.iter().all(|&x| x == 1.0e8),
        "{:?}",
        &got[CHUNK..CHUNK + 2]
    );
    let exc = scan(&vals, ReduceOp::Sum, ScanKind::Exclusive);
    assert_eq!(exc[0].to_bits(), (-0.0f32).to_bits());
    assert!(exc[1..].iter().all(|&x| x == 1.0e8));
}

#[test]
fn scan_keeps_negative_zero_and_nan_across_chunks() {
    // The Sum identity is -0.0 and -0.0 + -0.0 = -0.0: an all -0.0 input scans to -0.0
    // everywhere, which any +0.0 seeded into a chunk or tile would break.
    let n = 2 * CHUNK + 4096 + 3;
    let zeros = vec![-0.0f64; n];
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        let got = scan(&zeros, ReduceOp::Sum, kind);
        assert!(got.iter().all(|x| x.to_bits() == (-0.0f64).to_bits()));
    }
    // A NaN reaches every later element, also past chunk boundaries, and nothing before it.
    let mut vals = vec![1.0f32; n];
    vals[CHUNK - 1] = f32::NAN;
    let got = scan(&vals, ReduceOp::Sum, ScanKind::Inclusive);
    assert!(got[..CHUNK - 1].iter().all(|x| !x.is_nan()));
    assert!(got[CHUNK - 1..].iter().all(|x| x.is_nan()));
    let got = scan(&vals, ReduceOp::Max, ScanKind::Exclusive);
    assert!(got[..CHUNK].iter().all(|x| !x.is_nan()));
    assert!(got[CHUNK..].iter().all(|x| x.is_nan()));
}

#[test]
fn integer_scans_are_exact_prefixes_across_chunks() {
    let n = 4 * CHUNK + 1234;
    let vals: Vec<i32> = (0..n as i64)
        .map(|i| (i * 2_654_435_761 % 1_000_003) as i32 - 500_000)
        .collect();
    let (mut sum, mut max, mut xor) = (0i32, i32::MIN, 0i32);
    let mut want = (vec![], vec![], vec![]);
    for &v in &vals {
        sum = sum.wrapping_add(v);
        max = max.max(v);
        xor ^= v;
        want.0.push(sum);
        want.1.push(max);
        want.2.push(xor);
    }
    assert_eq!(scan(&vals, ReduceOp::Sum, ScanKind::Inclusive), want.0);
    assert_eq!(scan(&vals, ReduceOp::Max, ScanKind::Inclusive), want.1);
    let mut exclusive = vec![0];
    exclusive.extend_from_slice(&want.2[..n - 1]);
    assert_eq!(
        scan(&vals, ReduceOp::BitXor, ScanKind::Exclusive),
        exclusive
    );
}

#[test]
fn scan_of_nothing_writes_nothing() {
    let b = cpu32();
    let input = b.upload::<f32>(&[]).unwrap();
    let mut out = b.alloc::<f32>(0).unwrap();
    b.scan(&input, &mut out, ReduceOp::Sum, ScanKind::Exclusive)
        .unwrap();
    assert!(b.download(&out).unwrap().is_empty());
    assert_eq!(
        scan(&[7.5f32], ReduceOp::Sum, ScanKind::Inclusive),
        vec![7.5]
    );
    assert_eq!(
        scan(&[7.5f32], ReduceOp::Sum, ScanKind::Exclusive)[0].to_bits(),
        (-0.0f32).to_bits()
    );
}

/// Compaction of `vals` by `pred`, stable and unordered, against a plain filter.
fn check_compaction<T: Element>(vals: &[T], pred: Predicate<T>) {
    let want: Vec<T> = vals.iter().copied().filter(|&x| pred.test(x)).collect();
    let b = cpu32();
    let input = b.upload(vals).unwrap();
    let stable = b.compact(&input, pred, true).unwrap();
    assert_eq!(
        stable.len,
        want.len(),
        "{} of {}",
        T::KIND.name(),
        vals.len()
    );
    assert_bits_eq(&b.download(&stable.data).unwrap()[..stable.len], &want);
    let unordered = b.compact(&input, pred, false).unwrap();
    let mut got: Vec<u64> = b.download(&unordered.data).unwrap()[..unordered.len]
        .iter()
        .map(|x| x.to_bits())
        .collect();
    let mut want: Vec<u64> = want.iter().map(|x| x.to_bits()).collect();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got, want);
}

#[test]
fn compaction_keeps_order_across_chunks() {
    for n in SIZES.into_iter().chain([0, 7, 8, 9, 16_383, 16_385]) {
        let f: Vec<f32> = awkward(n, 7);
        check_compaction(&f, Predicate::Gt(0.0));
        check_compaction(&f, Predicate::Ne(f32::from_seed(7 << 32 | 11)));
        let d: Vec<f64> = awkward(n, 8);
        check_compaction(&d, Predicate::Le(0.5));
        let u: Vec<u32> = awkward(n, 9);
        check_compaction(&u, Predicate::InRange(1 << 30, 3 << 30));
        let i: Vec<i64> = awkward(n, 10);
        check_compaction(&i, Predicate::Lt(0));
    }
}

/// Just past the output size from which scans and compactions write with non-temporal stores
/// (`memory::STREAM_FROM`, 32 MiB), with odd tails, so both the streamed bodies and the
/// unaligned heads and tails are checked.
#[test]
fn streamed_outputs_match_spec() {
    const STREAMED: usize = 32 << 20;
    let n4 = STREAMED / 4 + 4096 + 3;
    let f: Vec<f32> = awkward(n4, 12);
    let want = reference::device_scan(&f, ReduceOp::Sum, ScanKind::Inclusive);
    assert_bits_eq(&scan(&f, ReduceOp::Sum, ScanKind::Inclusive), &want);
    let mut exclusive = vec![-0.0f32];
    exclusive.extend_from_slice(&want[..n4 - 1]);
    assert_bits_eq(&scan(&f, ReduceOp::Sum, ScanKind::Exclusive), &exclusive);
    for (kind, seed) in [(ScanKind::Inclusive, 13), (ScanKind::Exclusive, 14)] {
        let i: Vec<i32> = awkward(n4, seed);
        assert_eq!(
            scan(&i, ReduceOp::Sum, kind),
            reference::device_scan(&i, ReduceOp::Sum, kind)
        );
        let l: Vec<i64> = awkward(STREAMED / 8 + 5, seed);
        assert_eq!(
            scan(&l, ReduceOp::Max, kind),
            reference::device_scan(&l, ReduceOp::Max, kind)
        );
    }
    check_compaction(&f, Predicate::Gt(0.0));
    // 16-bit floats: twice as many elements to reach the same output size.
    let h: Vec<f16> = awkward(STREAMED / 2 + 4096 + 5, 17);
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        assert_bits_eq(
            &scan(&h, ReduceOp::Sum, kind),
            &reference::device_scan(&h, ReduceOp::Sum, kind),
        );
    }
}

#[test]
fn compaction_of_all_and_none_and_every_other() {
    let n = 3 * CHUNK + 5;
    let vals: Vec<i32> = (0..n as i32).collect();
    check_compaction(&vals, Predicate::Ge(0));
    check_compaction(&vals, Predicate::Lt(0));
    let odd: Vec<i32> = (0..n as i32)
        .map(|i| if i % 2 == 1 { i } else { -i })
        .collect();
    check_compaction(&odd, Predicate::Gt(0));
}

#[test]
fn compaction_does_not_depend_on_the_thread_count() {
    let vals: Vec<f32> = awkward(6 * CHUNK + 333, 11);
    for threads in [1, 2, 3, 8] {
        with_threads(threads, || check_compaction(&vals, Predicate::Gt(0.0)));
    }
}

/// Histogram of `keys` against a plain loop.
fn check_histogram(keys: &[u32], bins: u32) {
    let mut counts = vec![0u64; bins as usize];
    let mut outside = 0;
    for &k in keys {
        match counts.get_mut(k as usize) {
            Some(c) => *c += 1,
            None => outside += 1,
        }
    }
    let b = cpu32();
    let h = b.histogram(&b.upload(keys).unwrap(), bins).unwrap();
    assert_eq!(h.counts, counts, "{bins} bins, {} keys", keys.len());
    assert_eq!(h.outside, outside);
}

#[test]
fn histogram_uniform_skewed_and_edge_bins() {
    for n in [1, 9, 1 << 16, (1 << 18) + 7, (1 << 20) + 3] {
        let uniform: Vec<u32> = (0..n as u64).map(|i| (splitmix(i) % 300) as u32).collect();
        let skewed: Vec<u32> = uniform
            .iter()
            .enumerate()
            .map(|(i, &k)| if i % 8 != 0 { 17 } else { k })
            .collect();
        for bins in [1, 256, 1000, 1 << 16, (1 << 16) + 1] {
            check_histogram(&uniform, bins);
            check_histogram(&skewed, bins);
        }
    }
    // Keys at the edges of u32 and of the bins.
    check_histogram(&[0, 255, 256, u32::MAX, 255, 0, u32::MAX - 1], 256);
}

#[test]
fn histogram_does_not_depend_on_the_thread_count() {
    let keys: Vec<u32> = (0..3_000_017u64)
        .map(|i| (splitmix(i ^ 0x77) % 260) as u32)
        .collect();
    for threads in [1, 2, 3, 8] {
        with_threads(threads, || check_histogram(&keys, 256));
    }
}

#[test]
fn reduce_vector_kernels_match_spec_on_full_tiles() {
    // Full tiles take the vector kernels for f32 and f64 Sum and Product.
    for n in [4096, 5 * 4096, 9 * 4096 + 1] {
        let f: Vec<f32> = awkward(n, 12);
        let d: Vec<f64> = awkward(n, 13);
        let b = cpu32();
        for op in [ReduceOp::Sum, ReduceOp::Product] {
            let got = b.reduce(&b.upload(&f).unwrap(), op).unwrap();
            assert!(
                got.same(reference::device_reduce(&f, op)),
                "f32 {} {n}",
                op.name()
            );
            let got = b.reduce(&b.upload(&d).unwrap(), op).unwrap();
            assert!(
                got.same(reference::device_reduce(&d, op)),
                "f64 {} {n}",
                op.name()
            );
        }
    }
}

#[test]
fn reduce_lanes_fold_their_own_slots_in_order() {
    // Lane 5 of a tile owns elements 20..24 (f32, 4 a lane) and 1044..1048 (next chunk). Its
    // fold is ((((1e8 + 4) + 4) + 4) + 4): each add rounds back to 1e8. Any other lane, or a
    // tree inside the lane, would add the 4s together first and reach 1e8 + 16.
    let mut vals = vec![0.0f32; 4096];
    vals[20] = 1.0e8;
    vals[21..24].fill(4.0);
    vals[1044] = 4.0;
    let b = cpu32();
    assert_eq!(
        b.reduce(&b.upload(&vals).unwrap(), ReduceOp::Sum).unwrap(),
        1.0e8
    );
    // f64, 2 a lane: lane 3 owns 6, 7 and 518, 519. 1e16 has spacing 2 in f64.
    let mut vals = vec![0.0f64; 4096];
    vals[6] = 1.0e16;
    vals[7] = 1.0;
    vals[518] = 1.0;
    vals[519] = 1.0;
    let got = b.reduce(&b.upload(&vals).unwrap(), ReduceOp::Sum).unwrap();
    assert_eq!(got, reference::device_reduce(&vals, ReduceOp::Sum));
    assert_eq!(got, 1.0e16);
}

#[test]
fn large_allocations_are_zero() {
    let b = cpu32();
    let n = 3 << 20;
    let mut buf = b.alloc::<f64>(n).unwrap();
    assert!(b.download(&buf).unwrap().iter().all(|x| x.to_bits() == 0));
    b.write(&mut buf, &vec![1.5; n]).unwrap();
    drop(buf);
    // A fresh buffer after a written one is zero again.
    let buf = b.alloc::<f64>(n).unwrap();
    assert!(b.download(&buf).unwrap().iter().all(|x| x.to_bits() == 0));
}

/// Every collective with a vector kernel, against the reference, with the kernels switched
/// off, capped at AVX2 and as wide as the CPU has: every path gives the reference's bits.
#[test]
fn scalar_and_vector_paths_give_the_reference_bits() {
    use crate::features::Vectors;
    for vectors in [Vectors::Scalar, Vectors::Avx2, Vectors::Widest] {
        crate::features::with_vectors(vectors, || {
            scan_matches_spec::<f32>(21);
            scan_matches_spec::<f64>(22);
            scan_matches_spec::<f16>(32);
            scan_matches_spec::<bf16>(33);
            scan_matches_spec::<i32>(23);
            scan_matches_spec::<u32>(24);
            scan_matches_spec::<i64>(25);
            for n in [1, 4095, 4096, 3 * 4096 + 5, 70_001] {
                reduce_matches_reference::<f32>(&awkward(n, 26));
                reduce_matches_reference::<f64>(&awkward(n, 27));
                reduce_matches_reference::<f16>(&awkward(n, 34));
                reduce_matches_reference::<bf16>(&awkward(n, 35));
                reduce_matches_reference::<i32>(&awkward(n, 28));
                reduce_matches_reference::<u64>(&awkward(n, 29));
                let f: Vec<f32> = awkward(n, 30);
                check_compaction(&f, Predicate::Gt(0.0));
                let d: Vec<f64> = awkward(n, 31);
                check_compaction(&d, Predicate::Lt(0.0));
                let keys: Vec<u32> = (0..n as u64).map(|i| (splitmix(i) % 300) as u32).collect();
                check_histogram(&keys, 256);
            }
        });
    }
}
