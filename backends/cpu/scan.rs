//! The canonical device scan (docs/SEMANTICS.md, "Device scan"): tiles of 256 threads × 16
//! consecutive items, a Kogge-Stone scan of thread totals in logical groups of 32 and over the
//! groups, and a left fold of tile aggregates.
//!
//! Two parallel passes over the tiles: the first computes each tile's aggregate, the tile
//! prefixes are folded left to right, and the second recomputes each tile's local scan and
//! writes it combined with its prefix (reading the input twice instead of the output twice).

use super::combine::{kogge_stone, with_op};
use super::scratch::Scratch;
use crate::backend::ScanKind;
use crate::canonical::{SCAN_ITEMS_PER_THREAD, SCAN_TILE, SCAN_TILE_THREADS};
use crate::element::Element;
use crate::op::ReduceOp;
use crate::width::LOGICAL_GROUP;
use rayon::prelude::*;

const GROUP: usize = LOGICAL_GROUP as usize;
const GROUPS: usize = SCAN_TILE_THREADS / GROUP;
const ITEMS: usize = SCAN_ITEMS_PER_THREAD;
/// Tiles handed to one rayon task.
const TILES_PER_TASK: usize = 4;

pub(crate) fn device<T: Element>(
    input: &[T],
    out: &mut [T],
    op: ReduceOp,
    kind: ScanKind,
    scratch: &Scratch,
) {
    let tiles = input.len().div_ceil(SCAN_TILE);
    let id = T::identity(op);
    scratch.with::<T, _>(tiles, |prefix| {
        with_op!(T, op, |f| {
            input
                .par_chunks(SCAN_TILE)
                .zip(prefix.par_iter_mut())
                .with_min_len(TILES_PER_TASK)
                .for_each(|(tile, a)| {
                    *a = padded(tile, id, |t| TileScan::new(t, id, f).aggregate(f))
                });
            // prefix[i] becomes X_i: X_1 = A_0, X_i = op(X_{i-1}, A_{i-1}); prefix[0] is unused.
            let mut x = id;
            for (i, p) in prefix.iter_mut().enumerate() {
                let a = std::mem::replace(p, x);
                x = if i == 0 { a } else { f(x, a) };
            }
            let shift = (kind == ScanKind::Exclusive) as usize;
            input
                .par_chunks(SCAN_TILE)
                .zip(out.par_chunks_mut(SCAN_TILE))
                .zip(prefix.par_iter())
                .enumerate()
                .with_min_len(TILES_PER_TASK)
                .for_each(|(i, ((tile, o), &x))| {
                    let tile_prefix = (i > 0).then_some(x);
                    padded(tile, id, |t| {
                        TileScan::new(t, id, f).write(t, tile_prefix, shift, o, f)
                    });
                    if shift == 1 {
                        // The first exclusive value of a tile is the last inclusive one of the
                        // tile before it, which is exactly X_i.
                        o[0] = tile_prefix.unwrap_or(id);
                    }
                });
        })
    });
}

/// Runs `f` on the tile as a full SCAN_TILE slice, padding a short one with the identity.
fn padded<T: Element, R>(tile: &[T], id: T, f: impl FnOnce(&[T]) -> R) -> R {
    if tile.len() == SCAN_TILE {
        f(tile)
    } else {
        let mut full = [id; SCAN_TILE];
        full[..tile.len()].copy_from_slice(tile);
        f(&full)
    }
}

/// The per-thread prefixes `P_t` of one full tile, and the last thread's total.
struct TileScan<T> {
    prefix: [T; SCAN_TILE_THREADS],
    last_total: T,
}

impl<T: Element> TileScan<T> {
    fn new(tile: &[T], id: T, f: impl Fn(T, T) -> T + Copy) -> Self {
        let threads = tile.as_chunks::<ITEMS>().0;
        // a_t = s_15 with s_0 = x_0, s_k = op(s_{k-1}, x_k).
        let mut w = [id; SCAN_TILE_THREADS];
        for (wt, items) in w.iter_mut().zip(threads) {
            *wt = items[1..].iter().fold(items[0], |s, &x| f(s, x));
        }
        let last_total = w[SCAN_TILE_THREADS - 1];
        let mut totals = [id; GROUPS];
        for (g, group) in w.chunks_exact_mut(GROUP).enumerate() {
            kogge_stone(group, f);
            totals[g] = group[GROUP - 1];
        }
        kogge_stone(&mut totals, f);
        let mut prefix = [id; SCAN_TILE_THREADS];
        for (t, p) in prefix.iter_mut().enumerate() {
            let (g, lane) = (t / GROUP, t % GROUP);
            let e = if g == 0 { id } else { totals[g - 1] };
            *p = if lane == 0 { e } else { f(e, w[t - 1]) };
        }
        TileScan { prefix, last_total }
    }

    /// The tile aggregate A = L_last = op(P_255, s_15 of thread 255).
    fn aggregate(&self, f: impl Fn(T, T) -> T) -> T {
        f(self.prefix[SCAN_TILE_THREADS - 1], self.last_total)
    }

    /// Writes `op(X, L_e)` (or `L_e` without a tile prefix) to `out[e + shift]` for each
    /// element that fits in `out`.
    fn write(
        &self,
        tile: &[T],
        x: Option<T>,
        shift: usize,
        out: &mut [T],
        f: impl Fn(T, T) -> T + Copy,
    ) {
        let threads = tile.as_chunks::<ITEMS>().0;
        let dst = out.get_mut(shift..).unwrap_or_default();
        for ((items, &p), o) in threads.iter().zip(&self.prefix).zip(dst.chunks_mut(ITEMS)) {
            let mut s = items[0];
            for k in 0..o.len() {
                if k > 0 {
                    s = f(s, items[k]);
                }
                let local = f(p, s);
                o[k] = match x {
                    Some(x) => f(x, local),
                    None => local,
                };
            }
        }
    }
}
