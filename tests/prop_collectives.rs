//! Property tests: the CPU oracle's device reduce, scan and segmented reduce against the
//! sequential reference at warp widths 32 and 64, on random lengths, values and offsets.

use proptest::prelude::*;
use wavekit::{Backend, Collectives, Element, ReduceOp, ScanKind, Segments, VectorSize, WarpWidth};
use wavekit_conformance::{inputs, reference};

fn width_strategy() -> impl Strategy<Value = WarpWidth> {
    prop_oneof![Just(WarpWidth::W32), Just(WarpWidth::W64)]
}

fn float_op() -> impl Strategy<Value = ReduceOp> {
    prop_oneof![
        Just(ReduceOp::Sum),
        Just(ReduceOp::Product),
        Just(ReduceOp::Min),
        Just(ReduceOp::Max)
    ]
}

fn vector_strategy() -> impl Strategy<Value = VectorSize> {
    prop_oneof![
        Just(VectorSize::Auto),
        (0u32..6).prop_map(|s| VectorSize::Lanes(1 << s))
    ]
}

fn same<T: Element>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(*y))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn device_reduce_matches_reference(
        w in width_strategy(),
        op in float_op(),
        n in 1usize..20_000,
        seed in any::<u64>(),
    ) {
        let b = wavekit_tests::cpu(w);
        let vals: Vec<f32> = inputs::values(n, seed);
        let buf = b.upload(&vals).unwrap();
        let got = b.reduce(&buf, op).unwrap();
        let want = reference::device_reduce(&vals, op);
        prop_assert!(got.same(want), "n={} {:?}: {:?} vs {:?}", n, op, got, want);
        let ints: Vec<u64> = inputs::values(n, seed);
        let buf = b.upload(&ints).unwrap();
        prop_assert_eq!(b.reduce(&buf, ReduceOp::Sum).unwrap(), reference::device_reduce(&ints, ReduceOp::Sum));
    }

    #[test]
    fn device_scan_matches_reference(
        w in width_strategy(),
        op in float_op(),
        exclusive in any::<bool>(),
        n in 1usize..15_000,
        seed in any::<u64>(),
    ) {
        let b = wavekit_tests::cpu(w);
        let kind = if exclusive { ScanKind::Exclusive } else { ScanKind::Inclusive };
        let vals: Vec<f64> = inputs::values(n, seed);
        let input = b.upload(&vals).unwrap();
        let mut out = b.alloc::<f64>(n).unwrap();
        b.scan(&input, &mut out, op, kind).unwrap();
        let got = b.download(&out).unwrap();
        prop_assert!(same(&got, &reference::device_scan(&vals, op, kind)), "n={} {:?} {:?}", n, op, kind);
    }

    #[test]
    fn segmented_reduce_matches_reference(
        w in width_strategy(),
        op in float_op(),
        lens in prop::collection::vec(0u32..70, 0..60),
        vector in vector_strategy(),
        seed in any::<u64>(),
    ) {
        let b = wavekit_tests::cpu(w);
        let mut offsets = vec![0u32];
        for l in &lens {
            offsets.push(offsets.last().unwrap() + l);
        }
        let n = *offsets.last().unwrap() as usize;
        let vals: Vec<f32> = inputs::values_with_specials(n, seed);
        let lanes = match vector {
            VectorSize::Auto => reference::auto_vector(n, lens.len()),
            VectorSize::Lanes(v) => v,
        };
        let segs = Segments::from_offsets(&b, &offsets, n, vector).unwrap();
        let input = b.upload(&vals).unwrap();
        let got = b.download(&b.segmented_reduce(&input, &segs, op).unwrap()).unwrap();
        prop_assert!(same(&got, &reference::segmented_reduce_offsets(&vals, &offsets, lanes, op)));
    }

    #[test]
    fn fixed_segments_match_reference(
        w in width_strategy(),
        size in 1usize..80,
        n in 0usize..2_000,
        vector in vector_strategy(),
        seed in any::<u64>(),
    ) {
        let b = wavekit_tests::cpu(w);
        let vals: Vec<f32> = inputs::values(n, seed);
        let lanes = match vector {
            VectorSize::Auto => reference::auto_vector(size.min(n), 1),
            VectorSize::Lanes(v) => v,
        };
        let segs = Segments::<wavekit::cpu::CpuBackend>::fixed(size, vector).unwrap();
        let input = b.upload(&vals).unwrap();
        let got = b.download(&b.segmented_reduce(&input, &segs, ReduceOp::Sum).unwrap()).unwrap();
        prop_assert!(same(&got, &reference::segmented_reduce_fixed(&vals, size, lanes, ReduceOp::Sum)));
    }
}
