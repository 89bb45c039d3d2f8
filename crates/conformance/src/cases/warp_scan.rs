//! warp_scan: Kogge-Stone within segments, inclusive and exclusive, over every sub-width, op
//! and type, the 16-bit floats included.

use crate::Scale;
use crate::check::{ok, same_elems};
use crate::inputs::{sub_widths, thread_counts, value_sets};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::ScanKind;
use wavekit_core::api::WarpPrimitives;
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;

fn warp_scan_typed<T: Element, B: RawBackend>(
    b: &B,
    scale: Scale,
    kind: ScanKind,
) -> Result<(), String> {
    let w = b.warp_width();
    for op in ReduceOp::ops_for(T::KIND) {
        for width in sub_widths(w) {
            for n in thread_counts(w, scale) {
                for (vname, vals) in
                    value_sets::<T>(n, (width as u64) << 32 | n as u64 | 1 << 60, true)
                {
                    let ctx = format!(
                        "{kind:?} {op:?} {} width={width} n={n} {vname}",
                        T::KIND.name()
                    );
                    let got = ok(&ctx, b.warp_scan(&vals, width, op, kind))?;
                    same_elems(
                        &ctx,
                        "lane",
                        &reference::warp_scan(&vals, width, op, kind),
                        &got,
                    )?;
                }
            }
        }
    }
    Ok(())
}

pub fn warp_scan_inclusive<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(warp_scan_typed(b, scale, ScanKind::Inclusive));
    each_half!(warp_scan_typed(b, scale, ScanKind::Inclusive));
    Ok(())
}

pub fn warp_scan_exclusive<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(warp_scan_typed(b, scale, ScanKind::Exclusive));
    each_half!(warp_scan_typed(b, scale, ScanKind::Exclusive));
    Ok(())
}
