//! segmented_reduce (docs/SEMANTICS.md, "segmented_reduce") with a vector of V lanes per
//! segment: lane j folds items j, j+V, j+2V, … from the identity, then the V lanes are combined
//! by a butterfly. `spmv` reduces its rows with the same vector reduce.

use super::combine::{bfly, with_op};
use crate::par;
use wavekit_core::canonical::MAX_VECTOR;
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;

/// Segments (or rows) handed to one rayon task.
pub(crate) const SEGMENTS_PER_TASK: usize = 256;

/// Where each segment lies, already validated.
#[derive(Clone, Copy)]
pub(crate) enum Bounds<'a> {
    /// Segments of `size` consecutive elements of a `len`-element input, the last maybe short.
    Fixed {
        size: usize,
        count: usize,
        len: usize,
        vector: u32,
    },
    /// Segment i is `[offsets[i], offsets[i + 1])`.
    Offsets { offsets: &'a [u32], vector: u32 },
}

impl Bounds<'_> {
    pub(crate) fn segment(&self, i: usize) -> std::ops::Range<usize> {
        match *self {
            Bounds::Fixed { size, len, .. } => i * size..((i + 1) * size).min(len),
            Bounds::Offsets { offsets, .. } => offsets[i] as usize..offsets[i + 1] as usize,
        }
    }

    fn vector(&self) -> usize {
        match *self {
            Bounds::Fixed { vector, .. } | Bounds::Offsets { vector, .. } => vector as usize,
        }
    }

    pub(crate) fn count(&self) -> usize {
        match *self {
            Bounds::Fixed { count, .. } => count,
            Bounds::Offsets { offsets, .. } => offsets.len() - 1,
        }
    }
}

/// The vector reduce of `items` (the k-th item produced by `item(k)`): lane `k % v` folds it,
/// then bfly over the v lanes.
#[inline]
pub(crate) fn vector_reduce<T: Element>(
    len: usize,
    v: usize,
    id: T,
    f: impl Fn(T, T) -> T + Copy,
    item: impl Fn(usize) -> T,
) -> T {
    let mut lanes = [id; MAX_VECTOR as usize];
    let lanes = &mut lanes[..v];
    let mut k = 0;
    while k < len {
        for (j, acc) in lanes.iter_mut().enumerate().take(len - k) {
            *acc = f(*acc, item(k + j));
        }
        k += v;
    }
    bfly(lanes, f)
}

/// One result per segment into `out` (`bounds.count()` long); an empty segment gives the
/// identity. Items combine in `T::Acc` (f32 for the 16-bit floats; `T` itself otherwise, where
/// the conversions are no-ops) and each result is rounded once.
pub(crate) fn reduce<T: Element>(input: &[T], bounds: Bounds<'_>, op: ReduceOp, out: &mut [T]) {
    debug_assert_eq!(out.len(), bounds.count());
    let id = T::Acc::identity(op);
    let v = bounds.vector();
    with_op!(T::Acc, op, |f| par::chunks_mut(
        out,
        SEGMENTS_PER_TASK,
        1,
        |c, os| {
            for (k, o) in os.iter_mut().enumerate() {
                let seg = &input[bounds.segment(c * SEGMENTS_PER_TASK + k)];
                *o = T::from_acc(vector_reduce(seg.len(), v, id, f, |k| seg[k].to_acc()));
            }
        }
    ));
}
