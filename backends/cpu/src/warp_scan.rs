//! warp_scan (docs/SEMANTICS.md, "warp_scan"): Kogge-Stone over segments of `width` lanes.

use super::combine::{kogge_stone, with_op};
use crate::par;
use wavekit_core::ScanKind;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::op::ReduceOp;
use wavekit_core::width::WarpWidth;

/// Segments handed to one rayon task.
const SEGMENTS_PER_TASK: usize = 1024;

/// Kogge-Stone within each segment; exclusive gives the segment's first lane the identity and
/// every other lane the inclusive value of the lane before it. Lanes scan in `T::Acc` (f32 for
/// the 16-bit floats), each result rounded once.
pub(crate) fn scan<T: Element>(
    vals: &[T],
    width: u32,
    op: ReduceOp,
    kind: ScanKind,
) -> Result<Vec<T>> {
    let id = T::Acc::identity(op);
    let mut out = wavekit_core::host::with_capacity(vals.len())?;
    out.extend_from_slice(vals);
    with_op!(T::Acc, op, |f| par::chunks_mut(
        &mut out,
        width as usize,
        SEGMENTS_PER_TASK,
        |_, seg| {
            let mut lanes = [id; WarpWidth::W64.lanes() as usize];
            let lanes = &mut lanes[..seg.len()];
            for (l, &x) in lanes.iter_mut().zip(seg.iter()) {
                *l = x.to_acc();
            }
            kogge_stone(lanes, f);
            if kind == ScanKind::Exclusive {
                lanes.rotate_right(1);
                lanes[0] = id;
            }
            for (o, &l) in seg.iter_mut().zip(lanes.iter()) {
                *o = T::from_acc(l);
            }
        }
    ));
    Ok(out)
}
