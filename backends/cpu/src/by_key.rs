//! reduce_by_key and scan_by_key on the CPU (docs/SEMANTICS.md "by_key"): the device scan's
//! tiles over pairs `(head(e), values[e])` with the segmented operator
//! `(fa, a) ⊕ (fb, b) = (fa | fb, fb ? b : op(a, b))`.
//!
//! Two parallel passes over tasks of whole tiles around one sequential step:
//! 1. each tile's aggregate `A_i` (floats: the canonical steps 1-4 over pairs; integers: a
//!    plain segmented fold, every association giving the same bits) and its numbers of run
//!    heads and run ends;
//! 2. sequentially, the tile prefixes `X_1 = A_0`, `X_i = X_{i-1} ⊕ A_{i-1}` (n / 4096 pairs)
//!    and where each tile's heads and ends start in the reduce's outputs;
//! 3. each tile's local inclusive values `L_e` again, `X_i ⊕ L_e` (tile 0 takes no prefix),
//!    written as the scan or, at the runs' ends and heads, as the reduce.
//!
//! The per-tile facts live in the backend's scratch (four words a tile), so a call allocates
//! nothing once the scratch has grown to the input.

use super::combine::{kogge_stone, with_op};
use super::disjoint::Disjoint;
use super::scratch::Scratch;
use super::{CpuBackend, CpuBuffer};
use crate::par;
use wavekit_core::api::check_len;
use wavekit_core::canonical::{SCAN_ITEMS_PER_THREAD, SCAN_TILE, SCAN_TILE_THREADS};
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::width::LOGICAL_GROUP;
use wavekit_core::{ByKeyOut, DeviceBuffer, ReduceOp, ScanKind};

const GROUP: usize = LOGICAL_GROUP as usize;
const GROUPS: usize = SCAN_TILE_THREADS / GROUP;
const ITEMS: usize = SCAN_ITEMS_PER_THREAD;
/// Tiles one rayon task works: 64 K keys.
const TILES_PER_TASK: usize = 16;
/// Scratch words per tile: the prefix pair (flag, value bits), heads before, ends before.
const WORDS: usize = 4;

/// A (head flag, value) pair of the segmented scan.
#[derive(Clone, Copy)]
struct Pair<T> {
    f: bool,
    v: T,
}

/// One pair per thread of a tile.
type Threads<T> = [Pair<T>; SCAN_TILE_THREADS];

/// `a ⊕ b`: b's value alone when b holds a head, else `op(a, b)`.
#[inline(always)]
fn seg<T: Copy>(a: Pair<T>, b: Pair<T>, f: impl Fn(T, T) -> T) -> Pair<T> {
    Pair {
        f: a.f | b.f,
        v: if b.f { b.v } else { f(a.v, b.v) },
    }
}

/// Whether key i starts a run.
#[inline(always)]
fn head<K: Element>(keys: &[K], i: usize) -> bool {
    i == 0 || keys[i] != keys[i - 1]
}

/// Whether key i ends a run.
#[inline(always)]
fn end<K: Element>(keys: &[K], i: usize) -> bool {
    i + 1 == keys.len() || keys[i + 1] != keys[i]
}

/// The input and the op, shared by every tile. Values combine in `V::Acc` (f32 for the 16-bit
/// floats, widened on reading) and are rounded once where they are written.
struct Input<'a, K, V: Element, F> {
    keys: &'a [K],
    values: &'a [V],
    id: V::Acc,
    f: F,
}

impl<K: Element, V: Element, F: Fn(V::Acc, V::Acc) -> V::Acc + Copy> Input<'_, K, V, F> {
    fn pad(&self) -> Pair<V::Acc> {
        Pair {
            f: false,
            v: self.id,
        }
    }

    #[inline(always)]
    fn pair(&self, i: usize) -> Pair<V::Acc> {
        Pair {
            f: head(self.keys, i),
            v: self.values[i].to_acc(),
        }
    }

    fn tile(&self, i: usize) -> std::ops::Range<usize> {
        i * SCAN_TILE..self.keys.len().min((i + 1) * SCAN_TILE)
    }

    /// Steps 1-3 of the canonical tile over pairs: every thread's total `s_15` and prefix
    /// `P_t`. Items past the input are the padding `(0, identity)`, which leaves a fold as it
    /// is, so a short thread's total is the fold of its items and a thread past the end is
    /// the padding.
    fn prefixes(&self, tile: usize) -> (Threads<V::Acc>, Threads<V::Acc>) {
        let r = self.tile(tile);
        let mut totals = [self.pad(); SCAN_TILE_THREADS];
        for (t, total) in totals.iter_mut().enumerate() {
            let at = r.start + t * ITEMS;
            if at >= r.end {
                break;
            }
            let mut s = self.pair(at);
            for i in at + 1..r.end.min(at + ITEMS) {
                s = seg(s, self.pair(i), self.f);
            }
            *total = s;
        }
        let op = |a, b| seg(a, b, self.f);
        let mut w = totals;
        for g in w.chunks_mut(GROUP) {
            kogge_stone(g, op);
        }
        let mut u: [Pair<V::Acc>; GROUPS] = std::array::from_fn(|g| w[g * GROUP + GROUP - 1]);
        kogge_stone(&mut u, op);
        let prefixes = std::array::from_fn(|t| {
            let g = t / GROUP;
            let e = if g == 0 { self.pad() } else { u[g - 1] };
            if t % GROUP == 0 { e } else { op(e, w[t - 1]) }
        });
        (prefixes, totals)
    }

    /// Tile `tile`'s aggregate (only asked of full tiles).
    fn aggregate(&self, tile: usize) -> Pair<V::Acc> {
        if V::Acc::KIND.is_float() {
            let (p, s) = self.prefixes(tile);
            seg(p[SCAN_TILE_THREADS - 1], s[SCAN_TILE_THREADS - 1], self.f)
        } else {
            // Integers: the values from the tile's last head on (all of them without a head),
            // folded in order.
            let mut a = self.pad();
            for i in self.tile(tile) {
                a = seg(a, self.pair(i), self.f);
            }
            a
        }
    }

    /// The inclusive values `X ⊕ L_e` of tile `tile`, each rounded once, into `dst` (the
    /// tile's length); `x` is the tile prefix, `None` for tile 0.
    fn scan(&self, tile: usize, x: Option<Pair<V::Acc>>, dst: &mut [V]) {
        let r = self.tile(tile);
        let f = self.f;
        if !V::Acc::KIND.is_float() {
            let mut carry = x.map_or(self.id, |x| x.v);
            for (d, i) in dst.iter_mut().zip(r) {
                carry = if head(self.keys, i) {
                    self.values[i].to_acc()
                } else {
                    f(carry, self.values[i].to_acc())
                };
                *d = V::from_acc(carry);
            }
            return;
        }
        let (prefixes, _) = self.prefixes(tile);
        for (t, &p) in prefixes.iter().enumerate() {
            let at = t * ITEMS;
            if r.start + at >= r.end {
                break;
            }
            let mut s = self.pair(r.start + at);
            for k in 0..ITEMS.min(r.end - r.start - at) {
                let i = r.start + at + k;
                if k > 0 {
                    s = seg(s, self.pair(i), f);
                }
                let l = seg(p, s, f);
                dst[at + k] = V::from_acc(x.map_or(l.v, |x| seg(x, l, f).v));
            }
        }
    }
}

/// Where a tile stands: its prefix (`None` in tile 0, in the accumulator type) and the heads
/// and run ends before it.
struct Before<V> {
    x: Option<Pair<V>>,
    heads: usize,
    ends: usize,
}

/// Passes 1 and 2 of the module's doc: the prefix of every tile, into `words`; returns the
/// number of runs.
fn tile_prefixes<K: Element, V: Element, F: Fn(V::Acc, V::Acc) -> V::Acc + Copy + Sync>(
    input: &Input<'_, K, V, F>,
    words: &mut [u64],
) -> usize {
    let tiles = words.len() / WORDS;
    par::chunks_mut(words, WORDS * TILES_PER_TASK, 1, |task, w| {
        for (j, w) in w.chunks_exact_mut(WORDS).enumerate() {
            let i = task * TILES_PER_TASK + j;
            let r = input.tile(i);
            // The last tile's aggregate is no one's prefix.
            let a = if i + 1 < tiles {
                input.aggregate(i)
            } else {
                input.pad()
            };
            w[0] = a.f as u64;
            w[1] = a.v.to_bits();
            w[2] = r.clone().filter(|&e| head(input.keys, e)).count() as u64;
            w[3] = r.filter(|&e| end(input.keys, e)).count() as u64;
        }
    });
    // X_i and the counts before each tile, in place.
    let (mut x, mut heads, mut ends) = (None::<Pair<V::Acc>>, 0u64, 0u64);
    for w in words.chunks_exact_mut(WORDS) {
        let a = Pair {
            f: w[0] != 0,
            v: V::Acc::from_bits(w[1]),
        };
        if let Some(p) = x {
            (w[0], w[1]) = (p.f as u64, p.v.to_bits());
        }
        x = Some(x.map_or(a, |p| seg(p, a, input.f)));
        (heads, w[2]) = (heads + w[2], heads);
        (ends, w[3]) = (ends + w[3], ends);
    }
    debug_assert_eq!(heads, ends);
    heads as usize
}

fn before<A: Element>(words: &[u64], tile: usize) -> Before<A> {
    let w = &words[tile * WORDS..][..WORDS];
    Before {
        x: (tile > 0).then(|| Pair {
            f: w[0] != 0,
            v: A::from_bits(w[1]),
        }),
        heads: w[2] as usize,
        ends: w[3] as usize,
    }
}

/// scan_by_key of `keys` (not empty) and `values` into `out`, all of one length.
fn scan<K: Element, V: Element>(
    keys: &[K],
    values: &[V],
    op: ReduceOp,
    kind: ScanKind,
    out: &mut [V],
    scratch: &Scratch,
) -> Result<()> {
    let tiles = keys.len().div_ceil(SCAN_TILE);
    let id = V::Acc::identity(op);
    // The exclusive scan's value at a head, rounded as every output is.
    let out_id = V::from_acc(id);
    with_op!(V::Acc, op, |f| {
        let input = Input {
            keys,
            values,
            id,
            f,
        };
        scratch.with::<u64, _>(WORDS * tiles, |words| {
            tile_prefixes(&input, words);
            let words = &*words;
            par::chunks_mut(out, SCAN_TILE * TILES_PER_TASK, 1, |task, o| {
                let mut incl = [out_id; SCAN_TILE];
                for (j, o) in o.chunks_mut(SCAN_TILE).enumerate() {
                    let i = task * TILES_PER_TASK + j;
                    let b = before::<V::Acc>(words, i);
                    if kind == ScanKind::Inclusive {
                        input.scan(i, b.x, o);
                        continue;
                    }
                    let incl = &mut incl[..o.len()];
                    input.scan(i, b.x, incl);
                    // Identity at a head, else the inclusive value before (X_i's value
                    // before the tile's first element: the last inclusive value of the tile
                    // before it).
                    let start = i * SCAN_TILE;
                    let mut prev = V::from_acc(b.x.map_or(id, |x| x.v));
                    for (k, (o, &l)) in o.iter_mut().zip(incl.iter()).enumerate() {
                        *o = if head(keys, start + k) { out_id } else { prev };
                        prev = l;
                    }
                }
            });
        })
    })
}

/// reduce_by_key of `keys` (not empty) and `values` into the fronts of `keys_out` and
/// `values_out`; returns the number of runs.
fn reduce<K: Element, V: Element>(
    keys: &[K],
    values: &[V],
    op: ReduceOp,
    keys_out: &mut [K],
    values_out: &mut [V],
    scratch: &Scratch,
) -> Result<usize> {
    let n = keys.len();
    let tiles = n.div_ceil(SCAN_TILE);
    let tasks = tiles.div_ceil(TILES_PER_TASK);
    let id = V::Acc::identity(op);
    with_op!(V::Acc, op, |f| {
        let input = Input {
            keys,
            values,
            id,
            f,
        };
        scratch.with::<u64, _>(WORDS * tiles, |words| {
            let runs = tile_prefixes(&input, words);
            let words = &*words;
            let (ko, vo) = (Disjoint::new(keys_out), Disjoint::new(values_out));
            par::for_each(tasks, 1, |task| {
                let first = task * TILES_PER_TASK;
                let last = tiles.min(first + TILES_PER_TASK);
                let (b0, b1) = (
                    before::<V::Acc>(words, first),
                    (last < tiles).then(|| before::<V::Acc>(words, last)),
                );
                let (heads_end, ends_end) = b1.map_or((runs, runs), |b| (b.heads, b.ends));
                // SAFETY: a task writes the runs whose heads (keys) and ends (values) lie in
                // its tiles: the counts before its first tile up to those before the next
                // task's, disjoint from every other task's.
                let ko = unsafe { ko.part(b0.heads, heads_end - b0.heads) };
                // SAFETY: as for the keys: the values of the runs ending in this task's tiles.
                let vo = unsafe { vo.part(b0.ends, ends_end - b0.ends) };
                let (mut h, mut e) = (0, 0);
                let mut incl = [V::from_acc(id); SCAN_TILE];
                for i in first..last {
                    let r = input.tile(i);
                    let incl = &mut incl[..r.len()];
                    input.scan(i, before::<V::Acc>(words, i).x, incl);
                    for (p, &l) in r.zip(incl.iter()) {
                        if head(keys, p) {
                            ko[h] = keys[p];
                            h += 1;
                        }
                        if end(keys, p) {
                            vo[e] = l;
                            e += 1;
                        }
                    }
                }
            });
            runs
        })
    })
}

/// `RawBackend::raw_by_key` on the CPU: every length checked again (the outputs are written
/// by slice) and every slice taken before anything is written.
pub(crate) fn raw<K: Element, V: Element>(
    keys: &CpuBuffer<K>,
    values: &CpuBuffer<V>,
    op: ReduceOp,
    out: ByKeyOut<'_, CpuBackend, K, V>,
    scratch: &Scratch,
) -> Result<()> {
    op.check::<V>()?;
    let n = keys.len();
    check_len("values (one per key)", n, values.len())?;
    match out {
        ByKeyOut::Scan { out, kind } => {
            check_len("scan-by-key output (the keys' length)", n, out.len())?;
            let (k, v, o) = (keys.data()?, values.data()?, out.data_mut()?);
            if n > 0 {
                scan(k, v, op, kind, o, scratch)?;
            }
        }
        ByKeyOut::Reduce {
            keys: keys_out,
            values: values_out,
            count,
        } => {
            check_len("reduced keys (the keys' length)", n, keys_out.len())?;
            check_len("reduced values (the keys' length)", n, values_out.len())?;
            check_len("number of runs (one element)", 1, count.len())?;
            let (k, v) = (keys.data()?, values.data()?);
            let (ko, vo, c) = (
                keys_out.data_mut()?,
                values_out.data_mut()?,
                count.data_mut()?,
            );
            c[0] = if n == 0 {
                0
            } else {
                reduce(k, v, op, ko, vo, scratch)? as u64
            };
        }
    }
    Ok(())
}
