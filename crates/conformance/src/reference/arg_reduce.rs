//! argmin / argmax, from docs/SEMANTICS.md "arg_reduce": the first element (lowest index) that
//! no other element beats, where a NaN beats every number and, among numbers, the smaller
//! (argmin) or larger (argmax) value wins, `-0.0` counting as below `+0.0`. Written with plain
//! comparisons, not with `Element::order_bits` or `ArgOp::key` (the backends' tools).

use super::ops::identity;
use std::cmp::Ordering;
use wavekit_core::ArgOp;
use wavekit_core::element::Element;

fn is_nan<T: Element>(x: T) -> bool {
    x.partial_cmp(&x).is_none()
}

fn sign_bit<T: Element>(x: T) -> bool {
    let bits = T::KIND.size() as u32 * 8;
    T::KIND.is_float() && (x.to_bits() >> (bits - 1)) & 1 == 1
}

/// `a` strictly beats `b` (positions aside).
pub fn arg_beats<T: Element>(a: T, b: T, op: ArgOp) -> bool {
    match (is_nan(a), is_nan(b)) {
        (true, true) | (false, true) => false,
        (true, false) => true,
        (false, false) => match (a.partial_cmp(&b).expect("numbers"), op) {
            (Ordering::Less, ArgOp::Min) | (Ordering::Greater, ArgOp::Max) => true,
            (Ordering::Equal, ArgOp::Min) => sign_bit(a) && !sign_bit(b),
            (Ordering::Equal, ArgOp::Max) => !sign_bit(a) && sign_bit(b),
            _ => false,
        },
    }
}

/// The selected element of `vals` and its position; `None` when empty.
pub fn arg_reduce<T: Element>(vals: &[T], op: ArgOp) -> Option<(T, usize)> {
    let mut best = None::<usize>;
    for (i, &x) in vals.iter().enumerate() {
        match best {
            Some(b) if !arg_beats(x, vals[b], op) => {}
            _ => best = Some(i),
        }
    }
    best.map(|b| (vals[b], b))
}

/// One (value, input index) per segment `[start, end)`; an empty one gives the op's identity
/// and `u32::MAX`.
pub fn segmented_arg_reduce<T: Element>(
    vals: &[T],
    segments: &[(usize, usize)],
    op: ArgOp,
) -> (Vec<T>, Vec<u32>) {
    segments
        .iter()
        .map(|&(s, e)| match arg_reduce(&vals[s..e], op) {
            Some((v, i)) => (v, (s + i) as u32),
            None => (identity(op.reduce_op()), u32::MAX),
        })
        .unzip()
}

/// The segments of fixed `size` over `n` elements (the last may be short).
pub fn fixed_segments(n: usize, size: usize) -> Vec<(usize, usize)> {
    (0..n.div_ceil(size))
        .map(|s| (s * size, n.min((s + 1) * size)))
        .collect()
}

/// The segments `[offsets[i], offsets[i + 1])`.
pub fn offset_segments(offsets: &[u32]) -> Vec<(usize, usize)> {
    offsets
        .windows(2)
        .map(|w| (w[0] as usize, w[1] as usize))
        .collect()
}

/// Per lane, its segment's (of `width` lanes) selected value and lane within the segment.
pub fn warp_arg_reduce<T: Element>(vals: &[T], width: u32, op: ArgOp) -> Vec<(T, u32)> {
    let mut out = Vec::with_capacity(vals.len());
    for seg in vals.chunks(width as usize) {
        let (v, i) = arg_reduce(seg, op).expect("chunks are non-empty");
        out.extend(std::iter::repeat_n((v, i as u32), seg.len()));
    }
    out
}
