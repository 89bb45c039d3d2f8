//! spmv (docs/SEMANTICS.md, "spmv"): CSR `y = A x`, each row summed by segmented_reduce's
//! vector reduce.

use super::segmented_reduce::{SEGMENTS_PER_TASK, vector_reduce};
use crate::par;
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;

/// A validated CSR matrix: row r holds nonzeros `offsets[r]..offsets[r + 1]`.
#[derive(Clone, Copy)]
pub(crate) struct CsrView<'a, T> {
    pub(crate) offsets: &'a [u32],
    pub(crate) cols: &'a [u32],
    pub(crate) vals: &'a [T],
}

/// y = A x: each item is `vals[k] * x[cols[k]]` (a separate multiply), summed by the vector
/// reduce; an empty row gives the Sum identity. Products and sums run in `T::Acc` (f32 for the
/// 16-bit floats, whose products are exact there), each row rounded once.
pub(crate) fn spmv<T: Element>(a: CsrView<'_, T>, x: &[T], y: &mut [T], vector: u32) {
    let v = vector as usize;
    let id = T::Acc::identity(ReduceOp::Sum);
    let f = |p: T::Acc, q: T::Acc| T::Acc::combine(ReduceOp::Sum, p, q);
    par::chunks_mut(y, SEGMENTS_PER_TASK, 1, |c, ys| {
        for (j, yr) in ys.iter_mut().enumerate() {
            let r = c * SEGMENTS_PER_TASK + j;
            let (start, end) = (a.offsets[r] as usize, a.offsets[r + 1] as usize);
            let (cols, vals) = (&a.cols[start..end], &a.vals[start..end]);
            *yr = T::from_acc(vector_reduce(end - start, v, id, f, |k| {
                T::Acc::mul(vals[k].to_acc(), x[cols[k] as usize].to_acc())
            }));
        }
    });
}
