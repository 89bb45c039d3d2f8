//! Segmented sort (docs/SEMANTICS.md "segmented_sort"): every segment sorted on its own, the
//! segments in parallel, each by its keys' ranks with the input position breaking ties (the
//! stable order).

use super::sort::rank;
use crate::par;
use std::ops::Range;
use wavekit_core::element::Element;
use wavekit_core::raw::SortSpec;

/// Output pointers the segments write through, each to its own range.
#[derive(Clone, Copy)]
struct Dst<T>(*mut T);
// SAFETY: only used to write the disjoint ranges of different segments (see `sort`).
unsafe impl<T> Send for Dst<T> {}
// SAFETY: as for Send: shared between the segments' tasks, each writing only its own range.
unsafe impl<T> Sync for Dst<T> {}

/// Sorts each segment `bounds(s)`, s < `count`, of `keys` into the same range of `keys_out`,
/// the values with them. The ranges are in order, disjoint and inside the keys.
pub(crate) fn sort<K: Element, V: Element>(
    keys: &[K],
    values: Option<&[V]>,
    count: usize,
    bounds: impl Fn(usize) -> Range<usize> + Sync,
    keys_out: &mut [K],
    values_out: Option<&mut [V]>,
    spec: SortSpec,
) {
    let n = keys.len();
    assert!(keys_out.len() == n);
    let values = values.zip(values_out);
    if let Some((v, vo)) = &values {
        assert!(v.len() == n && vo.len() == n);
    }
    let dk = Dst(keys_out.as_mut_ptr());
    let dv = values.map(|(v, vo)| (v, Dst(vo.as_mut_ptr())));
    par::for_each_init(count, 1, Vec::new, |order: &mut Vec<(_, u64)>, s| {
        let r = bounds(s);
        assert!(r.start <= r.end && r.end <= n);
        order.clear();
        order.extend(r.clone().map(|i| (rank(keys[i], &spec), i as u64)));
        // (rank, position) is a total order with no ties: the stable order of the segment.
        order.sort_unstable();
        for (j, &(_, i)) in order.iter().enumerate() {
            // SAFETY: segment s writes only positions r.start..r.end, disjoint from every
            // other segment's (the ranges are disjoint) and inside the outputs (asserted).
            unsafe {
                *{ dk }.0.add(r.start + j) = keys[i as usize];
                if let Some((v, out)) = dv {
                    *out.0.add(r.start + j) = v[i as usize];
                }
            }
        }
    });
}
