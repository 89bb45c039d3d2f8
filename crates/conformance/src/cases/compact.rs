//! compact: stable (input order) and unordered (the multiset) compaction under every predicate;
//! compact_reused: stable compactions one after another as a caller makes them.

use crate::Scale;
use crate::check::{eq, ok, same_elems};
use crate::inputs::{data_sizes, predicates, values, values_with_specials};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::api::Collectives;
use wavekit_core::element::Element;
use wavekit_core::{Predicate, canonical::SCAN_TILE};

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
            let want = reference::compact(&data, &pred);
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
    each_half!(compact_typed(b, scale, true));
    Ok(())
}

pub fn compact_unordered<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(compact_typed(b, scale, false));
    each_half!(compact_typed(b, scale, false));
    Ok(())
}

/// Stable compactions one after another: new data at the same length, fewer tiles, more tiles,
/// another element type and back. A GPU backend keeps the compaction's tile statuses between
/// calls without zeroing them (backends/gpu/src/tagged_pool.rs), so a call that took an earlier
/// call's statuses for its own would come out wrong here.
pub fn compact_reused<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let t = SCAN_TILE;
    let (mid, few, many) = match scale {
        Scale::Full => (3 * t + 7, t + 1, 6 * t + 333),
        Scale::Small => (2 * t + 5, t + 1, 3 * t + 9),
    };
    let pred = Predicate::Gt(0.0f32);
    for (i, n) in [mid, mid, few, many, mid].into_iter().enumerate() {
        let data = values::<f32>(n, 700 + i as u64);
        let ctx = format!("f32 step {i} n={n}");
        let buf = ok(&ctx, b.upload(&data))?;
        let out = ok(&ctx, b.compact(&buf, pred, true))?;
        let want = reference::compact(&data, &pred);
        eq(&format!("{ctx}: selected count"), want.len(), out.len)?;
        let all = ok(&ctx, b.download(&out.data))?;
        same_elems(&ctx, "output", &want, &all[..out.len.min(all.len())])?;
        if i == 2 {
            // Another element type between two f32 calls: other statuses in the same scratch.
            let other = values::<f64>(mid, 750);
            let pred = Predicate::Gt(0.0f64);
            let want = reference::compact(&other, &pred);
            let ob = ok(&ctx, b.upload(&other))?;
            let out = ok(&ctx, b.compact(&ob, pred, true))?;
            eq(&format!("{ctx}: f64 selected count"), want.len(), out.len)?;
            let all = ok(&ctx, b.download(&out.data))?;
            same_elems(&ctx, "f64 output", &want, &all[..out.len.min(all.len())])?;
        }
    }
    Ok(())
}
