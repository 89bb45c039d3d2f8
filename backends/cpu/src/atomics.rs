//! Seed 000's warp-aggregated atomic increment, simulated with real atomics, and the
//! atomic-style collectives: count_if, stream compaction and histogram.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use wavekit_core::HistogramResult;
use wavekit_core::Predicate;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::width::WarpWidth;

/// Warps handed to one rayon task.
const WARPS_PER_TASK: usize = 64;
/// Elements per chunk of count_if, compaction and histogram.
const CHUNK: usize = 1 << 14;
/// Bins up to which each histogram chunk counts privately before merging; above it, chunks
/// add straight into shared atomic counts, as a GPU kernel does in global memory.
const PRIVATE_BINS: usize = 1 << 12;

// Viewing counters as atomics below relies on these; both hold on every target with 32-bit
// atomics, and this stops the build where they would not.
const _: () = assert!(size_of::<AtomicU32>() == size_of::<u32>());
const _: () = assert!(align_of::<AtomicU32>() == align_of::<u32>());

/// Each warp's threads with an in-range slot find their group (match_any over those lanes), the
/// group's lowest lane adds the group size with one fetch_add, and each lane takes
/// `base + rank`, rank = lower lanes of its group. A thread with a slot past the counters is
/// skipped and reported (the first such thread) after every warp has run.
pub(crate) fn agg_inc(
    width: WarpWidth,
    slots: &[u32],
    counters: &mut [u32],
    olds: &mut [u32],
) -> Result<()> {
    let lanes = width.lanes() as usize;
    let limit = counters.len();
    // SAFETY: AtomicU32 has the size, alignment (asserted above) and bit validity of u32, and
    // the exclusive borrow of `counters` lasts as long as this shared atomic view, so nothing
    // else reads or writes the memory non-atomically meanwhile.
    let atomic: &[AtomicU32] = unsafe { &*(counters as *mut [u32] as *const [AtomicU32]) };
    let bad = slots
        .par_chunks(lanes)
        .zip(olds.par_chunks_mut(lanes))
        .enumerate()
        .with_min_len(WARPS_PER_TASK)
        .filter_map(|(w, (warp, out))| {
            let valid = warp
                .iter()
                .enumerate()
                .filter(|&(_, &s)| (s as usize) < limit);
            let mut pending = valid.fold(0u64, |m, (l, _)| m | 1 << l);
            // The ballot loop of a warp without a match instruction: one round per distinct slot.
            while pending != 0 {
                let leader = pending.trailing_zeros() as usize;
                let slot = warp[leader];
                let group = (0..warp.len())
                    .filter(|&l| pending >> l & 1 == 1 && warp[l] == slot)
                    .fold(0u64, |m, l| m | 1 << l);
                let base = atomic[slot as usize].fetch_add(group.count_ones(), Ordering::Relaxed);
                let mut members = group;
                while members != 0 {
                    let l = members.trailing_zeros();
                    let rank = (group & ((1u64 << l) - 1)).count_ones();
                    out[l as usize] = base.wrapping_add(rank);
                    members &= members - 1;
                }
                pending &= !group;
            }
            let first_bad = warp.iter().position(|&s| s as usize >= limit);
            first_bad.map(|l| (w * lanes + l, warp[l]))
        })
        .min_by_key(|&(thread, _)| thread);
    match bad {
        Some((_, slot)) => Err(WavekitError::IndexOutOfRange {
            what: "atomic_agg_inc slot",
            value: slot as u64,
            limit: limit as u64,
        }),
        None => Ok(()),
    }
}

pub(crate) fn count_if<T: Element>(input: &[T], pred: Predicate<T>) -> u64 {
    input
        .par_chunks(CHUNK)
        .map(|c| c.iter().filter(|&&x| pred.test(x)).count() as u64)
        .sum()
}

/// Stable compaction: count each chunk, place the chunks by a prefix sum of the counts, then
/// copy every chunk's selected elements into its own disjoint part of the output.
pub(crate) fn compact_stable<T: Element>(input: &[T], pred: Predicate<T>, out: &mut [T]) -> usize {
    let counts: Vec<usize> = input
        .par_chunks(CHUNK)
        .map(|c| c.iter().filter(|&&x| pred.test(x)).count())
        .collect();
    let mut rest = &mut out[..];
    let mut parts = Vec::with_capacity(counts.len());
    for &c in &counts {
        let (part, tail) = std::mem::take(&mut rest).split_at_mut(c);
        parts.push(part);
        rest = tail;
    }
    input.par_chunks(CHUNK).zip(parts).for_each(|(c, part)| {
        for (o, &x) in part.iter_mut().zip(c.iter().filter(|&&x| pred.test(x))) {
            *o = x;
        }
    });
    counts.iter().sum()
}

/// `*mut T` that may cross threads: every writer owns a disjoint range reserved atomically.
struct SharedOut<T>(*mut T);
// SAFETY: only ever written at indices a thread reserved for itself (see compact_unordered).
unsafe impl<T: Send> Sync for SharedOut<T> {}

impl<T> SharedOut<T> {
    /// A method rather than a field read, so closures capture the whole (Sync) wrapper.
    fn ptr(&self) -> *mut T {
        self.0
    }
}

/// Unordered compaction in one pass: each chunk gathers its selected elements, reserves room
/// with one fetch_add on a shared cursor, and copies them there; chunk order varies by run.
pub(crate) fn compact_unordered<T: Element>(
    input: &[T],
    pred: Predicate<T>,
    out: &mut [T],
) -> usize {
    assert!(
        out.len() >= input.len(),
        "raw_compact checks that the output holds the input"
    );
    let cursor = AtomicUsize::new(0);
    let dst = SharedOut(out.as_mut_ptr());
    input.par_chunks(CHUNK).for_each(|c| {
        let picked: Vec<T> = c.iter().copied().filter(|&x| pred.test(x)).collect();
        let base = cursor.fetch_add(picked.len(), Ordering::Relaxed);
        // SAFETY: the cursor hands each chunk a range no other chunk gets; the ranges sum to
        // the number selected, at most `input.len() <= out.len()`, so the copy stays inside
        // `out`, which is borrowed exclusively for this whole function.
        unsafe {
            std::ptr::copy_nonoverlapping(picked.as_ptr(), dst.ptr().add(base), picked.len())
        };
    });
    cursor.into_inner()
}

/// Counts each key below `bins` in its bin and every other key in `outside`.
pub(crate) fn histogram(keys: &[u32], bins: u32) -> HistogramResult {
    if bins as usize <= PRIVATE_BINS {
        histogram_private(keys, bins as usize)
    } else {
        histogram_shared(keys, bins as usize)
    }
}

/// Few bins: each chunk counts into its own array, and the arrays are summed.
fn histogram_private(keys: &[u32], bins: usize) -> HistogramResult {
    let (counts, outside) = keys
        .par_chunks(CHUNK)
        .map(|c| {
            let mut local = vec![0u64; bins];
            let mut outside = 0u64;
            for &k in c {
                match local.get_mut(k as usize) {
                    Some(n) => *n += 1,
                    None => outside += 1,
                }
            }
            (local, outside)
        })
        .reduce(
            || (vec![0u64; bins], 0),
            |(mut a, oa), (b, ob)| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                (a, oa + ob)
            },
        );
    HistogramResult { counts, outside }
}

/// Many bins: every chunk adds into one shared array of atomic counts.
fn histogram_shared(keys: &[u32], bins: usize) -> HistogramResult {
    let shared: Vec<AtomicU64> = (0..bins).map(|_| AtomicU64::new(0)).collect();
    let outside = keys
        .par_chunks(CHUNK)
        .map(|c| {
            let mut outside = 0u64;
            for &k in c {
                match shared.get(k as usize) {
                    Some(n) => {
                        n.fetch_add(1, Ordering::Relaxed);
                    }
                    None => outside += 1,
                }
            }
            outside
        })
        .sum();
    HistogramResult {
        counts: shared.into_iter().map(AtomicU64::into_inner).collect(),
        outside,
    }
}
