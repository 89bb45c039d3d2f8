//! Sequential definitions of the device collectives, written literally from docs/SEMANTICS.md
//! (its "Canonical combining order" and the sections block_reduce, device_reduce, device_scan,
//! segmented_reduce, spmv, count_if, compact, histogram).

use super::ops::{apply, bfly, group_reduce, identity, kogge_stone_with, mul};
use wavekit_core::ScanKind;
use wavekit_core::canonical::{
    MAX_VECTOR, REDUCE_ITEMS_PER_LANE, REDUCE_TILE, REDUCE_TILE_LANES, SCAN_HALF_GROUP,
    SCAN_ITEMS_PER_THREAD, SCAN_TILE, SCAN_TILE_THREADS,
};
use wavekit_core::element::Element;
use wavekit_core::width::LOGICAL_GROUP;
use wavekit_core::{Predicate, ReduceOp, VectorSize};

/// block_reduce: one group-reduce result per block of `block` consecutive elements (the last
/// padded).
/// The 16-bit floats: the same over the values widened to f32, each result rounded once.
pub fn block_reduce<T: Element>(vals: &[T], block: u32, op: ReduceOp) -> Vec<T> {
    if T::KIND.is_half() {
        let wide = block_reduce(&widen(vals), block, op);
        return wide.into_iter().map(T::from_acc).collect();
    }
    vals.chunks(block as usize)
        .map(|b| {
            let mut padded = b.to_vec();
            padded.resize(block as usize, identity(op));
            group_reduce(op, &padded)
        })
        .collect()
}

/// One device-reduce tile: 256 logical lanes, each folding its 16 elements in (chunk, slot)
/// order from the identity, then a group reduce of the 256 accumulators.
fn reduce_tile<T: Element>(tile: &[T], op: ReduceOp) -> T {
    let v = 16 / T::KIND.size();
    let mut acc = vec![identity::<T>(op); REDUCE_TILE_LANES];
    // Visit the tile lane by lane, in each lane's (chunk, slot) order, to mirror the spec.
    for (lane, a) in acc.iter_mut().enumerate() {
        for k in 0..REDUCE_ITEMS_PER_LANE {
            let (chunk, slot) = (k / v, k % v);
            let e = chunk * REDUCE_TILE_LANES * v + lane * v + slot;
            let x = tile.get(e).copied().unwrap_or_else(|| identity(op));
            *a = apply(op, *a, x);
        }
    }
    group_reduce(op, &acc)
}

/// device_reduce in the canonical order, of `vals` (non-empty): tile partials, re-reduced until one is left.
/// The 16-bit floats (SEMANTICS "Half precision"): the same tree over the values widened to
/// f32, the one result rounded.
pub fn device_reduce<T: Element>(vals: &[T], op: ReduceOp) -> T {
    assert!(!vals.is_empty(), "device reduce of nothing");
    if T::KIND.is_half() {
        return T::from_acc(device_reduce(&widen(vals), op));
    }
    let mut level: Vec<T> = vals
        .chunks(REDUCE_TILE)
        .map(|t| reduce_tile(t, op))
        .collect();
    while level.len() > 1 {
        level = level
            .chunks(REDUCE_TILE)
            .map(|t| reduce_tile(t, op))
            .collect();
    }
    level[0]
}

/// How many times device reduce re-reduces partials for `n` elements (1 = one pass).
pub fn device_reduce_levels(n: usize) -> usize {
    let (mut levels, mut len) = (1, n.div_ceil(REDUCE_TILE));
    while len > 1 {
        levels += 1;
        len = len.div_ceil(REDUCE_TILE);
    }
    levels
}

/// Local inclusive results of one scan tile over any combinable values `P` (the elements,
/// or by_key's pairs), padded to SCAN_TILE with `id` (the op's identity, which is also
/// `E_0`), steps 1-4 of SEMANTICS "device_scan" with `f` as `op`.
fn scan_tile<P: Copy>(tile: &[P], id: P, f: &impl Fn(P, P) -> P) -> Vec<P> {
    let mut x = tile.to_vec();
    x.resize(SCAN_TILE, id);
    let items = SCAN_ITEMS_PER_THREAD;
    // 1. Sequential scan of each thread's 16 items.
    let mut s = x.clone();
    for t in 0..SCAN_TILE_THREADS {
        for k in 1..items {
            s[t * items + k] = f(s[t * items + k - 1], x[t * items + k]);
        }
    }
    // 2. Thread totals scanned within each logical group, then the group totals.
    let group = LOGICAL_GROUP as usize;
    let mut w: Vec<P> = (0..SCAN_TILE_THREADS)
        .map(|t| s[t * items + items - 1])
        .collect();
    for g in w.chunks_mut(group) {
        kogge_stone_with(g, group, f);
    }
    let groups = SCAN_TILE_THREADS / group;
    let mut u: Vec<P> = (0..groups).map(|g| w[g * group + group - 1]).collect();
    kogge_stone_with(&mut u, groups, f);
    // 3. Thread prefixes.
    let prefix: Vec<P> = (0..SCAN_TILE_THREADS)
        .map(|t| {
            let g = t / group;
            let e = if g == 0 { id } else { u[g - 1] };
            if t % group == 0 { e } else { f(e, w[t - 1]) }
        })
        .collect();
    // 4. Local inclusive values.
    (0..SCAN_TILE).map(|e| f(prefix[e / items], s[e])).collect()
}

/// The inclusive device scan (steps 1-6 of SEMANTICS "device_scan") of `vals` over any
/// combinable values, with `id` as the identity and padding and `f` as `op`.
pub(crate) fn device_scan_with<P: Copy>(vals: &[P], id: P, f: impl Fn(P, P) -> P) -> Vec<P> {
    grouped_with_prefixes(vals, id, f, 1).0
}

/// The inclusive device scan with tile prefixes advancing `group` tiles at a time (SEMANTICS
/// "device_scan" step 5; one for every type but the 16-bit floats): `Y_1 = S_0`,
/// `Y_{q+1} = op(Y_q, S_q)` with `S_q` the left fold of group q's tile aggregates, and tile
/// `qG + r` gets `X = op(Y_q, P_r)`, `P_r` the left fold of the group's first r aggregates (no
/// Y in group 0, no P at r = 0, no X at all in tile 0). Returns the inclusive values and each
/// tile's prefix X (None for tile 0).
fn grouped_with_prefixes<P: Copy>(
    vals: &[P],
    id: P,
    f: impl Fn(P, P) -> P,
    group: usize,
) -> (Vec<P>, Vec<Option<P>>) {
    let join = |a: Option<P>, b: Option<P>| match (a, b) {
        (Some(a), Some(b)) => Some(f(a, b)),
        (a, b) => a.or(b),
    };
    let mut incl = Vec::with_capacity(vals.len());
    let mut prefixes = Vec::new();
    let (mut y, mut p): (Option<P>, Option<P>) = (None, None);
    for (i, tile) in vals.chunks(SCAN_TILE).enumerate() {
        let local = scan_tile(tile, id, &f);
        let aggregate = local[SCAN_TILE - 1];
        let x = join(y, p);
        prefixes.push(x);
        match x {
            None => incl.extend_from_slice(&local[..tile.len()]),
            Some(x) => incl.extend(local[..tile.len()].iter().map(|&l| f(x, l))),
        }
        p = join(p, Some(aggregate));
        if i % group == group - 1 {
            y = join(y, p);
            p = None;
        }
    }
    (incl, prefixes)
}

/// The values widened to their accumulator type (f32 for the 16-bit floats), exactly.
pub(crate) fn widen<T: Element>(vals: &[T]) -> Vec<T::Acc> {
    vals.iter().map(|&x| x.to_acc()).collect()
}

/// device_scan in the canonical order; the 16-bit floats scan their values widened to f32 in
/// groups of SCAN_HALF_GROUP tiles and round every result once (SEMANTICS "Half precision",
/// "device_scan" step 5).
pub fn device_scan<T: Element>(vals: &[T], op: ReduceOp, kind: ScanKind) -> Vec<T> {
    if T::KIND.is_half() {
        return scan_grouped(&widen(vals), op, kind, SCAN_HALF_GROUP)
            .into_iter()
            .map(T::from_acc)
            .collect();
    }
    scan_grouped(vals, op, kind, 1)
}

/// device_scan of `vals` in their own type with tile prefixes in groups of `group` tiles. The
/// exclusive scan is the inclusive one shifted right by one, but for a tile's first position,
/// which gets the tile prefix X (step 6): the same bits where tiles advance one at a time.
fn scan_grouped<T: Element>(vals: &[T], op: ReduceOp, kind: ScanKind, group: usize) -> Vec<T> {
    let (incl, prefixes) = grouped_with_prefixes(vals, identity(op), |a, b| apply(op, a, b), group);
    match kind {
        ScanKind::Inclusive => incl,
        ScanKind::Exclusive => {
            let mut out = vec![identity(op)];
            out.extend_from_slice(&incl[..incl.len().saturating_sub(1)]);
            out.truncate(vals.len());
            for (i, x) in prefixes.iter().enumerate().skip(1) {
                out[i * SCAN_TILE] = x.expect("a tile after the first has a prefix");
            }
            out
        }
    }
}

/// One segment (or CSR row) with `vector` lanes: lane j folds items j, j+V, … from the
/// identity, then bfly over the V lanes. Empty gives the identity.
pub fn vector_reduce<T: Element>(items: &[T], vector: u32, op: ReduceOp) -> T {
    let v = vector as usize;
    let lanes: Vec<T> = (0..v)
        .map(|j| {
            items
                .iter()
                .skip(j)
                .step_by(v)
                .fold(identity(op), |acc, &x| apply(op, acc, x))
        })
        .collect();
    bfly(op, &lanes, v)
}

/// vector_reduce of a segment; the 16-bit floats (SEMANTICS "Half precision") widened to f32
/// first and the result rounded once.
fn widened_vector_reduce<T: Element>(items: &[T], vector: u32, op: ReduceOp) -> T {
    if T::KIND.is_half() {
        return T::from_acc(vector_reduce(&widen(items), vector, op));
    }
    vector_reduce(items, vector, op)
}

/// SEMANTICS `VectorSize::Auto`: the smallest power of two p with p >= mean / 2, where
/// mean = items / segments, clamped to 1..=32.
pub fn auto_vector(items: usize, segments: usize) -> u32 {
    let segments = segments.max(1);
    let mut p = 1usize;
    // p >= items / (2 * segments)  <=>  2 * p * segments >= items
    while 2 * p * segments < items && p < MAX_VECTOR as usize {
        p *= 2;
    }
    p as u32
}

/// The lanes `v` stands for on `items` items over `segments` segments (a fixed size resolves
/// `Auto` as one segment of `min(size, len)` items).
pub fn resolve_vector(v: VectorSize, items: usize, segments: usize) -> u32 {
    match v {
        VectorSize::Lanes(n) => n,
        VectorSize::Auto => auto_vector(items, segments),
    }
}

/// segmented_reduce over consecutive segments of `size` elements (the last may be short).
pub fn segmented_reduce_fixed<T: Element>(
    vals: &[T],
    size: usize,
    vector: u32,
    op: ReduceOp,
) -> Vec<T> {
    vals.chunks(size)
        .map(|seg| widened_vector_reduce(seg, vector, op))
        .collect()
}

/// segmented_reduce over the segments `offsets[i]..offsets[i + 1]`.
pub fn segmented_reduce_offsets<T: Element>(
    vals: &[T],
    offsets: &[u32],
    vector: u32,
    op: ReduceOp,
) -> Vec<T> {
    offsets
        .windows(2)
        .map(|w| widened_vector_reduce(&vals[w[0] as usize..w[1] as usize], vector, op))
        .collect()
}

/// spmv: row r is the vector reduce of the products `vals[k] * x[cols[k]]` of its entries.
pub fn spmv<T: Element>(
    row_offsets: &[u32],
    cols: &[u32],
    vals: &[T],
    x: &[T],
    vector: u32,
) -> Vec<T> {
    if T::KIND.is_half() {
        // SEMANTICS "Half precision": products and sums in f32, each row rounded once.
        let y = spmv(row_offsets, cols, &widen(vals), &widen(x), vector);
        return y.into_iter().map(T::from_acc).collect();
    }
    row_offsets
        .windows(2)
        .map(|w| {
            let items: Vec<T> = (w[0] as usize..w[1] as usize)
                .map(|k| mul(vals[k], x[cols[k] as usize]))
                .collect();
            vector_reduce(&items, vector, ReduceOp::Sum)
        })
        .collect()
}

/// IEEE comparisons, written without `Predicate::test`.
pub fn holds<T: Element>(pred: &Predicate<T>, x: T) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let cmp = |v: T| x.partial_cmp(&v);
    match *pred {
        Predicate::Lt(v) => cmp(v) == Some(Less),
        Predicate::Le(v) => matches!(cmp(v), Some(Less | Equal)),
        Predicate::Gt(v) => cmp(v) == Some(Greater),
        Predicate::Ge(v) => matches!(cmp(v), Some(Greater | Equal)),
        Predicate::Eq(v) => cmp(v) == Some(Equal),
        Predicate::Ne(v) => cmp(v) != Some(Equal),
        Predicate::InRange(lo, hi) => {
            matches!(lo.partial_cmp(&x), Some(Less | Equal)) && cmp(hi) == Some(Less)
        }
    }
}

/// count_if: the elements for which the predicate holds.
pub fn count_if<T: Element>(vals: &[T], pred: &Predicate<T>) -> u64 {
    vals.iter().filter(|&&x| holds(pred, x)).count() as u64
}

/// compact, stable: the selected elements in input order (unordered promises their multiset).
pub fn compact<T: Element>(vals: &[T], pred: &Predicate<T>) -> Vec<T> {
    vals.iter().copied().filter(|&x| holds(pred, x)).collect()
}

/// histogram: (counts per bin, keys at or past `bins`).
pub fn histogram(keys: &[u32], bins: u32) -> (Vec<u64>, u64) {
    let mut counts = vec![0u64; bins as usize];
    let mut outside = 0;
    for &k in keys {
        if k < bins {
            counts[k as usize] += 1;
        } else {
            outside += 1;
        }
    }
    (counts, outside)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_collectives_equal_plain_folds() {
        let v: Vec<u64> = (0..20_000u64).map(|i| i * i).collect();
        let total: u64 = v.iter().sum();
        assert_eq!(device_reduce(&v, ReduceOp::Sum), total);
        let scan = device_scan(&v, ReduceOp::Sum, ScanKind::Inclusive);
        let mut run = 0;
        for (i, &x) in v.iter().enumerate() {
            run += x;
            assert_eq!(scan[i], run, "at {i}");
        }
        let ex = device_scan(&v, ReduceOp::Sum, ScanKind::Exclusive);
        assert_eq!(ex[0], 0);
        assert_eq!(ex[19_999], run - v[19_999]);
        assert_eq!(
            block_reduce(&v[..100], 64, ReduceOp::Max),
            [63 * 63, 99 * 99]
        );
    }

    #[test]
    fn levels_of_device_reduce() {
        assert_eq!(device_reduce_levels(1), 1);
        assert_eq!(device_reduce_levels(REDUCE_TILE), 1);
        assert_eq!(device_reduce_levels(REDUCE_TILE + 1), 2);
        assert_eq!(device_reduce_levels(REDUCE_TILE * REDUCE_TILE), 2);
        assert_eq!(device_reduce_levels(REDUCE_TILE * REDUCE_TILE + 1), 3);
    }

    #[test]
    fn device_reduce_tile_layout_for_32_bit_types() {
        // Lane 0 of the 4-wide layout owns elements 0..4 and 1024..1028 (its next chunk), so
        // 1e8 and -1e8 cancel in lane 0 before lane 1's 1.0 joins; 16 consecutive elements a
        // lane would instead absorb the 1.0 into 1e8 and give 0.
        let mut v = vec![0.0f32; 4096];
        v[0] = 1.0e8;
        v[4] = 1.0;
        v[1024] = -1.0e8;
        assert_eq!(device_reduce(&v, ReduceOp::Sum), 1.0);
    }

    #[test]
    fn auto_vector_rule() {
        assert_eq!(auto_vector(8, 1), 4);
        assert_eq!(auto_vector(7, 1), 4);
        assert_eq!(auto_vector(9, 1), 8);
        assert_eq!(auto_vector(1000, 1), 32);
        assert_eq!(auto_vector(0, 5), 1);
        assert_eq!(auto_vector(10, 4), 2);
    }

    #[test]
    fn vector_reduce_strides() {
        // V = 2: lane 0 folds items 0, 2; lane 1 folds 1, 3; then one butterfly step.
        let v = [1.0e8f32, 1.0, -1.0e8, 1.0];
        assert_eq!(
            vector_reduce(&v, 2, ReduceOp::Sum),
            (1.0e8f32 + -1.0e8) + (1.0f32 + 1.0)
        );
        assert_eq!(
            vector_reduce::<f32>(&[], 4, ReduceOp::Sum).to_bits(),
            (-0.0f32).to_bits()
        );
        assert_eq!(histogram(&[0, 1, 1, 5, 9], 5), (vec![1, 2, 0, 0, 0], 2));
    }
}
