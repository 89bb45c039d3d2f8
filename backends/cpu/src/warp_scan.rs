//! warp_scan (docs/SEMANTICS.md, "warp_scan"): Kogge-Stone over segments of `width` lanes.

use super::combine::{kogge_stone, with_op};
use rayon::prelude::*;
use wavekit_core::ScanKind;
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;

/// Segments handed to one rayon task.
const SEGMENTS_PER_TASK: usize = 1024;

/// Kogge-Stone within each segment; exclusive gives the segment's first lane the identity and
/// every other lane the inclusive value of the lane before it.
pub(crate) fn scan<T: Element>(vals: &[T], width: u32, op: ReduceOp, kind: ScanKind) -> Vec<T> {
    let id = T::identity(op);
    let mut out = vals.to_vec();
    with_op!(T, op, |f| out
        .par_chunks_mut(width as usize)
        .with_min_len(SEGMENTS_PER_TASK)
        .for_each(|seg| {
            kogge_stone(seg, f);
            if kind == ScanKind::Exclusive {
                seg.rotate_right(1);
                seg[0] = id;
            }
        }));
    out
}
