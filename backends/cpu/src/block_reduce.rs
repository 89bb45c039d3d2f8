//! block_reduce (docs/SEMANTICS.md, "block_reduce"): one group reduce per block.

use super::combine::{group_reduce, with_op};
use crate::par;
use wavekit_core::canonical::MAX_BLOCK;
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;
use wavekit_core::width::LOGICAL_GROUP;

const GROUP: usize = LOGICAL_GROUP as usize;
/// Blocks handed to one rayon task.
const BLOCKS_PER_TASK: usize = 16;

/// One group-reduce result per block of `block` elements (the last padded with the identity)
/// into `out`, which holds one per block. Elements combine in `T::Acc` (f32 for the 16-bit
/// floats, widened a block at a time on the stack), each result rounded once.
pub(crate) fn block<T: Element>(vals: &[T], block: u32, op: ReduceOp, out: &mut [T]) {
    let b = block as usize;
    if !T::KIND.is_half() {
        let id = T::identity(op);
        return with_op!(T, op, |f| par::chunks_into(
            vals,
            b,
            out,
            BLOCKS_PER_TASK,
            |blk, o| { *o = group_reduce(blk, b / GROUP, id, f) }
        ));
    }
    let id = T::Acc::identity(op);
    with_op!(T::Acc, op, |f| par::chunks_into(
        vals,
        b,
        out,
        BLOCKS_PER_TASK,
        |blk, o| {
            let mut wide = [id; MAX_BLOCK as usize];
            for (w, &x) in wide.iter_mut().zip(blk) {
                *w = x.to_acc();
            }
            *o = T::from_acc(group_reduce(&wide[..blk.len()], b / GROUP, id, f));
        }
    ))
}
