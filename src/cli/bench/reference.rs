//! Plain sequential definitions of the canonical combining order (docs/SEMANTICS.md), written
//! from the spec and independently of every backend, so the bench can refuse a wrong result
//! bit for bit before it times anything, on the CPU oracle too.

use crate::canonical::{
    REDUCE_ITEMS_PER_LANE, REDUCE_TILE, REDUCE_TILE_LANES, SCAN_ITEMS_PER_THREAD, SCAN_TILE,
};
use crate::element::Element;
use crate::op::ReduceOp;
use crate::width::LOGICAL_GROUP;

/// The butterfly of SEMANTICS.md, padded with the identity to a power of two. Each step
/// combines lane i with lane i + half; by commutativity that is lane 0's view of `v[i ^ d]`.
pub fn bfly<T: Element>(op: ReduceOp, values: &[T]) -> T {
    let mut v = values.to_vec();
    v.resize(values.len().max(1).next_power_of_two(), T::identity(op));
    while v.len() > 1 {
        let half = v.len() / 2;
        for i in 0..half {
            v[i] = T::combine(op, v[i], v[i + half]);
        }
        v.truncate(half);
    }
    v[0]
}

/// Butterflies over logical groups of 32, then one over the group results.
fn group_reduce<T: Element>(op: ReduceOp, values: &[T]) -> T {
    let groups: Vec<T> = values
        .chunks(LOGICAL_GROUP as usize)
        .map(|g| bfly(op, g))
        .collect();
    bfly(op, &groups)
}

pub fn device_reduce<T: Element>(op: ReduceOp, input: &[T]) -> T {
    assert!(
        !input.is_empty(),
        "device reduce needs at least one element"
    );
    let v = 16 / T::KIND.size();
    let chunk = REDUCE_TILE_LANES * v;
    let partials: Vec<T> = input
        .chunks(REDUCE_TILE)
        .map(|tile| {
            let at = |e: usize| tile.get(e).copied().unwrap_or(T::identity(op));
            let lanes: Vec<T> = (0..REDUCE_TILE_LANES)
                .map(|lane| {
                    let mut acc = T::identity(op);
                    for c in 0..REDUCE_ITEMS_PER_LANE / v {
                        for slot in 0..v {
                            acc = T::combine(op, acc, at(c * chunk + lane * v + slot));
                        }
                    }
                    acc
                })
                .collect();
            group_reduce(op, &lanes)
        })
        .collect();
    if partials.len() == 1 {
        partials[0]
    } else {
        device_reduce(op, &partials)
    }
}

/// Kogge-Stone inclusive scan of one segment.
fn kogge_stone<T: Element>(op: ReduceOp, v: &mut [T]) {
    let mut d = 1;
    while d < v.len() {
        let before = v.to_vec();
        for i in d..v.len() {
            v[i] = T::combine(op, before[i - d], before[i]);
        }
        d *= 2;
    }
}

/// The local inclusive scan of one padded scan tile.
fn scan_tile<T: Element>(op: ReduceOp, tile: &[T]) -> Vec<T> {
    let items = SCAN_ITEMS_PER_THREAD;
    let group = LOGICAL_GROUP as usize;
    let threads: Vec<Vec<T>> = tile
        .chunks(items)
        .map(|x| {
            let mut s = x.to_vec();
            for k in 1..s.len() {
                s[k] = T::combine(op, s[k - 1], s[k]);
            }
            s
        })
        .collect();
    let mut w: Vec<T> = threads.iter().map(|s| s[items - 1]).collect();
    for g in w.chunks_mut(group) {
        kogge_stone(op, g);
    }
    let mut u: Vec<T> = w.chunks(group).map(|g| g[group - 1]).collect();
    kogge_stone(op, &mut u);
    let mut out = Vec::with_capacity(tile.len());
    for (t, s) in threads.iter().enumerate() {
        let g = t / group;
        let e = if g == 0 { T::identity(op) } else { u[g - 1] };
        let p = if t % group == 0 {
            e
        } else {
            T::combine(op, e, w[t - 1])
        };
        out.extend(s.iter().map(|&x| T::combine(op, p, x)));
    }
    out
}

pub fn device_scan_inclusive<T: Element>(op: ReduceOp, input: &[T]) -> Vec<T> {
    let mut out = Vec::with_capacity(input.len());
    let mut prefix: Option<T> = None;
    for tile in input.chunks(SCAN_TILE) {
        let mut padded = tile.to_vec();
        padded.resize(SCAN_TILE, T::identity(op));
        let local = scan_tile(op, &padded);
        match prefix {
            None => out.extend_from_slice(&local[..tile.len()]),
            Some(x) => out.extend(local[..tile.len()].iter().map(|&l| T::combine(op, x, l))),
        }
        let aggregate = local[SCAN_TILE - 1];
        prefix = Some(prefix.map_or(aggregate, |x| T::combine(op, x, aggregate)));
    }
    out
}

/// One segment (or CSR row) of `items` with `vector` lanes: strided folds, then a butterfly.
pub fn vector_reduce<T: Element>(op: ReduceOp, items: &[T], vector: usize) -> T {
    let lanes: Vec<T> = (0..vector)
        .map(|j| {
            items
                .iter()
                .skip(j)
                .step_by(vector)
                .fold(T::identity(op), |a, &x| T::combine(op, a, x))
        })
        .collect();
    bfly(op, &lanes)
}

pub fn segmented_reduce<T: Element>(
    op: ReduceOp,
    input: &[T],
    offsets: &[u32],
    vector: usize,
) -> Vec<T> {
    offsets
        .windows(2)
        .map(|w| vector_reduce(op, &input[w[0] as usize..w[1] as usize], vector))
        .collect()
}

pub fn spmv<T: Element>(
    row_offsets: &[u32],
    cols: &[u32],
    vals: &[T],
    x: &[T],
    vector: usize,
) -> Vec<T> {
    row_offsets
        .windows(2)
        .map(|w| {
            let (a, b) = (w[0] as usize, w[1] as usize);
            let items: Vec<T> = (a..b)
                .map(|k| T::mul(vals[k], x[cols[k] as usize]))
                .collect();
            vector_reduce(ReduceOp::Sum, &items, vector)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfly_pairs_halves_first() {
        // ((1+5)+(3+7)) + ((2+6)+(4+8)) written out by hand for m = 8.
        let v = [1i64, 2, 3, 4, 5, 6, 7, 8];
        assert_eq!(bfly(ReduceOp::Sum, &v), 36);
        // Float association shows: the halves pairing gives (1e8 + -1e8) + (1 + 1) = 2.
        let f = [1e8f32, 1.0, -1e8, 1.0];
        assert_eq!(bfly(ReduceOp::Sum, &f), 2.0);
    }

    #[test]
    fn reduce_and_scan_agree_with_plain_integer_sums() {
        let n = 3 * REDUCE_TILE + 17;
        let x: Vec<i64> = (0..n as i64).map(|i| i * 7 - 5000).collect();
        assert_eq!(device_reduce(ReduceOp::Sum, &x), x.iter().sum::<i64>());
        let scan = device_scan_inclusive(ReduceOp::Sum, &x);
        let mut run = 0;
        for (i, &s) in scan.iter().enumerate() {
            run += x[i];
            assert_eq!(s, run, "index {i}");
        }
    }

    #[test]
    fn vector_reduce_folds_strided_lanes() {
        // V = 2: lane 0 folds 1.0, 3.0; lane 1 folds 2.0, 4.0; then 4.0 + 6.0.
        assert_eq!(
            vector_reduce(ReduceOp::Sum, &[1.0f32, 2.0, 3.0, 4.0], 2),
            10.0
        );
        assert_eq!(
            vector_reduce(ReduceOp::Sum, &[] as &[f32], 4).to_bits(),
            (-0.0f32).to_bits()
        );
        let y = spmv(&[0, 2, 2], &[1, 0], &[2.0f64, 3.0], &[10.0, 100.0], 1);
        assert_eq!(y, vec![230.0, -0.0]);
    }
}
