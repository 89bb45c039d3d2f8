//! The canonical device scan (docs/SEMANTICS.md, "Device scan"): tiles of 256 threads × 16
//! consecutive items, a Kogge-Stone scan of thread totals in logical groups of 32 and over the
//! groups, and a left fold of tile aggregates.
//!
//! Two parallel passes over the tiles: the first computes each tile's aggregate, the tile
//! prefixes are folded left to right, and the second recomputes each tile's local scan and
//! writes it combined with its prefix (reading the input twice instead of the output twice).

use super::combine::{kogge_stone, with_op};
use super::scratch::Scratch;
use rayon::prelude::*;
use wavekit_core::ScanKind;
use wavekit_core::canonical::{SCAN_ITEMS_PER_THREAD, SCAN_TILE, SCAN_TILE_THREADS};
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;
use wavekit_core::width::LOGICAL_GROUP;

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
                .for_each(|(tile, a)| *a = padded(tile, id, |t| tile_aggregate(t, id, f)));
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
                    padded(tile, id, |t| tile_write(t, tile_prefix, shift, o, id, f));
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

/// A tile held item-major, `s[k][t]` for thread t's k-th item, so every step below runs over
/// 256 threads of contiguous memory and vectorises (a thread's own 16 items form a chain).
type Columns<T> = [[T; SCAN_TILE_THREADS]; ITEMS];

/// The tile aggregate A = L_last = op(P_255, s_15 of thread 255).
fn tile_aggregate<T: Element>(tile: &[T], id: T, f: impl Fn(T, T) -> T + Copy) -> T {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { tile_aggregate_avx2(tile, id, f) };
    }
    tile_aggregate_body(tile, id, f)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn tile_aggregate_avx2<T: Element>(tile: &[T], id: T, f: impl Fn(T, T) -> T + Copy) -> T {
    tile_aggregate_body(tile, id, f)
}

#[inline(always)]
fn tile_aggregate_body<T: Element>(tile: &[T], id: T, f: impl Fn(T, T) -> T + Copy) -> T {
    let mut s = [[id; SCAN_TILE_THREADS]; ITEMS];
    thread_scans(tile, &mut s, f);
    let last = s[ITEMS - 1][SCAN_TILE_THREADS - 1];
    f(
        thread_prefixes(&s[ITEMS - 1], id, f)[SCAN_TILE_THREADS - 1],
        last,
    )
}

/// Writes `op(X, L_e)` (or `L_e` in tile 0, `x == None`) to `out[e + shift]` for each element
/// of the tile that fits in `out`.
fn tile_write<T: Element>(
    tile: &[T],
    x: Option<T>,
    shift: usize,
    out: &mut [T],
    id: T,
    f: impl Fn(T, T) -> T + Copy,
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { tile_write_avx2(tile, x, shift, out, id, f) };
    }
    tile_write_body(tile, x, shift, out, id, f)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn tile_write_avx2<T: Element>(
    tile: &[T],
    x: Option<T>,
    shift: usize,
    out: &mut [T],
    id: T,
    f: impl Fn(T, T) -> T + Copy,
) {
    tile_write_body(tile, x, shift, out, id, f)
}

#[inline(always)]
fn tile_write_body<T: Element>(
    tile: &[T],
    x: Option<T>,
    shift: usize,
    out: &mut [T],
    id: T,
    f: impl Fn(T, T) -> T + Copy,
) {
    let mut s = [[id; SCAN_TILE_THREADS]; ITEMS];
    thread_scans(tile, &mut s, f);
    let p = thread_prefixes(&s[ITEMS - 1], id, f);
    // L = op(P_t, s_k), then op(X, L) after tile 0.
    for row in s.iter_mut() {
        match x {
            Some(x) => row
                .iter_mut()
                .zip(&p)
                .for_each(|(v, &p)| *v = f(x, f(p, *v))),
            None => row.iter_mut().zip(&p).for_each(|(v, &p)| *v = f(p, *v)),
        }
    }
    let dst = out.get_mut(shift..).unwrap_or_default();
    for (t, o) in dst.chunks_mut(ITEMS).take(SCAN_TILE_THREADS).enumerate() {
        for (k, o) in o.iter_mut().enumerate() {
            *o = s[k][t];
        }
    }
}

/// Thread t owns items 16t..16t+15: `s[k][t]` = s_k = op(s_{k-1}, x_k), s_0 = x_0.
#[inline(always)]
fn thread_scans<T: Element>(tile: &[T], s: &mut Columns<T>, f: impl Fn(T, T) -> T + Copy) {
    for (t, items) in tile.as_chunks::<ITEMS>().0.iter().enumerate() {
        for (k, &x) in items.iter().enumerate() {
            s[k][t] = x;
        }
    }
    for k in 1..ITEMS {
        let (done, rest) = s.split_at_mut(k);
        for (v, &prev) in rest[0].iter_mut().zip(&done[k - 1]) {
            *v = f(prev, *v);
        }
    }
}

/// Thread prefixes from the thread totals `a`: Kogge-Stone within each group of 32 (w), over
/// the 8 group totals (U), then `P_t = op(E_g, w_{t-1})`, `P_t = E_g` at lane 0, with
/// `E_0 = identity`, `E_g = U_{g-1}`.
#[inline(always)]
fn thread_prefixes<T: Element>(
    a: &[T; SCAN_TILE_THREADS],
    id: T,
    f: impl Fn(T, T) -> T + Copy,
) -> [T; SCAN_TILE_THREADS] {
    let mut w = *a;
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
    prefix
}
