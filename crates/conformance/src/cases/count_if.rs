//! count_if: every predicate, NaN and ±0.0 thresholds included, over every type and several
//! input lengths.

use crate::Scale;
use crate::check::{eq, ok};
use crate::inputs::{data_sizes, predicates, values_with_specials};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::api::Collectives;
use wavekit_core::element::Element;

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
    each_half!(count_if_typed(b, scale));
    Ok(())
}
