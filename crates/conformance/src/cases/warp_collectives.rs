//! Warp reduce (butterfly) and warp scan (Kogge-Stone) over every sub-width, op and type.

use crate::Scale;
use crate::check::{ok, same_elems};
use crate::inputs::{near_max, sub_widths, thread_counts, values, values_with_specials};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::ScanKind;
use wavekit_core::api::WarpPrimitives;
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;

/// (name, values) inputs for a launch of `n`: random finite, with specials, near the maximum.
fn inputs<T: Element>(n: usize, seed: u64) -> [(&'static str, Vec<T>); 3] {
    [
        ("random", values(n, seed)),
        ("specials", values_with_specials(n, seed)),
        ("near max", near_max(n, seed)),
    ]
}

fn warp_reduce_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let w = b.warp_width();
    for op in ReduceOp::ops_for(T::KIND) {
        for width in sub_widths(w) {
            for n in thread_counts(w, scale) {
                for (vname, vals) in inputs::<T>(n, (width as u64) << 32 | n as u64) {
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
    Ok(())
}

fn warp_scan_typed<T: Element, B: RawBackend>(
    b: &B,
    scale: Scale,
    kind: ScanKind,
) -> Result<(), String> {
    let w = b.warp_width();
    for op in ReduceOp::ops_for(T::KIND) {
        for width in sub_widths(w) {
            for n in thread_counts(w, scale) {
                for (vname, vals) in inputs::<T>(n, (width as u64) << 32 | n as u64 | 1 << 60) {
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
    Ok(())
}

pub fn warp_scan_exclusive<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(warp_scan_typed(b, scale, ScanKind::Exclusive));
    Ok(())
}
