//! compact: stable (input order) and unordered (the multiset) compaction under every predicate.

use crate::Scale;
use crate::check::{eq, ok, same_elems};
use crate::inputs::{data_sizes, predicates, values, values_with_specials};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::api::Collectives;
use wavekit_core::element::Element;

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
