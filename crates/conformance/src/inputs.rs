//! Deterministic inputs: masks, thread counts, values with the edge cases that expose bugs.

use super::Scale;
use wavekit_core::element::{ElemKind, Element, splitmix};
use wavekit_core::mask::LaneMask;
use wavekit_core::width::WarpWidth;
use wavekit_core::{Predicate, VectorSize};

/// The member masks every warp primitive is checked under, with printable names.
pub fn masks(w: WarpWidth, scale: Scale) -> Vec<(String, LaneMask)> {
    let n = w.lanes();
    let single = |l: u32| LaneMask::single(l, w).expect("lane in range");
    let random =
        |seed: u64| LaneMask::from_bits(splitmix(seed) & w.full_bits(), w).expect("in width");
    let mut all = vec![
        ("full".to_string(), LaneMask::full(w)),
        ("empty".into(), LaneMask::empty(w)),
        ("even".into(), LaneMask::from_fn(w, |l| l % 2 == 0)),
        ("odd".into(), LaneMask::from_fn(w, |l| l % 2 == 1)),
        ("lower half".into(), LaneMask::from_fn(w, |l| l < n / 2)),
        ("upper half".into(), LaneMask::from_fn(w, |l| l >= n / 2)),
        ("first lane".into(), single(0)),
        ("last lane".into(), single(n - 1)),
        ("middle lane".into(), single(n / 2 - 1)),
        ("random a".into(), random(0xA11CE)),
        ("random b".into(), random(0xB0B)),
        ("random c".into(), random(0xC0FFEE)),
    ];
    if scale == Scale::Small {
        let keep = [
            "full",
            "empty",
            "odd",
            "upper half",
            "last lane",
            "random a",
        ];
        all.retain(|(name, _)| keep.contains(&name.as_str()));
    }
    all
}

/// Launch sizes: one thread, partial and exact warps, and several warps with a partial tail.
pub fn thread_counts(w: WarpWidth, scale: Scale) -> Vec<usize> {
    let n = w.lanes() as usize;
    match scale {
        Scale::Full => vec![1, n - 1, n, n + 1, 3 * n + 5, 4 * n],
        Scale::Small => vec![1, n - 1, n + 1, 3 * n + 5],
    }
}

/// Every power of two from 1 to the warp width (64 included on a 64-lane backend).
pub fn sub_widths(w: WarpWidth) -> Vec<u32> {
    (0..)
        .map(|s| 1u32 << s)
        .take_while(|&x| x <= w.lanes())
        .collect()
}

/// Every tile size: powers of two from 2 to the warp width.
pub fn tile_sizes(w: WarpWidth) -> Vec<u32> {
    sub_widths(w).into_iter().filter(|&t| t >= 2).collect()
}

/// Finite values spread over the type (floats in [-1000, 1000) with full mantissas, so the
/// rounding of every combining order shows).
pub fn values<T: Element>(n: usize, seed: u64) -> Vec<T> {
    let base = splitmix(seed ^ 0x5EED);
    (0..n as u64)
        .map(|i| T::from_seed(base.wrapping_add(i)))
        .collect()
}

/// The edge values of a type: NaN, ±inf, ±0.0, extremes and subnormals for floats; MIN, MAX
/// and their neighbours for integers.
pub fn specials<T: Element>() -> Vec<T> {
    let bits: Vec<u64> = match T::KIND {
        ElemKind::F32 => [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            -0.0,
            0.0,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            1.0,
        ]
        .iter()
        .map(|x| x.to_bits() as u64)
        .collect(),
        ElemKind::F64 => [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -0.0,
            0.0,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            f64::from_bits(1),
            1.0,
        ]
        .iter()
        .map(|x| x.to_bits())
        .collect(),
        // NaN, ±inf, ±0, the largest finite magnitudes, the smallest normal, the smallest
        // subnormal, 1.0.
        ElemKind::F16 => vec![
            0x7E00, 0x7C00, 0xFC00, 0x8000, 0, 0x7BFF, 0xFBFF, 0x0400, 1, 0x3C00,
        ],
        ElemKind::BF16 => vec![
            0x7FC0, 0x7F80, 0xFF80, 0x8000, 0, 0x7F7F, 0xFF7F, 0x0080, 1, 0x3F80,
        ],
        ElemKind::I32 | ElemKind::U32 => {
            vec![
                0,
                1,
                0x7FFF_FFFF,
                0x7FFF_FFFE,
                0x8000_0000,
                0x8000_0001,
                0xFFFF_FFFF,
                0xFFFF_FFFE,
            ]
        }
        ElemKind::I64 | ElemKind::U64 => vec![
            0,
            1,
            i64::MAX as u64,
            i64::MAX as u64 - 1,
            i64::MIN as u64,
            i64::MIN as u64 + 1,
            u64::MAX,
            u64::MAX - 1,
            1 << 32,
        ],
    };
    bits.into_iter().map(T::from_bits).collect()
}

/// `values` with roughly one element in five replaced by a special value.
pub fn values_with_specials<T: Element>(n: usize, seed: u64) -> Vec<T> {
    let sp = specials::<T>();
    let mut v = values::<T>(n, seed);
    for (i, x) in v.iter_mut().enumerate() {
        let r = splitmix(seed.wrapping_mul(31).wrapping_add(i as u64));
        if r.is_multiple_of(5) {
            *x = sp[(r >> 8) as usize % sp.len()];
        }
    }
    v
}

/// Integers just below the type's maximum (floats: large finite values), so sums wrap or
/// overflow.
pub fn near_max<T: Element>(n: usize, seed: u64) -> Vec<T> {
    let max_bits: u64 = match T::KIND {
        ElemKind::I32 => 0x7FFF_FFFF,
        ElemKind::U32 => 0xFFFF_FFFF,
        ElemKind::I64 => i64::MAX as u64,
        ElemKind::U64 => u64::MAX,
        ElemKind::F32 => f32::MAX.to_bits() as u64,
        ElemKind::F64 => f64::MAX.to_bits(),
        ElemKind::F16 => 0x7BFF,
        ElemKind::BF16 => 0x7F7F,
    };
    (0..n as u64)
        .map(|i| T::from_bits(max_bits - splitmix(seed ^ i) % 1000))
        .collect()
}

pub fn bools(n: usize, seed: u64, one_in: u64) -> Vec<bool> {
    (0..n as u64)
        .map(|i| splitmix(seed.wrapping_add(i)).is_multiple_of(one_in))
        .collect()
}

/// Predicate patterns for votes: all true, all false, random halves, rare and common trues.
pub fn pred_patterns(n: usize, seed: u64) -> Vec<(&'static str, Vec<bool>)> {
    vec![
        ("all true", vec![true; n]),
        ("all false", vec![false; n]),
        ("random 1/2", bools(n, seed, 2)),
        ("random 1/9", bools(n, seed ^ 9, 9)),
        (
            "mostly true",
            bools(n, seed ^ 3, 9).into_iter().map(|b| !b).collect(),
        ),
    ]
}

/// Picks the full list or the small one.
pub fn pick<T: Clone>(scale: Scale, full: &[T], small: &[T]) -> Vec<T> {
    match scale {
        Scale::Full => full.to_vec(),
        Scale::Small => small.to_vec(),
    }
}

/// (name, values) inputs of `n` elements: random finite always; with `edge_cases` also values
/// with specials and values near the maximum.
pub fn value_sets<T: Element>(
    n: usize,
    seed: u64,
    edge_cases: bool,
) -> Vec<(&'static str, Vec<T>)> {
    let mut v = vec![("random", values(n, seed))];
    if edge_cases {
        v.push(("specials", values_with_specials(n, seed)));
        v.push(("near max", near_max(n, seed)));
    }
    v
}

/// Input lengths of count_if, compact and histogram: one element, under a warp, several
/// thousand, and past the selection tiles.
pub fn data_sizes(scale: Scale) -> Vec<usize> {
    pick(scale, &[1, 31, 1000, 4097, 20_001], &[1, 31, 1000])
}

/// Predicates around values present in `data`, with NaN thresholds (only `Ne` holds) and
/// ±0.0 (equal under IEEE).
pub fn predicates<T: Element>(data: &[T]) -> Vec<Predicate<T>> {
    let sp = specials::<T>();
    let (a, c) = (data[data.len() / 3], data[2 * data.len() / 3]);
    let (lo, hi) = if a < c { (a, c) } else { (c, a) };
    let mut p = vec![
        Predicate::Lt(a),
        Predicate::Le(a),
        Predicate::Gt(c),
        Predicate::Ge(c),
        Predicate::Eq(a),
        Predicate::Ne(a),
        Predicate::InRange(lo, hi),
        Predicate::InRange(hi, lo),
    ];
    p.extend(sp.iter().take(4).flat_map(|&s| {
        [
            Predicate::Eq(s),
            Predicate::Ne(s),
            Predicate::Lt(s),
            Predicate::Ge(s),
        ]
    }));
    p
}

/// Every vector size of segmented_reduce and spmv: each power of two and `Auto`.
pub fn vector_sizes() -> Vec<VectorSize> {
    let mut v: Vec<VectorSize> = [1, 2, 4, 8, 16, 32]
        .into_iter()
        .map(VectorSize::Lanes)
        .collect();
    v.push(VectorSize::Auto);
    v
}

/// Offsets of `count` segments: many empty, some long; `ends_empty` forces the first and last
/// segments to be empty.
pub fn random_offsets(count: usize, seed: u64, ends_empty: bool) -> Vec<u32> {
    let mut offsets = vec![0u32];
    for i in 0..count {
        let r = splitmix(seed ^ (i as u64) << 8);
        let len = match r % 10 {
            0..=2 => 0,
            3..=7 => 1 + (r >> 8) % 20,
            8 => 40 + (r >> 8) % 60,
            _ => 1,
        };
        let len = if ends_empty && (i == 0 || i + 1 == count) {
            0
        } else {
            len
        };
        offsets.push(offsets[i] + len as u32);
    }
    offsets
}

/// `n` keys in runs of 1 to `2 * mean_run - 1` equal keys drawn from a pool of few values (with
/// the specials: NaN runs, -0.0 beside 0.0), so neighbouring runs sometimes share a key and
/// merge, as real grouped data does.
pub fn run_keys<T: Element>(n: usize, seed: u64, mean_run: usize) -> Vec<T> {
    let mut pool = values_with_specials::<T>(6, seed);
    pool.extend(specials::<T>());
    let mut out = Vec::with_capacity(n);
    let mut r = seed;
    while out.len() < n {
        r = splitmix(r);
        let len = 1 + (r % (2 * mean_run.max(1) as u64 - 1).max(1)) as usize;
        let key = pool[(r >> 32) as usize % pool.len()];
        out.extend(std::iter::repeat_n(key, len.min(n - out.len())));
    }
    out
}
