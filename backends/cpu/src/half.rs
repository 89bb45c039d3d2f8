//! The device reduce of the 16-bit floats (docs/SEMANTICS.md "Half precision"; the scan is
//! `device_scan_half`): every input converted to `f32` exactly, the `f32` reduce in its
//! canonical order, the result rounded once. The conversions happen in cache a tile at a time,
//! so the input is read from memory once; the `f32` partials live in the backend's second
//! scratch, so a steady stream of calls allocates nothing.

use super::device_reduce;
use super::scratch::Scratch;
use wavekit_core::canonical::REDUCE_TILE;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::op::ReduceOp;

/// The device reduce of a non-empty slice of a 16-bit float type: Min and Max by their keys
/// (`order_free`); Sum and Product with level 0 of the `f32` reduce from the 16-bit input tile
/// by tile (`device_reduce::widened_partials`), the levels above on its partials, the result
/// rounded once.
///
/// # Errors
/// `OutOfMemory` when the partials do not fit in the scratch.
pub(crate) fn reduce<T: Element>(
    vals: &[T],
    op: ReduceOp,
    wide: &Scratch,
    scratch: &Scratch,
) -> Result<T> {
    // Min and Max select an element, which needs no conversion.
    if let Some(r) = super::order_free::reduce(vals, op) {
        return Ok(r);
    }
    Ok(T::from_acc(reduce_wide(vals, op, wide, scratch)?))
}

/// Sum or Product of a non-empty 16-bit slice in `f32`, not rounded: what `reduce` rounds, and
/// a sharded reduce's partial (`CpuBackend::reduce_partials`).
pub(crate) fn reduce_wide<T: Element>(
    vals: &[T],
    op: ReduceOp,
    wide: &Scratch,
    scratch: &Scratch,
) -> Result<T::Acc> {
    let tiles = vals.len().div_ceil(REDUCE_TILE);
    wide.with::<T::Acc, _>(tiles, |partials| {
        device_reduce::widened_partials(vals, partials, op);
        device_reduce::device(partials, op, scratch)
    })?
}
