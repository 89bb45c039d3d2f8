//! warp_reduce (docs/SEMANTICS.md, "warp_reduce"): a butterfly over segments of `width` lanes.

use super::combine::{bfly, with_op};
use rayon::prelude::*;
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;
use wavekit_core::width::WarpWidth;

/// Segments handed to one rayon task.
const SEGMENTS_PER_TASK: usize = 1024;

/// One bfly result per segment; a short last segment is padded with the identity. Lanes
/// combine in `T::Acc` (f32 for the 16-bit floats), each result rounded once.
pub(crate) fn reduce<T: Element>(vals: &[T], width: u32, op: ReduceOp) -> Vec<T> {
    let w = width as usize;
    let id = T::Acc::identity(op);
    with_op!(T::Acc, op, |f| vals
        .par_chunks(w)
        .with_min_len(SEGMENTS_PER_TASK)
        .map(|seg| {
            let mut lanes = [id; WarpWidth::W64.lanes() as usize];
            for (l, &x) in lanes.iter_mut().zip(seg) {
                *l = x.to_acc();
            }
            T::from_acc(bfly(&mut lanes[..w], f))
        })
        .collect())
}
