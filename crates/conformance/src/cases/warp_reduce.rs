//! warp_reduce: one butterfly per segment, over every sub-width, op and type, the 16-bit
//! floats included.

use crate::Scale;
use crate::check::{ok, same_elems};
use crate::inputs::{sub_widths, thread_counts, value_sets};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::api::WarpPrimitives;
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;

fn warp_reduce_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let w = b.warp_width();
    for op in ReduceOp::ops_for(T::KIND) {
        for width in sub_widths(w) {
            for n in thread_counts(w, scale) {
                for (vname, vals) in value_sets::<T>(n, (width as u64) << 32 | n as u64, true) {
                    let ctx = format!("{op:?} {} width={width} n={n} {vname}", T::KIND.name());
                    let got = ok(&ctx, b.warp_reduce(&vals, width, op))?;
                    same_elems(
                        &ctx,
                        "segment",
                        &reference::warp_reduce(&vals, width, op),
                        &got,
                    )?;
                }
            }
        }
    }
    Ok(())
}

pub fn warp_reduce<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(warp_reduce_typed(b, scale));
    each_half!(warp_reduce_typed(b, scale));
    Ok(())
}
