//! docs/SEMANTICS.md's canonical order transcribed as directly as possible: whole-array steps
//! with copies, index formulas per element, no shared code with the backend. Slow on purpose.
// Index loops mirror the spec's subscripts (s[t][k], u[g - 1]) on purpose.
#![allow(clippy::needless_range_loop)]

use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;

fn op<T: Element>(o: ReduceOp, a: T, b: T) -> T {
    T::combine(o, a, b)
}

/// bfly over `vals` padded with the identity to `m` lanes: for d = m/2 … 1, every
/// `v[i] = op(v[i], v[i ^ d])` from the previous step's values; the result is v[0].
pub fn bfly<T: Element>(o: ReduceOp, vals: &[T], m: usize) -> T {
    let mut v = vals.to_vec();
    v.resize(m, T::identity(o));
    let mut d = m / 2;
    while d >= 1 {
        let prev = v.clone();
        for i in 0..m {
            v[i] = op(o, prev[i], prev[i ^ d]);
        }
        d /= 2;
    }
    v[0]
}

/// Group reduce: bfly over each group of 32, then bfly over the groups (padded).
pub fn group_reduce<T: Element>(o: ReduceOp, vals: &[T]) -> T {
    let groups: Vec<T> = vals.chunks(32).map(|g| bfly(o, g, 32)).collect();
    bfly(o, &groups, groups.len().next_power_of_two())
}

/// Kogge-Stone inclusive scan of one segment, every step from a copy of the previous one.
pub fn kogge_stone<T: Element>(o: ReduceOp, seg: &[T]) -> Vec<T> {
    let mut v = seg.to_vec();
    let mut d = 1;
    while d < v.len() {
        let prev = v.clone();
        for i in d..v.len() {
            v[i] = op(o, prev[i - d], prev[i]);
        }
        d *= 2;
    }
    v
}

/// Device reduce: tiles of 4096, 256 lanes, element e of a tile in lane (e % (256 V)) / V,
/// each lane folding in increasing e (= chunk, then slot), group reduce of the lanes,
/// recursion over the partials.
pub fn device_reduce<T: Element>(o: ReduceOp, x: &[T]) -> T {
    let v = 16 / size_of::<T>();
    let id = T::identity(o);
    let tiles = x.len().div_ceil(4096);
    let mut partials = Vec::new();
    for i in 0..tiles {
        let mut acc = vec![id; 256];
        for e in 0..4096 {
            let item = x.get(i * 4096 + e).copied().unwrap_or(id);
            let lane = (e % (256 * v)) / v;
            acc[lane] = op(o, acc[lane], item);
        }
        partials.push(group_reduce(o, &acc));
    }
    if tiles == 1 {
        partials[0]
    } else {
        device_reduce(o, &partials)
    }
}

/// Device scan, inclusive, steps 1-6 of the spec in order.
pub fn device_scan_inclusive<T: Element>(o: ReduceOp, x: &[T]) -> Vec<T> {
    let id = T::identity(o);
    let tiles = x.len().div_ceil(4096);
    let mut local = Vec::new(); // L per tile
    let mut aggregates = Vec::new();
    for i in 0..tiles {
        let item = |e: usize| x.get(i * 4096 + e).copied().unwrap_or(id);
        // 1. s_k per thread.
        let mut s = vec![vec![id; 16]; 256];
        for t in 0..256 {
            s[t][0] = item(16 * t);
            for k in 1..16 {
                s[t][k] = op(o, s[t][k - 1], item(16 * t + k));
            }
        }
        // 2. w within groups of 32, U over the 8 group totals.
        let a: Vec<T> = (0..256).map(|t| s[t][15]).collect();
        let w: Vec<T> = a.chunks(32).flat_map(|g| kogge_stone(o, g)).collect();
        let totals: Vec<T> = (0..8).map(|g| w[32 * g + 31]).collect();
        let u = kogge_stone(o, &totals);
        // 3. thread prefixes.
        let p: Vec<T> = (0..256)
            .map(|t| {
                let (g, lane) = (t / 32, t % 32);
                let e = if g == 0 { id } else { u[g - 1] };
                if lane == 0 { e } else { op(o, e, w[t - 1]) }
            })
            .collect();
        // 4. local inclusive values and the aggregate.
        let l: Vec<T> = (0..4096)
            .map(|e| op(o, p[e / 16], s[e / 16][e % 16]))
            .collect();
        aggregates.push(l[4095]);
        local.push(l);
    }
    // 5. tile prefixes by a left fold.
    let mut out = Vec::new();
    let mut prefix = id;
    for i in 0..tiles {
        if i == 1 {
            prefix = aggregates[0];
        } else if i > 1 {
            prefix = op(o, prefix, aggregates[i - 1]);
        }
        for e in 0..4096 {
            if i * 4096 + e < x.len() {
                out.push(if i == 0 {
                    local[i][e]
                } else {
                    op(o, prefix, local[i][e])
                });
            }
        }
    }
    out
}
