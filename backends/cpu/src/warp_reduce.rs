//! warp_reduce (docs/SEMANTICS.md, "warp_reduce"): a butterfly over segments of `width` lanes.

use super::combine::{bfly_padded, with_op};
use rayon::prelude::*;
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;

/// Segments handed to one rayon task.
const SEGMENTS_PER_TASK: usize = 1024;

/// One bfly result per segment; a short last segment is padded with the identity.
pub(crate) fn reduce<T: Element>(vals: &[T], width: u32, op: ReduceOp) -> Vec<T> {
    let w = width as usize;
    let id = T::identity(op);
    with_op!(T, op, |f| vals
        .par_chunks(w)
        .with_min_len(SEGMENTS_PER_TASK)
        .map(|seg| bfly_padded(seg, w, id, f))
        .collect())
}
