//! warp_reduce (docs/SEMANTICS.md, "warp_reduce"): a butterfly over segments of `width` lanes.

use super::combine::{bfly_padded_acc, with_op};
use crate::par;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::op::ReduceOp;

/// Segments handed to one rayon task.
const SEGMENTS_PER_TASK: usize = 1024;

/// One bfly result per segment; a short last segment is padded with the identity. Lanes
/// combine in `T::Acc` (f32 for the 16-bit floats), each result rounded once.
pub(crate) fn reduce<T: Element>(vals: &[T], width: u32, op: ReduceOp) -> Result<Vec<T>> {
    let w = width as usize;
    let id = T::Acc::identity(op);
    with_op!(T::Acc, op, |f| par::map_chunks(
        vals,
        w,
        SEGMENTS_PER_TASK,
        |_, seg| { bfly_padded_acc(seg, w, id, f) }
    ))
}
