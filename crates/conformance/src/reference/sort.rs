//! Sorting, from docs/SEMANTICS.md "sort", "segmented_sort" and "top_k": every result is a
//! permutation given by a sequential stable sort of positions by the keys' ranks.

use wavekit_core::SortOrder;
use wavekit_core::element::{ElemKind, Element};

/// The rank SEMANTICS defines for a key: its bits as an unsigned integer of the key's width,
/// the sign bit flipped for signed integers and non-negative floats, every bit flipped for
/// negative floats; then bits `begin..end` of that; then, descending, the bit complement of
/// those bits.
pub fn sort_rank<K: Element>(k: K, order: SortOrder) -> u64 {
    let width = K::KIND.size() as u32 * 8;
    let sign = 1u64 << (width - 1);
    let all = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let raw = k.to_bits() & all;
    let total = match K::KIND {
        ElemKind::U32 | ElemKind::U64 => raw,
        ElemKind::I32 | ElemKind::I64 => raw ^ sign,
        _ if raw & sign != 0 => !raw & all,
        // The floats, 16-bit ones included.
        _ => raw | sign,
    };
    let (begin, end) = order.bit_range().unwrap_or((0, width));
    let field = if end - begin == 64 {
        u64::MAX
    } else {
        (1u64 << (end - begin)) - 1
    };
    let picked = (total >> begin) & field;
    if order.is_descending() {
        field - picked
    } else {
        picked
    }
}

/// The input positions of the stable sort of `keys` by `order`, in output order.
pub fn sort_permutation<K: Element>(keys: &[K], order: SortOrder) -> Vec<usize> {
    let mut pos: Vec<usize> = (0..keys.len()).collect();
    // `sort_by_key` is stable: equal ranks keep their positions' order.
    pos.sort_by_key(|&i| sort_rank(keys[i], order));
    pos
}

/// The input positions of each segment `[start, end)` sorted on its own, concatenated (the
/// segments cover the input in order).
pub fn segmented_permutation<K: Element>(
    keys: &[K],
    segments: &[(usize, usize)],
    order: SortOrder,
) -> Vec<usize> {
    let mut out = Vec::with_capacity(keys.len());
    for &(start, end) in segments {
        let local = sort_permutation(&keys[start..end], order);
        out.extend(local.into_iter().map(|i| start + i));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ranks order floats as `total_cmp` and integers as `Ord`: the rule restated above
    /// is the one SEMANTICS means.
    #[test]
    fn ranks_follow_total_order() {
        let f = [
            f32::from_bits(0xFFC0_0001),
            f32::NEG_INFINITY,
            -1.5,
            -0.0,
            0.0,
            f32::from_bits(1),
            2.0,
            f32::INFINITY,
            f32::NAN,
        ];
        for w in f.windows(2) {
            assert!(w[0].total_cmp(&w[1]).is_lt());
            assert!(sort_rank(w[0], SortOrder::ASCENDING) < sort_rank(w[1], SortOrder::ASCENDING));
            assert!(
                sort_rank(w[0], SortOrder::DESCENDING) > sort_rank(w[1], SortOrder::DESCENDING)
            );
        }
        let i = [i64::MIN, -1, 0, 1, i64::MAX];
        for w in i.windows(2) {
            assert!(sort_rank(w[0], SortOrder::ASCENDING) < sort_rank(w[1], SortOrder::ASCENDING));
        }
        assert_eq!(sort_rank(0x1234u32, SortOrder::ASCENDING.bits(4, 12)), 0x23);
        assert_eq!(
            sort_rank(0x1234u32, SortOrder::DESCENDING.bits(4, 12)),
            0xFF - 0x23
        );
    }
}
