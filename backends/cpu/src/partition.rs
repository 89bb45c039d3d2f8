//! Stable partition (docs/SEMANTICS.md "partition"): two passes over parallel chunks. The
//! first counts each chunk's elements in every part; an exclusive scan of the counts (in chunk
//! order) gives each chunk its own range of each part, and the second pass writes each chunk's
//! elements to its ranges in input order, so every write is to a slice the chunk owns.

use super::lookback::Disjoint;
use crate::par;
use wavekit_core::Predicate;
use wavekit_core::element::Element;

/// Elements per chunk: 64 K, enough work per rayon task.
const CHUNK: usize = 1 << 16;

/// The part of `x`: 0 when `first` holds, 1 when `second` (given) holds, else 2.
#[inline]
fn part<T: Element>(x: T, first: Predicate<T>, second: Option<Predicate<T>>) -> usize {
    if first.test(x) {
        0
    } else if second.is_some_and(|s| s.test(x)) {
        1
    } else {
        2
    }
}

/// Partitions `input` into `out` (the same length); returns the sizes of the first two parts
/// (the second 0 without `second`).
pub(crate) fn partition<T: Element>(
    input: &[T],
    first: Predicate<T>,
    second: Option<Predicate<T>>,
    out: &mut [T],
) -> [usize; 2] {
    assert_eq!(out.len(), input.len(), "the output is the input's length");
    let n = input.len();
    // Pass 1: each chunk's count in each part.
    let counts: Vec<[usize; 3]> = par::map_chunks(input, CHUNK, 1, |_, c| {
        let mut k = [0usize; 3];
        for &x in c {
            k[part(x, first, second)] += 1;
        }
        k
    });
    let totals = counts
        .iter()
        .fold([0usize; 3], |t, k| [t[0] + k[0], t[1] + k[1], t[2] + k[2]]);
    // Each chunk's start in each part: the part's base plus the chunk's predecessors' counts.
    let mut starts = Vec::with_capacity(counts.len());
    let mut next = [0, totals[0], totals[0] + totals[1]];
    for k in &counts {
        starts.push(next);
        next = [next[0] + k[0], next[1] + k[1], next[2] + k[2]];
    }
    debug_assert_eq!(next[2], n);
    let dst = Disjoint::new(out);
    par::chunks(input, CHUNK, 1, |i, c| {
        let (k, s) = (&counts[i], &starts[i]);
        // SAFETY: the scan gives chunk c the ranges s[p]..s[p] + k[p] of each part, which
        // no other chunk gets (the next chunk's start is s[p] + k[p]) and which the parts'
        // bases keep apart.
        let parts = [0, 1, 2].map(|p| unsafe { dst.part(s[p], k[p]) });
        let mut at = [0usize; 3];
        for &x in c {
            let p = part(x, first, second);
            parts[p][at[p]] = x;
            at[p] += 1;
        }
        debug_assert_eq!(at, *k);
    });
    [totals[0], totals[1]]
}
