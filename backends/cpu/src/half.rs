//! The 16-bit floats (docs/SEMANTICS.md "Half precision") in the reduce and the scan: every
//! input converted to `f32` exactly, the `f32` collective in its canonical order, each result
//! rounded once. The widened copies live in the backend's second scratch, so a steady stream
//! of calls allocates nothing.

use super::scratch::Scratch;
use super::{device_reduce, device_scan};
use crate::par;
use wavekit_core::ScanKind;
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;

/// Elements converted by one rayon task.
const CONVERT_TASK: usize = 1 << 14;

fn widen<T: Element>(input: &[T], wide: &mut [T::Acc]) {
    par::chunks_mut_with(input, wide, CONVERT_TASK, 1, |_, x, w| {
        for (w, &x) in w.iter_mut().zip(x) {
            *w = x.to_acc();
        }
    });
}

/// The device reduce of a non-empty slice of a 16-bit float type.
pub(crate) fn reduce<T: Element>(vals: &[T], op: ReduceOp, wide: &Scratch, scratch: &Scratch) -> T {
    wide.with::<T::Acc, _>(vals.len(), |w| {
        widen(vals, w);
        T::from_acc(device_reduce::device(w, op, scratch))
    })
}

/// The device scan of a non-empty slice of a 16-bit float type into `out`.
pub(crate) fn scan<T: Element>(
    input: &[T],
    out: &mut [T],
    op: ReduceOp,
    kind: ScanKind,
    wide: &Scratch,
    scratch: &Scratch,
) {
    let n = input.len();
    wide.with::<T::Acc, _>(2 * n, |w| {
        let (w_in, w_out) = w.split_at_mut(n);
        widen(input, w_in);
        device_scan::device(w_in, w_out, op, kind, scratch);
        let w_out = &*w_out;
        par::chunks_mut_with(w_out, out, CONVERT_TASK, 1, |_, s, o| {
            for (o, &s) in o.iter_mut().zip(s) {
                *o = T::from_acc(s);
            }
        });
    });
}
