//! Histogram: each key below `bins` counted in its bin, every other key in `outside`. Counts
//! are integers, so the order they are added in never shows in the result.
//!
//! Up to `PRIVATE_BINS` bins, each rayon task counts a large piece of the keys into private
//! tables and the tables are summed at the end. The tables are `u32` (a piece is far below
//! 2^32 keys) and come in several interleaved copies, so a run of equal keys increments
//! different counters in turn instead of waiting on one counter's previous increment. Past
//! that, every task adds into one shared array of atomic counts, as a GPU kernel does in
//! global memory.

use crate::memory;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use wavekit_core::error::Result;
use wavekit_core::host;

/// Bins up to which counting is private.
const PRIVATE_BINS: usize = 1 << 16;
/// Interleaved private tables: 8 when they all fit in L1 alongside the keys, else 2.
const SMALL_COPIES: usize = 8;
const LARGE_COPIES: usize = 2;
const SMALL_TABLES: usize = 1 << 10;
/// Keys of the smallest piece a task counts privately; a piece never reaches 2^32 keys.
const MIN_PIECE: usize = 1 << 16;
const MAX_PIECE: usize = 1 << 30;
/// A piece has at least this many keys per bin.
const TABLE_SPAN: usize = 8;
/// Pieces per rayon thread: a few, so that a busy thread's share can be taken by another.
const PIECES_PER_THREAD: usize = 4;
/// Keys in a 64-byte line: the counting loop asks for one line ahead per line counted.
const LINE_KEYS: usize = 16;
/// Keys per task when adding into shared counts.
const SHARED_CHUNK: usize = 1 << 14;

/// Counts each key below `bins` in its bin of `out[..bins]` and every other key in
/// `out[bins]`.
///
/// # Errors
/// `OutOfMemory` when the counting tables do not fit in host memory; `out` is untouched then.
pub(crate) fn histogram(keys: &[u32], bins: u32, out: &mut [u64]) -> Result<()> {
    assert_eq!(out.len(), bins as usize + 1, "bins + 1 counts");
    if bins as usize <= PRIVATE_BINS {
        private(keys, bins as usize, out)
    } else {
        shared(keys, bins as usize, out)
    }
}

fn private(keys: &[u32], bins: usize, out: &mut [u64]) -> Result<()> {
    // Large tables take large pieces, so that summing a table stays small next to counting.
    let piece = (keys.len() / (PIECES_PER_THREAD * rayon::current_num_threads()))
        .clamp(MIN_PIECE.max(TABLE_SPAN * bins), MAX_PIECE);
    let copies = if bins <= SMALL_TABLES {
        SMALL_COPIES
    } else {
        LARGE_COPIES
    };
    // Slot `bins` of each table counts the keys outside. The identity is the empty vector (no
    // allocation), so every table comes from `count`, fallibly.
    let total = keys
        .par_chunks(piece)
        .map(|c| count(c, bins, copies))
        .try_reduce(Vec::new, |mut a, b| {
            if a.is_empty() {
                return Ok(b);
            }
            a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
            Ok(a)
        })?;
    if total.is_empty() {
        out.fill(0);
    } else {
        out.copy_from_slice(&total);
    }
    Ok(())
}

/// `bins + 1` counts of one piece (fewer than 2^32 keys), the last being the keys outside.
fn count(keys: &[u32], bins: usize, copies: usize) -> Result<Vec<u64>> {
    debug_assert!(keys.len() < u32::MAX as usize);
    let width = bins + 1;
    let mut tables = host::filled(copies * width, 0u32)?;
    let counted = match copies {
        SMALL_COPIES => count_into::<SMALL_COPIES>(keys, bins, &mut tables),
        _ => count_into::<LARGE_COPIES>(keys, bins, &mut tables),
    };
    let mut out = host::filled(width, 0u64)?;
    for t in tables.chunks_exact(width) {
        out.iter_mut().zip(t).for_each(|(o, &c)| *o += c as u64);
    }
    for &k in &keys[counted..] {
        out[(k as usize).min(bins)] += 1;
    }
    Ok(out)
}

/// Counts the keys in whole lines of `LINE_KEYS` and groups of C, key i of a group into table
/// i; returns how many keys it counted.
fn count_into<const C: usize>(keys: &[u32], bins: usize, tables: &mut [u32]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if crate::features::avx2() {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { count_into_avx2::<C>(keys, bins, tables) };
    }
    count_into_body::<C>(keys, bins, tables)
}

/// The same code with the group's slot computation in 256-bit vectors (min and add of 8 keys).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn count_into_avx2<const C: usize>(keys: &[u32], bins: usize, tables: &mut [u32]) -> usize {
    count_into_body::<C>(keys, bins, tables)
}

#[inline(always)]
fn count_into_body<const C: usize>(keys: &[u32], bins: usize, tables: &mut [u32]) -> usize {
    let width = bins + 1;
    assert!(tables.len() >= C * width && C * width <= u32::MAX as usize);
    let offsets: [u32; C] = std::array::from_fn(|i| (i * width) as u32);
    let last = bins as u32;
    const { assert!(LINE_KEYS.is_multiple_of(C), "a line holds whole groups") };
    let (lines, _) = keys.as_chunks::<LINE_KEYS>();
    for (l, line) in lines.iter().enumerate() {
        // Asked for ahead: the stores between the loads leave too few reads in flight for the
        // hardware's prefetcher (1.1-1.6x on one to four cores).
        memory::prefetch_at(keys, l * LINE_KEYS + memory::READ_AHEAD / size_of::<u32>());
        for group in line.as_chunks::<C>().0 {
            // Slot of key i: table i, its bin or the outside count `bins`; computed for the
            // whole group first so it vectorises.
            let slots: [u32; C] = std::array::from_fn(|i| group[i].min(last) + offsets[i]);
            for s in slots {
                // SAFETY: s <= bins + (C - 1) * width = C * width - 1 < tables.len() (asserted).
                unsafe { *tables.get_unchecked_mut(s as usize) += 1 };
            }
        }
    }
    lines.len() * LINE_KEYS
}

/// Many bins: every task adds into one shared array of atomic counts, allocated fallibly (its
/// size is the caller's bin count) and copied into `out` once every key is counted.
fn shared(keys: &[u32], bins: usize, out: &mut [u64]) -> Result<()> {
    let counts: Vec<AtomicU64> = host::from_fn(bins, |_| AtomicU64::new(0))?;
    let outside = keys
        .par_chunks(SHARED_CHUNK)
        .map(|c| {
            let mut outside = 0u64;
            for &k in c {
                match counts.get(k as usize) {
                    Some(n) => {
                        n.fetch_add(1, Ordering::Relaxed);
                    }
                    None => outside += 1,
                }
            }
            outside
        })
        .sum();
    for (o, c) in out.iter_mut().zip(counts) {
        *o = c.into_inner();
    }
    out[bins] = outside;
    Ok(())
}
