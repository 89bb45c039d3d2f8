//! Seed 000's atomicAggInc (checked by its guaranteed properties), count_if, stable and
//! unordered compaction, and the histogram with outside keys.

use crate::Scale;
use crate::check::{eq, ok, same_elems};
use crate::inputs::{pick, specials, values, values_with_specials};
use crate::reference;
use wavekit_core::Predicate;
use wavekit_core::RawBackend;
use wavekit_core::api::Collectives;
use wavekit_core::element::{Element, splitmix};

/// SEMANTICS: per counter, the old values are exactly c0..c0+k once each and the final counter
/// is c0+k; within a warp, lanes sharing a slot get consecutive values in lane order (the
/// leader adds the group's popcount once and ranks follow lane order).
fn check_agg_inc(
    ctx: &str,
    lanes: usize,
    slots: &[u32],
    initial: &[u32],
    olds: &[u32],
    finals: &[u32],
) -> Result<(), String> {
    eq(
        &format!("{ctx}: number of old values"),
        slots.len(),
        olds.len(),
    )?;
    for (c, &c0) in initial.iter().enumerate() {
        let mut got: Vec<u32> = (0..slots.len())
            .filter(|&t| slots[t] as usize == c)
            .map(|t| olds[t])
            .collect();
        let k = got.len() as u32;
        got.sort_unstable();
        let want: Vec<u32> = (0..k).map(|i| c0 + i).collect();
        eq(&format!("{ctx}: counter {c}: sorted old values"), want, got)?;
        eq(
            &format!("{ctx}: counter {c}: final value"),
            c0 + k,
            finals[c],
        )?;
    }
    for warp_start in (0..slots.len()).step_by(lanes) {
        for t in warp_start..(warp_start + lanes).min(slots.len()) {
            let prev = (warp_start..t).rev().find(|&u| slots[u] == slots[t]);
            if let Some(u) = prev
                && olds[t] != olds[u] + 1
            {
                return Err(format!(
                    "{ctx}: threads {u} and {t} share slot {} in one warp but got {} and {}",
                    slots[t], olds[u], olds[t]
                ));
            }
        }
    }
    Ok(())
}

pub fn atomic_agg_inc<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let lanes = b.warp_width().lanes() as usize;
    let threads = pick(
        scale,
        &[
            1,
            lanes - 1,
            lanes,
            lanes + 1,
            3 * lanes + 5,
            40 * lanes + 3,
        ],
        &[1, lanes + 1, 3 * lanes + 5],
    );
    for &n in &threads {
        for (pattern, counters) in [
            ("one slot", 1usize),
            ("few slots", 5),
            ("unique slots", n),
            ("many slots", 97),
        ] {
            let seed = (n * 1000 + counters) as u64;
            let slots: Vec<u32> = match pattern {
                "unique slots" => (0..n as u32).rev().collect(),
                _ => (0..n as u64)
                    .map(|t| (splitmix(seed ^ t) % counters as u64) as u32)
                    .collect(),
            };
            let initial: Vec<u32> = (0..counters as u64)
                .map(|c| (splitmix(seed + c) % 1_000_000) as u32)
                .collect();
            let ctx = format!("threads={n} {pattern} ({counters} counters)");
            let slot_buf = ok(&ctx, b.upload(&slots))?;
            let mut counter_buf = ok(&ctx, b.upload(&initial))?;
            let olds_buf = ok(&ctx, b.atomic_agg_inc(&slot_buf, &mut counter_buf))?;
            let olds = ok(&ctx, b.download(&olds_buf))?;
            let finals = ok(&ctx, b.download(&counter_buf))?;
            check_agg_inc(&ctx, lanes, &slots, &initial, &olds, &finals)?;
        }
    }
    Ok(())
}

/// Predicates around values present in the data, with NaN thresholds (only `Ne` holds) and
/// ±0.0 (equal under IEEE).
fn predicates<T: Element>(data: &[T]) -> Vec<Predicate<T>> {
    let sp = specials::<T>();
    let (a, c) = (data[data.len() / 3], data[2 * data.len() / 3]);
    let (lo, hi) = if a < c { (a, c) } else { (c, a) };
    let mut p = vec![
        Predicate::Lt(a),
        Predicate::Le(a),
        Predicate::Gt(c),
        Predicate::Ge(c),
        Predicate::Eq(a),
        Predicate::Ne(a),
        Predicate::InRange(lo, hi),
        Predicate::InRange(hi, lo),
    ];
    p.extend(sp.iter().take(4).flat_map(|&s| {
        [
            Predicate::Eq(s),
            Predicate::Ne(s),
            Predicate::Lt(s),
            Predicate::Ge(s),
        ]
    }));
    p
}

fn data_sizes(scale: Scale) -> Vec<usize> {
    pick(scale, &[1, 31, 1000, 4097, 20_001], &[1, 31, 1000])
}

fn count_if_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    for n in data_sizes(scale) {
        let data = values_with_specials::<T>(n, n as u64);
        let buf = ok("upload", b.upload(&data))?;
        for pred in predicates(&data) {
            let ctx = format!("{} n={n} {pred:?}", T::KIND.name());
            let got = ok(&ctx, b.count_if(&buf, pred))?;
            eq(&ctx, reference::count_if(&data, &pred), got)?;
        }
    }
    Ok(())
}

pub fn count_if<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(count_if_typed(b, scale));
    Ok(())
}

fn compact_typed<T: Element, B: RawBackend>(
    b: &B,
    scale: Scale,
    stable: bool,
) -> Result<(), String> {
    for n in data_sizes(scale) {
        let data = if n % 2 == 0 {
            values::<T>(n, n as u64 + 5)
        } else {
            values_with_specials::<T>(n, n as u64 + 5)
        };
        let buf = ok("upload", b.upload(&data))?;
        // The large input only under a few predicates: the rest add time, not coverage.
        let preds = predicates(&data);
        let preds = if n > 5000 { &preds[..8] } else { &preds[..] };
        for &pred in preds {
            let ctx = format!("{} n={n} stable={stable} {pred:?}", T::KIND.name());
            let out = ok(&ctx, b.compact(&buf, pred, stable))?;
            let all = ok(&ctx, b.download(&out.data))?;
            let want = reference::compact_stable(&data, &pred);
            eq(&format!("{ctx}: selected count"), want.len(), out.len)?;
            let got = &all[..out.len.min(all.len())];
            if stable {
                same_elems(&ctx, "output", &want, got)?;
            } else {
                // Only the multiset is promised: compare sorted bit patterns.
                let sorted = |v: &[T]| {
                    let mut bits: Vec<u64> = v.iter().map(|x| x.to_bits()).collect();
                    bits.sort_unstable();
                    bits
                };
                eq(
                    &format!("{ctx}: sorted output bits"),
                    sorted(&want),
                    sorted(got),
                )?;
            }
        }
    }
    Ok(())
}

pub fn compact_stable<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(compact_typed(b, scale, true));
    Ok(())
}

pub fn compact_unordered<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(compact_typed(b, scale, false));
    Ok(())
}

pub fn histogram<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    for bins in [1u32, 7, 256, 1000] {
        for n in data_sizes(scale) {
            let mut keys: Vec<u32> = (0..n as u64)
                .map(|i| (splitmix(i ^ (bins as u64) << 32) % (bins as u64 * 3 / 2 + 1)) as u32)
                .collect();
            // Keys just at and far past the bin count, counted outside, never dropped.
            let len = keys.len();
            for (i, k) in [bins, bins + 1, u32::MAX, 0, bins - 1]
                .into_iter()
                .enumerate()
            {
                keys[i * len / 5] = k;
            }
            let ctx = format!("bins={bins} n={n}");
            let buf = ok(&ctx, b.upload(&keys))?;
            let got = ok(&ctx, b.histogram(&buf, bins))?;
            let (counts, outside) = reference::histogram(&keys, bins);
            eq(&format!("{ctx}: counts"), counts, got.counts)?;
            eq(&format!("{ctx}: outside"), outside, got.outside)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_agg_inc;

    // Warp of 4 lanes; slots 0,1,0,0 | 1,0; counters start at 10 and 20.
    const SLOTS: [u32; 6] = [0, 1, 0, 0, 1, 0];
    const INITIAL: [u32; 2] = [10, 20];

    #[test]
    fn accepts_warp_aggregated_order() {
        // Second warp ran first: its slot-0 thread got 10, the first warp's group 11..13.
        let olds = [11, 21, 12, 13, 20, 10];
        assert_eq!(
            check_agg_inc("ok", 4, &SLOTS, &INITIAL, &olds, &[14, 22]),
            Ok(())
        );
    }

    #[test]
    fn rejects_duplicates_gaps_wrong_finals_and_lane_order() {
        let dup = [10, 20, 11, 11, 21, 13];
        assert!(check_agg_inc("dup", 4, &SLOTS, &INITIAL, &dup, &[14, 22]).is_err());
        let final_off = [10, 20, 11, 12, 21, 13];
        assert!(check_agg_inc("final", 4, &SLOTS, &INITIAL, &final_off, &[15, 22]).is_err());
        let reversed = [12, 20, 11, 10, 21, 13];
        assert!(check_agg_inc("lanes", 4, &SLOTS, &INITIAL, &reversed, &[14, 22]).is_err());
        // A group split by another warp's increment is not one aggregated add.
        let split = [10, 20, 12, 13, 21, 11];
        assert!(check_agg_inc("split", 4, &SLOTS, &INITIAL, &split, &[14, 22]).is_err());
    }
}
