//! Sequential definition of docs/SEMANTICS.md "by_key": the device scan ("device_scan", steps
//! 1-6, the same tile code as `device_scan` in device.rs) over pairs `(head(e), values[e])`
//! with the segmented operator `(fa, a) ⊕ (fb, b) = (fa | fb, fb ? b : op(a, b))`.

use super::device::device_scan_with;
use super::ops::{apply, identity};
use super::runs::runs;
use wavekit_core::ScanKind;
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;

/// Whether key i starts a run: i = 0 or `keys[i] != keys[i - 1]` (IEEE `!=` for floats).
pub fn heads<K: Element>(keys: &[K]) -> Vec<bool> {
    (0..keys.len())
        .map(|i| i == 0 || keys[i] != keys[i - 1])
        .collect()
}

/// The segmented operator over (flag, value) pairs.
fn segmented<V: Element>(op: ReduceOp) -> impl Fn((bool, V), (bool, V)) -> (bool, V) {
    move |(fa, a), (fb, b)| (fa | fb, if fb { b } else { apply(op, a, b) })
}

/// scan_by_key of `values` (the keys' length) over the runs of `keys`; the 16-bit floats
/// combine in f32 and round each output once.
pub fn scan_by_key<K: Element, V: Element>(
    keys: &[K],
    values: &[V],
    op: ReduceOp,
    kind: ScanKind,
) -> Vec<V> {
    assert_eq!(keys.len(), values.len(), "one value per key");
    if V::KIND.is_half() {
        // SEMANTICS "Half precision": the same over the values widened to f32, each output
        // rounded once.
        let wide = scan_by_key(keys, &super::device::widen(values), op, kind);
        return wide.into_iter().map(V::from_acc).collect();
    }
    let head = heads(keys);
    let pairs: Vec<(bool, V)> = head.iter().copied().zip(values.iter().copied()).collect();
    // The padding (and E_0) is (0, identity).
    let incl = device_scan_with(&pairs, (false, identity::<V>(op)), segmented::<V>(op));
    match kind {
        ScanKind::Inclusive => incl.into_iter().map(|p| p.1).collect(),
        ScanKind::Exclusive => (0..keys.len())
            .map(|e| if head[e] { identity(op) } else { incl[e - 1].1 })
            .collect(),
    }
}

/// reduce_by_key: for each run in order, its first key and the inclusive scan_by_key value at
/// its last position.
pub fn reduce_by_key<K: Element, V: Element>(
    keys: &[K],
    values: &[V],
    op: ReduceOp,
) -> (Vec<K>, Vec<V>) {
    let incl = scan_by_key(keys, values, op, ScanKind::Inclusive);
    runs(keys)
        .into_iter()
        .map(|(first, len)| (keys[first], incl[first + len - 1]))
        .unzip()
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavekit_core::canonical::SCAN_TILE;

    #[test]
    fn integer_runs_are_plain_segmented_folds() {
        let keys = [1u32, 1, 1, 4, 4, 1];
        let vals = [1i32, 2, 3, 10, 20, 5];
        let incl = scan_by_key(&keys, &vals, ReduceOp::Sum, ScanKind::Inclusive);
        assert_eq!(incl, [1, 3, 6, 10, 30, 5]);
        let excl = scan_by_key(&keys, &vals, ReduceOp::Sum, ScanKind::Exclusive);
        assert_eq!(excl, [0, 1, 3, 0, 10, 0]);
        assert_eq!(
            reduce_by_key(&keys, &vals, ReduceOp::Max),
            (vec![1, 4, 1], vec![3, 20, 5])
        );
    }

    #[test]
    fn float_keys_compare_with_ieee_equality() {
        let keys = [0.0f32, -0.0, f32::NAN, f32::NAN, 2.0];
        let vals = [1u64, 2, 3, 4, 5];
        let (k, v) = reduce_by_key(&keys, &vals, ReduceOp::Sum);
        assert_eq!(v, [3, 3, 4, 5]);
        assert_eq!(k[0].to_bits(), 0.0f32.to_bits(), "the run's first key");
        let excl = scan_by_key(&keys, &vals, ReduceOp::Product, ScanKind::Exclusive);
        assert_eq!(excl, [1, 1, 1, 1, 1]);
    }

    #[test]
    fn long_integer_runs_across_tiles_match_a_sequential_fold() {
        let n = 3 * SCAN_TILE + 17;
        let keys: Vec<i64> = (0..n as i64).map(|i| i / 5000).collect();
        let vals: Vec<u64> = (0..n as u64).map(|i| i * i + 1).collect();
        let got = scan_by_key(&keys, &vals, ReduceOp::Sum, ScanKind::Inclusive);
        let mut acc = 0u64;
        for e in 0..n {
            acc = if e % 5000 == 0 {
                vals[e]
            } else {
                acc + vals[e]
            };
            assert_eq!(got[e], acc, "at {e}");
        }
    }

    #[test]
    fn float_order_is_the_scan_tree_restricted_to_the_run() {
        // One run over everything gives the plain device scan's bits.
        let n = 2 * SCAN_TILE + 100;
        let vals: Vec<f32> = (0..n)
            .map(|i| if i % 3 == 0 { 1.0e8 } else { 1.0 + i as f32 * 1e-3 } * if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        let keys = vec![7u32; n];
        let want = super::super::device_scan(&vals, ReduceOp::Sum, ScanKind::Inclusive);
        let got = scan_by_key(&keys, &vals, ReduceOp::Sum, ScanKind::Inclusive);
        assert!(
            want.iter()
                .zip(&got)
                .all(|(a, b)| a.to_bits() == b.to_bits())
        );
        // A run starting at element 5 of thread 1: its 16 items fold sequentially from the
        // head, then thread 2's total joins through the Kogge-Stone step.
        let mut keys = vec![0u32; 64];
        keys[21..].fill(1);
        let vals: Vec<f32> = (0..64)
            .map(|i| if i == 21 { 1.0e8 } else { 0.75 })
            .collect();
        let got = scan_by_key(&keys, &vals, ReduceOp::Sum, ScanKind::Inclusive);
        let mut s = 1.0e8f32;
        for _ in 22..32 {
            s += 0.75;
        }
        assert_eq!(got[31], s);
        let mut t2 = 0.75f32;
        for _ in 33..48 {
            t2 += 0.75;
        }
        assert_eq!(
            got[47],
            s + t2,
            "thread 2's total added to thread 1's run part"
        );
    }
}
