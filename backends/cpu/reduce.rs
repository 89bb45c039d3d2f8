//! Block reduce and the canonical device reduce (docs/SEMANTICS.md, "Device reduce").

use super::combine::{group_reduce, with_op};
use super::scratch::Scratch;
use crate::canonical::{REDUCE_TILE, REDUCE_TILE_LANES};
use crate::element::Element;
use crate::op::ReduceOp;
use crate::width::LOGICAL_GROUP;
use rayon::prelude::*;

const GROUP: usize = LOGICAL_GROUP as usize;
/// Device-reduce tiles (16 KiB or 32 KiB each) handed to one rayon task.
const TILES_PER_TASK: usize = 8;
/// Blocks handed to one rayon task.
const BLOCKS_PER_TASK: usize = 16;

/// One group-reduce result per block of `block` elements (the last padded with the identity).
pub(crate) fn block<T: Element>(vals: &[T], block: u32, op: ReduceOp) -> Vec<T> {
    let b = block as usize;
    let id = T::identity(op);
    with_op!(T, op, |f| vals
        .par_chunks(b)
        .with_min_len(BLOCKS_PER_TASK)
        .map(|blk| group_reduce(blk, b / GROUP, id, f))
        .collect())
}

/// Tiles at each level of the recursive device reduce of `n` elements, down to one.
fn level_sizes(mut n: usize) -> Vec<usize> {
    let mut sizes = Vec::new();
    loop {
        n = n.div_ceil(REDUCE_TILE);
        sizes.push(n);
        if n == 1 {
            return sizes;
        }
    }
}

/// Canonical device reduce of a non-empty slice. The tile partials of every level live in the
/// backend's scratch, one level after another.
pub(crate) fn device<T: Element>(vals: &[T], op: ReduceOp, scratch: &Scratch) -> T {
    debug_assert!(!vals.is_empty());
    let sizes = level_sizes(vals.len());
    let id = T::identity(op);
    scratch.with::<T, _>(sizes.iter().sum(), |mut rest| {
        with_op!(T, op, |f| {
            let mut input = vals;
            for &tiles in &sizes {
                let (level, tail) = std::mem::take(&mut rest).split_at_mut(tiles);
                partials(input, level, id, f);
                input = level;
                rest = tail;
            }
            input[0]
        })
    })
}

/// `out[i]` = the partial of tile i of `input`, tiles in parallel.
fn partials<T: Element>(input: &[T], out: &mut [T], id: T, f: impl Fn(T, T) -> T + Copy + Sync) {
    input
        .par_chunks(REDUCE_TILE)
        .zip(out.par_iter_mut())
        .with_min_len(TILES_PER_TASK)
        .for_each(|(tile, p)| *p = tile_partial(tile, id, f));
}

/// The partial of one tile of up to REDUCE_TILE elements (a short one padded with the identity).
pub(crate) fn tile_partial<T: Element>(tile: &[T], id: T, f: impl Fn(T, T) -> T + Copy) -> T {
    if tile.len() < REDUCE_TILE {
        let mut padded = [id; REDUCE_TILE];
        padded[..tile.len()].copy_from_slice(tile);
        return tile_partial(&padded, id, f);
    }
    // V = 16 / sizeof(T) elements per 16-byte vector load.
    match size_of::<T>() {
        4 => fold_tile::<T, 4>(tile, id, f),
        8 => fold_tile::<T, 2>(tile, id, f),
        _ => unreachable!("every Element is 4 or 8 bytes"),
    }
}

/// Element e of the tile belongs to lane `(e % (256·V)) / V`; each lane folds its elements in
/// (chunk, slot) order from the identity, then the 256 lanes are group-reduced. Written as
/// chunk → lane → slot loops over contiguous memory so the lanes vectorise.
#[inline]
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
    group_reduce(&acc, REDUCE_TILE_LANES / GROUP, id, f)
}
