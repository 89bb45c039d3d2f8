//! The CPU backend's parallel loops. rayon sees one loop body type only, `&dyn Fn(Range)`:
//! its splitting, joining and job machinery is compiled once for this crate, not once per
//! element type, op and call site in every crate that names the backend (a test binary of the
//! conformance suite on this backend held 3641 copies of `rayon_core::join`, and compiling
//! them was most of the workspace's build time). The bodies below stay generic and are
//! compiled into a plain loop over each range; one call through the pointer a range costs
//! nothing next to the range's work.

use crate::disjoint::Disjoint;
use std::ops::Range;
use wavekit_core::error::Result;
use wavekit_core::host;

/// Calls `f` with disjoint ranges that cover `0..n`, each at least `min_len` long unless `n`
/// is shorter, split as rayon's idle threads ask for work.
fn ranges(n: usize, min_len: usize, f: &(dyn Fn(Range<usize>) + Sync)) {
    use rayon::iter::ParallelIterator;
    let min = min_len.max(1);
    rayon::iter::split(0..n, |r: Range<usize>| {
        if r.len() < 2 * min {
            (r, None)
        } else {
            let mid = r.start + r.len() / 2;
            (r.start..mid, Some(mid..r.end))
        }
    })
    .for_each(f);
}

/// `f(i)` for every `i` in `0..n`, at least `min_len` indices a task.
pub(crate) fn for_each(n: usize, min_len: usize, f: impl Fn(usize) + Sync) {
    ranges(n, min_len, &|r| r.for_each(&f));
}

/// `f(&mut state, i)` for every `i` in `0..n`, with one `init()` state a task (scratch a task
/// reuses across its indices).
pub(crate) fn for_each_init<S>(
    n: usize,
    min_len: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, usize) + Sync,
) {
    ranges(n, min_len, &|r| {
        let mut s = init();
        r.for_each(|i| f(&mut s, i));
    });
}

/// `[f(0), f(1), .., f(n - 1)]`, computed in parallel.
///
/// # Errors
/// `OutOfMemory` when the `n` results do not fit in host memory (nothing is computed then).
pub(crate) fn map<R: Send>(
    n: usize,
    min_len: usize,
    f: impl Fn(usize) -> R + Sync,
) -> Result<Vec<R>> {
    let mut out = host::with_capacity(n)?;
    map_into(&mut out, n, min_len, f);
    Ok(out)
}

/// Fills the empty `out`, which has room for them (allocated by the caller, fallibly), with
/// `f(0), .., f(n - 1)`, computed in parallel.
pub(crate) fn map_into<R: Send>(
    out: &mut Vec<R>,
    n: usize,
    min_len: usize,
    f: impl Fn(usize) -> R + Sync,
) {
    assert!(
        out.is_empty() && out.capacity() >= n,
        "room for the results"
    );
    let slots = Disjoint::new(&mut out.spare_capacity_mut()[..n]);
    ranges(n, min_len, &|r| {
        // SAFETY: the ranges are disjoint, so no two tasks hold the same slots.
        let part = unsafe { slots.part(r.start, r.len()) };
        for (slot, i) in part.iter_mut().zip(r) {
            slot.write(f(i));
        }
    });
    // SAFETY: the ranges cover 0..n and every slot of each was written (a panicking `f`
    // unwinds out of `ranges` before this, leaving the vector empty: the values leak).
    unsafe { out.set_len(n) };
}

/// The `c`-th `size`-element chunk of `data` (the last may be shorter).
pub(crate) fn chunk<T>(data: &[T], size: usize, c: usize) -> &[T] {
    &data[c * size..data.len().min((c + 1) * size)]
}

/// `f(c, chunk)` for the `c`-th `size`-element chunk of `data` (the last may be shorter),
/// at least `min_len` chunks a task.
pub(crate) fn chunks<T: Sync>(
    data: &[T],
    size: usize,
    min_len: usize,
    f: impl Fn(usize, &[T]) + Sync,
) {
    for_each(data.len().div_ceil(size), min_len, |c| {
        f(c, chunk(data, size, c))
    });
}

/// `[f(c, chunk)]` over the `size`-element chunks of `data` (the last may be shorter).
///
/// # Errors
/// As [`map`].
pub(crate) fn map_chunks<T: Sync, R: Send>(
    data: &[T],
    size: usize,
    min_len: usize,
    f: impl Fn(usize, &[T]) -> R + Sync,
) -> Result<Vec<R>> {
    map(data.len().div_ceil(size), min_len, |c| {
        f(c, chunk(data, size, c))
    })
}

/// The `size`-element chunks of `data` folded by `f` and merged by `merge` from `id`, without a
/// vector of per-chunk results (a call allocates nothing). The merge order depends on the
/// scheduling: `merge` must be commutative and associative, as every caller's is (integer
/// folds, min / max, counts).
pub(crate) fn fold_chunks<T: Sync, R: Send + Sync + Copy>(
    data: &[T],
    size: usize,
    min_len: usize,
    id: R,
    f: impl Fn(&[T]) -> R + Sync,
    merge: impl Fn(R, R) -> R + Sync,
) -> R {
    let total = std::sync::Mutex::new(id);
    ranges(data.len().div_ceil(size), min_len, &|r| {
        let part = r.fold(id, |a, c| merge(a, f(chunk(data, size, c))));
        let mut t = total.lock().unwrap_or_else(|e| e.into_inner());
        *t = merge(*t, part);
    });
    total.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// `f(c, chunk)` for the `c`-th `size`-element chunk of `data`, mutably.
pub(crate) fn chunks_mut<T: Send>(
    data: &mut [T],
    size: usize,
    min_len: usize,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    let len = data.len();
    let parts = Disjoint::new(data);
    for_each(len.div_ceil(size), min_len, |c| {
        let start = c * size;
        // SAFETY: chunk c is data[c * size..], at most `size` long: disjoint from every other.
        f(c, unsafe { parts.part(start, size.min(len - start)) })
    });
}

/// `f(c, src_chunk, out_chunk)` for the `c`-th `size`-element chunk of `out`, mutably, with
/// the elements of `src` at the same indices (`src` is at least as long as `out`).
pub(crate) fn chunks_mut_with<S: Sync, T: Send>(
    src: &[S],
    out: &mut [T],
    size: usize,
    min_len: usize,
    f: impl Fn(usize, &[S], &mut [T]) + Sync,
) {
    assert!(src.len() >= out.len(), "a source element for every output");
    chunks_mut(out, size, min_len, |c, o| {
        f(c, &src[c * size..][..o.len()], o)
    });
}

/// `f(chunk, &mut out[c])` for the `c`-th `size`-element chunk of `data` (one output a chunk;
/// as many as both have), at least `min_len` chunks a task.
pub(crate) fn chunks_into<T: Sync, R: Send>(
    data: &[T],
    size: usize,
    out: &mut [R],
    min_len: usize,
    f: impl Fn(&[T], &mut R) + Sync,
) {
    let n = out.len().min(data.len().div_ceil(size));
    let outs = Disjoint::new(out);
    for_each(n, min_len, |c| {
        // SAFETY: out[c] belongs to chunk c alone.
        let o = unsafe { &mut outs.part(c, 1)[0] };
        f(chunk(data, size, c), o)
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_index_once_at_any_task_size() {
        for n in [0, 1, 2, 7, 1000, 4097] {
            for min in [0, 1, 3, 64, 5000] {
                let seen: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
                for_each(n, min, |i| {
                    seen[i].fetch_add(1, Ordering::Relaxed);
                });
                assert!(
                    seen.iter().all(|s| s.load(Ordering::Relaxed) == 1),
                    "n={n} min={min}"
                );
                let inits = AtomicUsize::new(0);
                let tasks_saw = AtomicUsize::new(0);
                for_each_init(
                    n,
                    min,
                    || inits.fetch_add(1, Ordering::Relaxed),
                    |_, _| {
                        tasks_saw.fetch_add(1, Ordering::Relaxed);
                    },
                );
                assert_eq!(tasks_saw.load(Ordering::Relaxed), n);
                // A task covers at least `min` indices, so there are at most n / min of them.
                let most = if min > 1 {
                    n.div_ceil(min).max(1)
                } else {
                    n.max(1)
                };
                assert!(inits.load(Ordering::Relaxed) <= most, "n={n} min={min}");
                assert_eq!(
                    map(n, min, |i| i * 3).unwrap(),
                    (0..n).map(|i| i * 3).collect::<Vec<_>>()
                );
            }
        }
    }

    #[test]
    fn chunks_cover_the_slice_in_order() {
        let data: Vec<u32> = (0..1001).collect();
        let sums = map_chunks(&data, 100, 1, |c, s| (c, s.len(), s.iter().sum::<u32>())).unwrap();
        assert_eq!(sums.len(), 11);
        assert_eq!(sums[10], (10, 1, 1000));
        assert_eq!(sums[3], (3, 100, (300..400).sum()));
        let total = fold_chunks(&data, 100, 1, 0u32, |c| c.iter().sum(), |a, b| a + b);
        assert_eq!(total, (0..1001).sum());
        let mut out = vec![0u32; 1001];
        chunks_mut(&mut out, 64, 2, |c, o| {
            for (k, x) in o.iter_mut().enumerate() {
                *x = (c * 64 + k) as u32;
            }
        });
        assert_eq!(out, data);
        let hits = AtomicUsize::new(0);
        chunks(&data, 7, 1, |c, s| {
            assert_eq!(s[0] as usize, c * 7);
            hits.fetch_add(s.len(), Ordering::Relaxed);
        });
        assert_eq!(hits.load(Ordering::Relaxed), 1001);
        let mut firsts = vec![0u32; 12];
        chunks_into(&data, 100, &mut firsts, 3, |c, o| *o = c[0] + 1);
        let want: Vec<u32> = (0..11).map(|c| c * 100 + 1).chain([0]).collect();
        assert_eq!(firsts, want, "one output a chunk; the extra one untouched");
        // A longer source: each output chunk sees the source elements at its own indices.
        let mut twice = vec![0u32; 950];
        chunks_mut_with(&data, &mut twice, 64, 2, |c, s, o| {
            assert_eq!((s.len(), s[0] as usize), (o.len(), c * 64));
            o.iter_mut().zip(s).for_each(|(o, &x)| *o = 2 * x);
        });
        assert_eq!(twice, (0..950).map(|x| 2 * x).collect::<Vec<u32>>());
    }
}
