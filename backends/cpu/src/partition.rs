//! Partition (docs/SEMANTICS.md "partition"; partition_reversed.rs lays the parts out the
//! reversed way): two passes over parallel chunks. The first counts each chunk's elements in
//! every part; an exclusive scan of the counts (in chunk order) gives each chunk its own range
//! of each part, and the second pass writes each chunk's elements to its ranges (the reversed
//! layout's rest back to front), so every write is to a slice the chunk owns.

use super::disjoint::Disjoint;
use super::memory;
use super::pred::with_pred;
use crate::par;
use wavekit_core::Predicate;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::host;

/// Elements per chunk: 64 K, enough work per rayon task.
const CHUNK: usize = 1 << 16;

/// Where the parts go: the stable layout (each part after the one before, in input order), or
/// the reversed one (part 0 from the front of `out`, part 1 from the front of `middle`, the
/// rest from the back of `out`, back to front).
pub(crate) enum Layout<'a, T> {
    Stable,
    Reversed { middle: Option<&'a mut [T]> },
}

/// Partitions `input` into `out` (the same length) as `layout` says; returns the sizes of the
/// first two parts (the second 0 without `second`).
pub(crate) fn partition<T: Element>(
    input: &[T],
    first: Predicate<T>,
    second: Option<Predicate<T>>,
    out: &mut [T],
    layout: Layout<'_, T>,
) -> Result<[usize; 2]> {
    assert_eq!(out.len(), input.len(), "the output is the input's length");
    match second {
        None => with_pred!(first, |f| passes(input, out, layout, move |x| (
            f(x),
            false
        ))),
        Some(s) => with_pred!(first, |f| passes(input, out, layout, move |x| {
            let p0 = f(x);
            (p0, !p0 & s.test(x))
        })),
    }
}

/// The two passes, with `part(x)` = (whether `x` is in part 0, whether in part 1). The loops
/// add these to counters and cursors held in registers: a count or cursor array indexed by the
/// part made each element wait on the store of the one before in the same part (about 10 ns an
/// element on one core).
fn passes<T: Element>(
    input: &[T],
    out: &mut [T],
    layout: Layout<'_, T>,
    part: impl Fn(T) -> (bool, bool) + Copy + Sync,
) -> Result<[usize; 2]> {
    let n = input.len();
    // Pass 1: each chunk's count in each part.
    let counts: Vec<[usize; 3]> = par::map_chunks(input, CHUNK, 1, |_, c| {
        let (mut k0, mut k1) = (0, 0);
        memory::read_ahead(c, |c| {
            for &x in c {
                let (p0, p1) = part(x);
                k0 += p0 as usize;
                k1 += p1 as usize;
            }
        });
        [k0, k1, c.len() - k0 - k1]
    })?;
    let totals = counts
        .iter()
        .fold([0usize; 3], |t, k| [t[0] + k[0], t[1] + k[1], t[2] + k[2]]);
    // Each chunk's start in each part: the part's base plus the chunk's predecessors' counts
    // (the reversed layout counts each part from its own front: the rest's from out's end).
    let reversed = matches!(layout, Layout::Reversed { .. });
    let mut starts = host::with_capacity(counts.len())?;
    let mut next = if reversed {
        [0; 3]
    } else {
        [0, totals[0], totals[0] + totals[1]]
    };
    for k in &counts {
        starts.push(next);
        next = [next[0] + k[0], next[1] + k[1], next[2] + k[2]];
    }
    debug_assert_eq!(next[2], if reversed { totals[2] } else { n });
    let dst = Disjoint::new(out);
    let mid = match layout {
        Layout::Reversed { middle: Some(m) } => Some(Disjoint::new(m)),
        _ => None,
    };
    par::chunks(input, CHUNK, 1, |i, c| {
        let (k, s) = (&counts[i], &starts[i]);
        // SAFETY: the scan gives chunk c the ranges s[p]..s[p] + k[p] of each part, which no
        // other chunk gets (the next chunk's start is s[p] + k[p]); the stable layout's bases
        // keep the parts apart, and the reversed one's rest counts from the end (its range
        // n - s[2] - k[2] .. n - s[2]) after the first part's (totals[0] + totals[2] <= n),
        // the middle part in its own buffer.
        let [p0, p1, p2] = unsafe {
            if reversed {
                let p1 = match &mid {
                    Some(m) => m.part(s[1], k[1]),
                    None => dst.part(0, 0),
                };
                [dst.part(s[0], k[0]), p1, dst.part(n - s[2] - k[2], k[2])]
            } else {
                [0, 1, 2].map(|p| dst.part(s[p], k[p]))
            }
        };
        // The rest's cursor walks back from its range's last slot in the reversed layout.
        let step: isize = if reversed { -1 } else { 1 };
        let (mut a, mut b) = (p0.as_mut_ptr(), p1.as_mut_ptr());
        let mut r = if reversed {
            p2.as_mut_ptr().wrapping_add(k[2]).wrapping_sub(1)
        } else {
            p2.as_mut_ptr()
        };
        memory::read_ahead(c, |c| {
            for &x in c {
                let (p0, p1) = part(x);
                let to = if p0 {
                    a
                } else if p1 {
                    b
                } else {
                    r
                };
                // SAFETY: pass 1 counted k[p] elements of this chunk in part p, and part p's
                // range holds exactly k[p]: each cursor stays inside its part's range (the
                // rest's walks it from its last slot down).
                unsafe { to.write(x) };
                a = a.wrapping_add(p0 as usize);
                b = b.wrapping_add(p1 as usize);
                r = r.wrapping_offset(step * !(p0 | p1) as isize);
            }
        });
        debug_assert_eq!(
            [a, b],
            [
                p0.as_mut_ptr().wrapping_add(k[0]),
                p1.as_mut_ptr().wrapping_add(k[1])
            ],
            "the leading parts' ranges filled exactly"
        );
    });
    Ok([totals[0], totals[1]])
}
