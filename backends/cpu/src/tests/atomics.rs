//! atomicAggInc, count_if, compaction and histogram against hand values and plain loops.

use super::{cpu32, cpu64};
use wavekit_core::Backend;
use wavekit_core::Predicate;
use wavekit_core::api::Collectives;
use wavekit_core::error::WavekitError;

#[test]
fn agg_inc_one_warp_is_exact() {
    // One warp, slots t % 3, counters from [10, 20, 30]: lane 3k is the k-th of slot 0's 11
    // lanes, so it gets 10 + k; lane 3k + 1 gets 20 + k (11 lanes); lane 3k + 2 gets 30 + k
    // (10 lanes).
    let b = cpu32();
    let slots = b
        .upload(&(0..32).map(|t| t % 3).collect::<Vec<u32>>())
        .unwrap();
    let mut counters = b.upload(&[10u32, 20, 30]).unwrap();
    let olds = b
        .download(&b.atomic_agg_inc(&slots, &mut counters).unwrap())
        .unwrap();
    let want: Vec<u32> = (0..32)
        .map(|t| [10, 20, 30][t as usize % 3] + t / 3)
        .collect();
    assert_eq!(olds, want);
    assert_eq!(b.download(&counters).unwrap(), vec![21, 31, 40]);
}

#[test]
fn agg_inc_many_warps_hands_out_each_value_once() {
    for b in [cpu32(), cpu64()] {
        let lanes = b.warp_width().lanes() as usize;
        let n = 100_003;
        let slot_of = |t: usize| ((t * 7919) % 13 % 5) as u32;
        let slots: Vec<u32> = (0..n).map(slot_of).collect();
        let start = [5u32, 0, 1000, 7, u32::MAX - 50_000];
        let mut counters = b.upload(&start).unwrap();
        let olds = b
            .download(
                &b.atomic_agg_inc(&b.upload(&slots).unwrap(), &mut counters)
                    .unwrap(),
            )
            .unwrap();
        let mut per_slot: Vec<Vec<u32>> = vec![vec![]; start.len()];
        for (t, &s) in slots.iter().enumerate() {
            per_slot[s as usize].push(olds[t]);
        }
        let finals = b.download(&counters).unwrap();
        for (s, got) in per_slot.iter_mut().enumerate() {
            let k = got.len() as u32;
            got.sort_unstable_by_key(|&v| v.wrapping_sub(start[s]));
            let want: Vec<u32> = (0..k).map(|i| start[s].wrapping_add(i)).collect();
            assert_eq!(*got, want, "slot {s}");
            assert_eq!(finals[s], start[s].wrapping_add(k));
        }
        // Within a warp, lower lanes of the same slot get lower values.
        for t in 0..n {
            let later = (t + 1..n.min((t / lanes + 1) * lanes)).find(|&u| slots[u] == slots[t]);
            if let Some(u) = later {
                assert_eq!(olds[u], olds[t].wrapping_add(1), "threads {t} and {u}");
            }
        }
    }
}

#[test]
fn agg_inc_out_of_range_slot_changes_no_counter() {
    let b = cpu32();
    let slots = b.upload(&[0u32, 5, 0, 9]).unwrap();
    let mut counters = b.upload(&[3u32, 4]).unwrap();
    let err = b.atomic_agg_inc(&slots, &mut counters).err().unwrap();
    assert_eq!(
        err,
        WavekitError::IndexOutOfRange {
            what: "atomic_agg_inc slot",
            value: 5,
            limit: 2
        }
    );
    // All or nothing: the in-range slots 0 and 0 did not increment counter 0 either.
    assert_eq!(b.download(&counters).unwrap(), vec![3, 4]);
}

#[test]
fn count_if_and_compaction() {
    let b = cpu32();
    let vals: Vec<i32> = (0..100_000).map(|i| (i * 31) % 1000 - 500).collect();
    let input = b.upload(&vals).unwrap();
    let pred = Predicate::InRange(-10, 250);
    let mut want = Vec::new();
    for &v in &vals {
        if (-10..250).contains(&v) {
            want.push(v);
        }
    }
    assert_eq!(b.count_if(&input, pred).unwrap(), want.len() as u64);

    let stable = b.compact(&input, pred, true).unwrap();
    assert_eq!(stable.len, want.len());
    assert_eq!(&b.download(&stable.data).unwrap()[..stable.len], &want[..]);

    let unordered = b.compact(&input, pred, false).unwrap();
    let mut got = b.download(&unordered.data).unwrap()[..unordered.len].to_vec();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got, want);
}

#[test]
fn count_if_float_nan_only_satisfies_ne() {
    let b = cpu32();
    let input = b.upload(&[1.0f32, f32::NAN, 3.0, -0.0]).unwrap();
    assert_eq!(b.count_if(&input, Predicate::Ge(0.0)).unwrap(), 3); // 1, 3, -0.0
    assert_eq!(b.count_if(&input, Predicate::Ne(3.0)).unwrap(), 3); // 1, NaN, -0.0
}

#[test]
fn histogram_counts_keys_outside() {
    let b = cpu32();
    let keys = b.upload(&[0u32, 3, 3, 7, 2, 3, u32::MAX, 4]).unwrap();
    let h = b.histogram(&keys, 4).unwrap();
    // Bins 0..3: {0}, {}, {2}, {3, 3, 3}; 7, MAX and 4 are outside.
    assert_eq!((h.counts, h.outside), (vec![1, 0, 1, 3], 3));
}

#[test]
fn histogram_many_bins_and_keys() {
    let b = cpu32();
    for bins in [10u32, 100_000] {
        let keys: Vec<u32> = (0..300_000u64)
            .map(|i| ((i * 2_654_435_761) % 150_001) as u32)
            .collect();
        let mut counts = vec![0u64; bins as usize];
        let mut outside = 0;
        for &k in &keys {
            if k < bins {
                counts[k as usize] += 1;
            } else {
                outside += 1;
            }
        }
        let h = b.histogram(&b.upload(&keys).unwrap(), bins).unwrap();
        assert_eq!(h.counts, counts);
        assert_eq!(h.outside, outside);
    }
}

#[test]
fn short_outputs_are_errors_not_panics() {
    let b = cpu32();
    let mut short = b.alloc::<u32>(2).unwrap();
    let err = b.write(&mut short, &[1, 2, 3]).err();
    assert!(matches!(
        err,
        Some(WavekitError::LengthMismatch {
            expected: 2,
            got: 3,
            ..
        })
    ));
}
