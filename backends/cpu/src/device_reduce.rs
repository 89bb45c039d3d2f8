//! The canonical device reduce (docs/SEMANTICS.md, "device_reduce").

use super::combine::{bfly, with_op};
use super::device_reduce_simd;
use super::scratch::Scratch;
use crate::par;
use wavekit_core::canonical::{REDUCE_TILE, REDUCE_TILE_LANES};
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::op::ReduceOp;
use wavekit_core::width::LOGICAL_GROUP;

const GROUP: usize = LOGICAL_GROUP as usize;
/// Device-reduce tiles (16 KiB or 32 KiB each) handed to one rayon task.
const TILES_PER_TASK: usize = 8;

/// Levels a device reduce can have: 4096^6 > 2^64 elements.
const MAX_LEVELS: usize = 6;

/// Tiles at each level of the recursive device reduce of `n` elements, down to one (no heap:
/// a reduce allocates nothing once the scratch has grown).
fn level_sizes(mut n: usize) -> ([usize; MAX_LEVELS], usize) {
    let mut sizes = [0; MAX_LEVELS];
    for (level, size) in sizes.iter_mut().enumerate() {
        n = n.div_ceil(REDUCE_TILE);
        *size = n;
        if n == 1 {
            return (sizes, level + 1);
        }
    }
    unreachable!("4096^{MAX_LEVELS} elements exceed the address space")
}

/// Canonical device reduce of a non-empty slice. The tile partials of every level live in the
/// backend's scratch, one level after another. Ops whose result does not depend on the order
/// (every integer op, float Min/Max) take a plain parallel fold instead: the same bits
/// (`order_free`).
///
/// # Errors
/// `OutOfMemory` when the partials do not fit in the scratch (nothing is computed then).
pub(crate) fn device<T: Element>(vals: &[T], op: ReduceOp, scratch: &Scratch) -> Result<T> {
    debug_assert!(!vals.is_empty());
    if let Some(r) = super::order_free::reduce(vals, op) {
        return Ok(r);
    }
    let (sizes, levels) = level_sizes(vals.len());
    let sizes = &sizes[..levels];
    let id = T::identity(op);
    scratch.with::<T, _>(sizes.iter().sum(), |mut rest| {
        with_op!(T, op, |f| {
            let mut input = vals;
            for &tiles in sizes {
                let (level, tail) = std::mem::take(&mut rest).split_at_mut(tiles);
                partials(input, level, op, id, f);
                input = level;
                rest = tail;
            }
            input[0]
        })
    })
}

/// `out[i]` = the partial of tile i of `input`, tiles in parallel, by a vector kernel where
/// one applies (`device_reduce_simd`).
fn partials<T: Element>(
    input: &[T],
    out: &mut [T],
    op: ReduceOp,
    id: T,
    f: impl Fn(T, T) -> T + Copy + Sync,
) {
    par::chunks_into(input, REDUCE_TILE, out, TILES_PER_TASK, |tile, p| {
        *p = device_reduce_simd::tile_partial(tile, op).unwrap_or_else(|| tile_partial(tile, id, f))
    });
}

/// Level 0 of the device reduce of a 16-bit float type: `out[i]` = the partial of tile i of
/// `input` widened to `S::Acc`, each tile widened in cache as it is folded. The same partials
/// as level 0 of the `S::Acc` reduce of the widened input, without that input in memory.
pub(crate) fn widened_partials<S: Element>(input: &[S], out: &mut [S::Acc], op: ReduceOp) {
    let id = S::Acc::identity(op);
    with_op!(S::Acc, op, |f| par::chunks_into(
        input,
        REDUCE_TILE,
        out,
        TILES_PER_TASK,
        |tile, p| {
            let mut w = [id; REDUCE_TILE];
            let w = &mut w[..tile.len()];
            super::half_simd::widen(tile, w);
            *p = device_reduce_simd::tile_partial(w, op).unwrap_or_else(|| tile_partial(w, id, f))
        }
    ));
}

/// The partial of one tile of up to REDUCE_TILE elements (a short one padded with the identity).
fn tile_partial<T: Element>(tile: &[T], id: T, f: impl Fn(T, T) -> T + Copy) -> T {
    #[cfg(target_arch = "x86_64")]
    if crate::features::avx2() {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { tile_partial_avx2(tile, id, f) };
    }
    tile_partial_body(tile, id, f)
}

/// The same code compiled with 256-bit vectors: about twice as fast for sums and three times
/// for float min/max. IEEE results are the same bits at any vector width.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn tile_partial_avx2<T: Element>(tile: &[T], id: T, f: impl Fn(T, T) -> T + Copy) -> T {
    tile_partial_body(tile, id, f)
}

#[inline(always)]
fn tile_partial_body<T: Element>(tile: &[T], id: T, f: impl Fn(T, T) -> T + Copy) -> T {
    let padded;
    let full = if tile.len() == REDUCE_TILE {
        tile
    } else {
        let mut p = [id; REDUCE_TILE];
        p[..tile.len()].copy_from_slice(tile);
        padded = p;
        &padded[..]
    };
    // V = 16 / sizeof(T) elements per 16-byte vector load.
    match size_of::<T>() {
        4 => fold_tile::<T, 4>(full, id, f),
        8 => fold_tile::<T, 2>(full, id, f),
        _ => unreachable!("every Element is 4 or 8 bytes"),
    }
}

/// Element e of the tile belongs to lane `(e % (256·V)) / V`; each lane folds its elements in
/// (chunk, slot) order from the identity, then the 256 lanes are group-reduced. Written as
/// chunk → lane → slot loops over contiguous memory so the lanes vectorise.
#[inline(always)]
fn fold_tile<T: Element, const V: usize>(tile: &[T], id: T, f: impl Fn(T, T) -> T + Copy) -> T {
    let mut acc = [id; REDUCE_TILE_LANES];
    let (vectors, rest) = tile.as_chunks::<V>();
    debug_assert!(rest.is_empty() && vectors.len() * V == REDUCE_TILE);
    for chunk in vectors.chunks_exact(REDUCE_TILE_LANES) {
        for (a, vector) in acc.iter_mut().zip(chunk) {
            let mut x = *a;
            for &e in vector {
                x = f(x, e);
            }
            *a = x;
        }
    }
    // Group reduce in place: every group is full and 8 is a power of two, so no padding.
    let mut groups = [id; REDUCE_TILE_LANES / GROUP];
    for (g, lanes) in groups.iter_mut().zip(acc.chunks_exact_mut(GROUP)) {
        *g = bfly(lanes, f);
    }
    bfly(&mut groups, f)
}
