//! atomic_agg_inc: seed 000's atomicAggInc, checked by its guaranteed properties; a slot past
//! the counters is refused and changes no counter (all or nothing).

use crate::Scale;
use crate::check::{eq, expect_err, ok};
use crate::inputs::pick;
use wavekit_core::RawBackend;
use wavekit_core::api::Collectives;
use wavekit_core::element::splitmix;
use wavekit_core::error::WavekitError as E;

/// SEMANTICS: per counter, the old values are exactly c0..c0+k once each and the final counter
/// is c0+k; within a warp, lanes sharing a slot get consecutive values in lane order (the
/// leader adds the group's popcount once and ranks follow lane order).
pub fn check_agg_inc(
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

/// A slot past the counters, in the middle of a warp and as the very last thread: an error
/// naming that slot, and not one counter moved (every slot is checked before any increment).
pub fn err_atomic_slot<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let lanes = b.warp_width().lanes() as usize;
    let n = 2 * lanes + 3;
    let initial = [10u32, 20, 30];
    for (bad_thread, bad_slot) in [(lanes + 1, 3u32), (n - 1, u32::MAX)] {
        let mut slots: Vec<u32> = (0..n as u32).map(|t| t % 3).collect();
        slots[bad_thread] = bad_slot;
        let ctx = format!("slot {bad_slot} of 3 counters at thread {bad_thread} of {n}");
        let slot_buf = ok("upload", b.upload(&slots))?;
        let mut counters = ok("upload", b.upload(&initial))?;
        let r = b.atomic_agg_inc(&slot_buf, &mut counters).map(drop);
        expect_err!(
            ctx,
            r,
            E::IndexOutOfRange {
                value,
                limit: 3,
                ..
            } if *value == u64::from(bad_slot)
        )?;
        let finals = ok("download", b.download(&counters))?;
        if finals != initial {
            return Err(format!(
                "{ctx}: counters must be untouched: started at {initial:?}, ended at {finals:?}"
            ));
        }
    }
    let slot_buf = ok("upload", b.upload(&[0u32, 1]))?;
    let mut no_counters = ok("alloc", b.alloc::<u32>(0))?;
    expect_err!(
        "slots with no counters",
        b.atomic_agg_inc(&slot_buf, &mut no_counters).map(drop),
        E::EmptyInput { .. }
    )
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
