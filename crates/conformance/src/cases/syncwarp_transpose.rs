//! syncwarp_transpose: seed 000's transpose through shared memory ordered by __syncwarp, under
//! every mask and launch size.

use crate::Scale;
use crate::check::{ok, same_lanes};
use crate::inputs::{masks, thread_counts, values_with_specials};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::api::WarpPrimitives;
use wavekit_core::element::Element;

fn transpose_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let w = b.warp_width();
    for threads in thread_counts(w, scale) {
        for (mname, mask) in masks(w, scale) {
            let vals = values_with_specials::<T>(threads, threads as u64 + 77);
            let ctx = format!("{} threads={threads} mask={mname}", T::KIND.name());
            let got = ok(&ctx, b.syncwarp_transpose(&vals, mask))?;
            same_lanes(&ctx, &reference::syncwarp_transpose(&vals, mask), &got)?;
        }
    }
    Ok(())
}

pub fn syncwarp_transpose<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(transpose_typed(b, scale));
    each_half!(transpose_typed(b, scale));
    Ok(())
}
