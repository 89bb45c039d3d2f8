//! Segmented sort (docs/SEMANTICS.md "segmented_sort"): every segment sorted on its own, the
//! segments in parallel, each by its keys' ranks with the input position breaking ties (the
//! stable order).

use super::sort::rank;
use crate::par;
use std::ops::Range;
use std::sync::Mutex;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::host;
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
) -> Result<()> {
    let n = keys.len();
    assert!(keys_out.len() == n);
    let values = values.zip(values_out);
    if let Some((v, vo)) = &values {
        assert!(v.len() == n && vo.len() == n);
    }
    let dk = Dst(keys_out.as_mut_ptr());
    let dv = values.map(|(v, vo)| (v, Dst(vo.as_mut_ptr())));
    // Each task's (rank, position) buffer, as long as the longest segment, allocated here,
    // fallibly, before any segment is written: at most one task runs on each rayon thread at a
    // time (a task's loop calls nothing that runs other tasks), so one buffer a thread.
    let longest = (0..count).map(|s| bounds(s).len()).max().unwrap_or(0);
    let threads = rayon::current_num_threads();
    let mut pool = host::with_capacity(threads)?;
    for _ in 0..threads {
        pool.push(host::with_capacity::<(u64, u64)>(longest)?);
    }
    let pool = Mutex::new(pool);
    par::for_each_init(
        count,
        1,
        || Order::take(&pool),
        |order: &mut Order<'_>, s| {
            let order = &mut order.buf;
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
        },
    );
    Ok(())
}

/// A buffer of the pool, given back when the task ends.
struct Order<'a> {
    buf: Vec<(u64, u64)>,
    pool: &'a Mutex<Vec<Vec<(u64, u64)>>>,
}

impl<'a> Order<'a> {
    fn take(pool: &'a Mutex<Vec<Vec<(u64, u64)>>>) -> Self {
        let buf = pool.lock().unwrap_or_else(|e| e.into_inner()).pop();
        // Never empty while one task a thread runs (see `sort`); an empty pool would only make
        // this task grow its own buffer.
        Order {
            buf: buf.unwrap_or_default(),
            pool,
        }
    }
}

impl Drop for Order<'_> {
    fn drop(&mut self) {
        let buf = std::mem::take(&mut self.buf);
        self.pool
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(buf);
    }
}
