//! Property tests: the CPU oracle's warp primitives against the sequential reference, at warp
//! widths 32 and 64, on random masks, values, sub-widths, arguments and launch sizes.

use proptest::prelude::*;
use wavekit::{Element, LaneMask, ReduceOp, ScanKind, Shfl, Vote, WarpPrimitives, WarpWidth};
use wavekit_conformance::reference;

fn width_strategy() -> impl Strategy<Value = WarpWidth> {
    prop_oneof![Just(WarpWidth::W32), Just(WarpWidth::W64)]
}

fn mask_of(bits: u64, w: WarpWidth) -> LaneMask {
    LaneMask::from_bits(bits & w.full_bits(), w).unwrap()
}

fn same_bits<T: wavekit::Element>(a: &[Option<T>], b: &[Option<T>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (None, None) => true,
            (Some(p), Some(q)) => p.same(*q),
            _ => false,
        })
}

fn shfl_kind() -> impl Strategy<Value = Shfl> {
    prop_oneof![
        Just(Shfl::Idx),
        Just(Shfl::Up),
        Just(Shfl::Down),
        Just(Shfl::Xor)
    ]
}

fn scan_op() -> impl Strategy<Value = ReduceOp> {
    prop::sample::select(ReduceOp::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn shuffles_match_reference(
        w in width_strategy(),
        kind in shfl_kind(),
        log_width in 0u32..7,
        arg in prop_oneof![0i32..64, any::<i32>()],
        mask_bits in any::<u64>(),
        bits in prop::collection::vec(any::<u64>(), 0..300),
    ) {
        let b = wavekit_tests::cpu(w);
        let width = 1u32 << log_width.min(w.lanes().trailing_zeros());
        let mask = mask_of(mask_bits, w);
        // Whole 64-bit values with every bit pattern; f64 too, NaNs included.
        let ints: Vec<u64> = bits.clone();
        let got = b.shfl(kind, &ints, arg, width, mask).unwrap();
        prop_assert_eq!(&got, &reference::shfl(kind, &ints, arg, width, mask));
        let floats: Vec<f64> = bits.iter().map(|&x| f64::from_bits(x)).collect();
        let got = b.shfl(kind, &floats, arg, width, mask).unwrap();
        prop_assert!(same_bits(&got, &reference::shfl(kind, &floats, arg, width, mask)));
    }

    #[test]
    fn votes_match_reference(
        w in width_strategy(),
        mask_bits in any::<u64>(),
        preds in prop::collection::vec(any::<bool>(), 0..300),
    ) {
        let b = wavekit_tests::cpu(w);
        let mask = mask_of(mask_bits, w);
        for kind in [Vote::All, Vote::Any, Vote::Uni, Vote::Ballot] {
            let got = b.vote(kind, &preds, mask).unwrap();
            prop_assert_eq!(got, reference::vote(kind, &preds, mask), "{:?}", kind);
        }
    }

    #[test]
    fn match_matches_reference(
        w in width_strategy(),
        mask_bits in any::<u64>(),
        palette in prop::collection::vec(any::<u32>(), 1..5),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 0..300),
    ) {
        let b = wavekit_tests::cpu(w);
        let mask = mask_of(mask_bits, w);
        let vals: Vec<f32> = picks.iter().map(|i| f32::from_bits(palette[i.index(palette.len())])).collect();
        prop_assert_eq!(b.match_any(&vals, mask).unwrap(), reference::match_any(&vals, mask));
        prop_assert_eq!(b.match_all(&vals, mask).unwrap(), reference::match_all(&vals, mask));
    }

    #[test]
    fn warp_scan_and_reduce_match_reference(
        w in width_strategy(),
        op in scan_op(),
        log_width in 0u32..7,
        exclusive in any::<bool>(),
        ints in prop::collection::vec(any::<i64>(), 1..300),
        seed in any::<u64>(),
    ) {
        let b = wavekit_tests::cpu(w);
        let width = 1u32 << log_width.min(w.lanes().trailing_zeros());
        let kind = if exclusive { ScanKind::Exclusive } else { ScanKind::Inclusive };
        prop_assert_eq!(b.warp_scan(&ints, width, op, kind).unwrap(), reference::warp_scan(&ints, width, op, kind));
        prop_assert_eq!(b.warp_reduce(&ints, width, op).unwrap(), reference::warp_reduce(&ints, width, op));
        if !op.is_bitwise() {
            let floats: Vec<f32> = wavekit_conformance::inputs::values(ints.len(), seed);
            let got = b.warp_scan(&floats, width, op, kind).unwrap();
            let want = reference::warp_scan(&floats, width, op, kind);
            prop_assert!(got.iter().zip(&want).all(|(g, e)| g.same(*e)), "{:?} {:?}: {:?} vs {:?}", op, kind, got, want);
            let got = b.warp_reduce(&floats, width, op).unwrap();
            let want = reference::warp_reduce(&floats, width, op);
            prop_assert!(got.iter().zip(&want).all(|(g, e)| g.same(*e)), "{:?}: {:?} vs {:?}", op, got, want);
        }
    }
}
