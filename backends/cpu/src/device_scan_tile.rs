//! The canonical scan of one chunk of whole tiles (docs/SEMANTICS.md, "Device scan"), for ops
//! whose result depends on the association: every float op.
//!
//! Pass 1 reads the chunk from memory and keeps, per tile, the threads' running folds s_k (in
//! the worker's `kept` buffer, in whatever layout the kernel reads fastest), the 256 thread
//! prefixes P_t and the aggregate A; the chunk then takes the inclusive prefix of the tile
//! before it from the look-back and folds its aggregates into it left to right (step 5, X_i =
//! op(X_{i-1}, A_{i-1}); in groups of tiles for the 16-bit floats), publishing the last; pass 2
//! reads the kept s_k from cache and writes `op(X_i, op(P_t, s_k))`. Keeping s_k spares pass 2 the fold and, for the vector kernels,
//! the transpose that brought the items into thread order.
//!
//! Per-thread values are held with thread `32 g + lane` at `[lane][g]`, so the Kogge-Stone
//! scans within the groups run over `lane` on all 8 groups at once, and a kernel can fold a
//! block of threads (one lane of several groups) down their items as vectors (`device_scan_simd`,
//! which builds on this file's `chunk_with`; device_scan.rs picks it where it applies).

use super::lookback::Link;
use super::memory;
use wavekit_core::canonical::{SCAN_ITEMS_PER_THREAD, SCAN_TILE, SCAN_TILE_THREADS};
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;
use wavekit_core::width::LOGICAL_GROUP;

pub(crate) const GROUP: usize = LOGICAL_GROUP as usize;
pub(crate) const GROUPS: usize = SCAN_TILE_THREADS / GROUP;
pub(crate) const ITEMS: usize = SCAN_ITEMS_PER_THREAD;
/// Tiles in one chunk: 256 KiB of f32, 512 KiB of f64, so a chunk is still in the core's
/// cache when pass 2 reads it again.
pub(crate) const TILES_PER_CHUNK: usize = 16;

/// One value per thread of a tile, thread `32 g + lane` at `[lane][g]`.
pub(crate) type PerThread<T> = [[T; GROUPS]; GROUP];

/// The per-tile work of the scan; `op` is the scalar combine.
pub(crate) trait TileKernel<T: Element> {
    fn op(&self, a: T, b: T) -> T;
    /// a_t = s_15 of every thread of a full tile: its 16 items folded in order; every s_k is
    /// left in `kept` (a tile long) for `scan`, in the kernel's own layout.
    fn totals(&self, tile: &[T], kept: &mut [T]) -> PerThread<T>;
    /// `out[e] = op(X, L_e)` over a full tile (or `L_e` when `x` is None), with
    /// `L_e = op(P_t, s_k)` and s_k from `kept` as `totals` left it.
    fn scan(&self, kept: &[T], prefixes: &PerThread<T>, x: Option<T>, out: &mut [T]);
}

/// Elements of a worker's `kept` buffer for chunks of `chunk` elements (whole tiles) of an
/// input of `len`: a tile for each tile of the longest chunk.
pub(crate) fn kept_len(len: usize, chunk: usize) -> usize {
    chunk.min(len.next_multiple_of(SCAN_TILE))
}

/// Scans chunk `x` (whole tiles but for the input's last) with the portable kernel into `out`
/// (as long as `x`), through `kept` (a tile for each of the chunk's tiles). For an exclusive
/// scan `out[0]` is the incoming prefix (the identity in chunk 0) and `out[e + 1]` the
/// inclusive value of element e, the chunk's last inclusive value being its successor's
/// `out[0]`. `stream`: write `out` with non-temporal stores (`memory::stream_copy`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn chunk<T: Element>(
    x: &[T],
    out: &mut [T],
    kept: &mut [T],
    ahead: &[T],
    link: &mut Link,
    exclusive: bool,
    stream: bool,
    group: usize,
    op: ReduceOp,
    f: impl Fn(T, T) -> T + Copy,
) {
    debug_assert!(x.len() == out.len() && x.len() <= TILES_PER_CHUNK * SCAN_TILE);
    chunk_with(
        &Portable(f),
        x,
        out,
        kept,
        ahead,
        link,
        exclusive,
        stream,
        group,
        T::identity(op),
    );
}

/// The chunk's two passes around the look-back, with the tiles worked by `k` and their s_k
/// kept in `kept` (a tile for each of the chunk's tiles); `ahead` (the input of the worker's
/// next chunk) is fetched into cache during pass 2. `stream`: each tile is scanned into a
/// local buffer and streamed out (`memory::stream_copy`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn chunk_with<T: Element>(
    k: &impl TileKernel<T>,
    x: &[T],
    out: &mut [T],
    kept: &mut [T],
    ahead: &[T],
    link: &mut Link,
    exclusive: bool,
    stream: bool,
    group: usize,
    id: T,
) {
    let tiles = x.len().div_ceil(SCAN_TILE);
    let kept = &mut kept[..tiles * SCAN_TILE];
    let mut prefixes = [[[id; GROUPS]; GROUP]; TILES_PER_CHUNK];
    let mut aggregates = [id; TILES_PER_CHUNK];
    for i in 0..tiles {
        let mut padded = None;
        let tile = full_tile(x, i, id, &mut padded);
        let totals = k.totals(tile, &mut kept[i * SCAN_TILE..][..SCAN_TILE]);
        prefixes[i] = thread_prefixes(&totals, id, |a, b| k.op(a, b));
        // A = L_last = op(P_255, s_15 of thread 255).
        aggregates[i] = k.op(
            prefixes[i][GROUP - 1][GROUPS - 1],
            totals[GROUP - 1][GROUPS - 1],
        );
    }
    // X of each tile: None for the input's tile 0, which has no prefix. Tiles advance `group`
    // at a time (step 5): the link carries Y of the group the chunk starts, `p` is the left
    // fold of the aggregates of the group's tiles so far, and X = op(Y, P).
    let join = |a: Option<T>, b: Option<T>| match (a, b) {
        (Some(a), Some(b)) => Some(k.op(a, b)),
        (a, b) => a.or(b),
    };
    let mut y = link.wait().map(T::from_bits);
    let mut p = None;
    let mut tile_prefix = [None; TILES_PER_CHUNK];
    for (i, (xp, &a)) in tile_prefix.iter_mut().zip(&aggregates[..tiles]).enumerate() {
        *xp = join(y, p);
        p = join(p, Some(a));
        if i % group == group - 1 {
            y = join(y, p.take());
        }
    }
    // A whole chunk ends a group; the input's last chunk may not (nothing follows it).
    link.publish(join(y, p).expect("a chunk has a tile").to_bits());
    let mut local = None;
    for i in 0..tiles {
        let s = &kept[i * SCAN_TILE..][..SCAN_TILE];
        let start = i * SCAN_TILE;
        let end = x.len().min(start + SCAN_TILE);
        memory::prefetch(ahead.get(start..ahead.len().min(end)).unwrap_or_default());
        // The value before a tile is the last inclusive one of the tile before it: X_i.
        let before = tile_prefix[i].unwrap_or(id);
        if end - start == SCAN_TILE && !stream {
            if !exclusive {
                k.scan(s, &prefixes[i], tile_prefix[i], &mut out[start..end]);
                continue;
            }
            if end < x.len() {
                // Shifted by one: the tile's last inclusive value lands on the next tile's
                // first slot, which is X_{i+1}, the value that tile writes there too.
                out[start] = before;
                k.scan(s, &prefixes[i], tile_prefix[i], &mut out[start + 1..=end]);
                continue;
            }
        }
        // A short tile, the chunk's last with an exclusive scan (its last inclusive value
        // belongs to the next chunk), or a streamed output: through a buffer.
        let local = local.get_or_insert([id; SCAN_TILE]);
        k.scan(s, &prefixes[i], tile_prefix[i], local);
        let o = &mut out[start..end];
        let n = o.len();
        let (o, l) = if exclusive {
            o[0] = before;
            (&mut o[1..], &local[..n - 1])
        } else {
            (o, &local[..n])
        };
        if stream {
            memory::stream_copy(o, l);
        } else {
            o.copy_from_slice(l);
        }
    }
}

/// Tile `i` of `x` as a full SCAN_TILE slice: in place, or copied into `padded` after the
/// identity when it is the input's short last tile.
#[inline(always)]
fn full_tile<'a, T: Element>(
    x: &'a [T],
    i: usize,
    id: T,
    padded: &'a mut Option<[T; SCAN_TILE]>,
) -> &'a [T] {
    let tile = crate::par::chunk(x, SCAN_TILE, i);
    if tile.len() == SCAN_TILE {
        return tile;
    }
    let full = padded.insert([id; SCAN_TILE]);
    full[..tile.len()].copy_from_slice(tile);
    full
}

/// Thread prefixes from the thread totals: Kogge-Stone within each group of 32 (w), over the
/// 8 group totals (U), then `P_t = op(E_g, w_{t-1})`, `P_t = E_g` at lane 0, with
/// `E_0 = identity`, `E_g = U_{g-1}`. Each step runs on all groups at once.
#[inline(always)]
fn thread_prefixes<T: Element>(
    a: &PerThread<T>,
    id: T,
    f: impl Fn(T, T) -> T + Copy,
) -> PerThread<T> {
    let mut w = *a;
    let mut d = 1;
    while d < GROUP {
        // Walking down keeps w[lane - d] at its value from before this step.
        for lane in (d..GROUP).rev() {
            let (lo, hi) = w.split_at_mut(lane);
            for (w, &b) in hi[0].iter_mut().zip(&lo[lane - d]) {
                *w = f(b, *w);
            }
        }
        d *= 2;
    }
    let mut u = w[GROUP - 1];
    let mut d = 1;
    while d < GROUPS {
        for g in (d..GROUPS).rev() {
            u[g] = f(u[g - d], u[g]);
        }
        d *= 2;
    }
    let e: [T; GROUPS] = std::array::from_fn(|g| if g == 0 { id } else { u[g - 1] });
    let mut p = [e; GROUP];
    for (p, w) in p[1..].iter_mut().zip(&w) {
        for (p, &w) in p.iter_mut().zip(w) {
            *p = f(*p, w);
        }
    }
    p
}

/// Any element type and op, thread by thread: the path where no vector kernel applies.
struct Portable<F>(F);

impl<T: Element, F: Fn(T, T) -> T + Copy> TileKernel<T> for Portable<F> {
    #[inline(always)]
    fn op(&self, a: T, b: T) -> T {
        (self.0)(a, b)
    }

    /// Keeps s_k where item k lies.
    fn totals(&self, tile: &[T], kept: &mut [T]) -> PerThread<T> {
        let mut totals = [[tile[0]; GROUPS]; GROUP];
        for (lane, a) in totals.iter_mut().enumerate() {
            for (g, a) in a.iter_mut().enumerate() {
                let at = ITEMS * (GROUP * g + lane);
                let (items, s) = (&tile[at..][..ITEMS], &mut kept[at..][..ITEMS]);
                s[0] = items[0];
                for k in 1..ITEMS {
                    s[k] = self.op(s[k - 1], items[k]);
                }
                *a = s[ITEMS - 1];
            }
        }
        totals
    }

    fn scan(&self, kept: &[T], prefixes: &PerThread<T>, x: Option<T>, out: &mut [T]) {
        for (lane, p) in prefixes.iter().enumerate() {
            for (g, &p) in p.iter().enumerate() {
                let at = ITEMS * (GROUP * g + lane);
                for k in 0..ITEMS {
                    let l = self.op(p, kept[at + k]);
                    out[at + k] = x.map_or(l, |x| self.op(x, l));
                }
            }
        }
    }
}
