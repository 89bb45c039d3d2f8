//! partition and partition3 (docs/SEMANTICS.md "partition"): one pass per part, in input order.

use super::device::holds;
use wavekit_core::Predicate;
use wavekit_core::element::Element;

/// The elements for which `pred` holds, then the rest, each in input order; and how many hold.
pub fn partition<T: Element>(vals: &[T], pred: &Predicate<T>) -> (Vec<T>, usize) {
    let mut out: Vec<T> = vals.iter().copied().filter(|&x| holds(pred, x)).collect();
    let selected = out.len();
    out.extend(vals.iter().copied().filter(|&x| !holds(pred, x)));
    (out, selected)
}

/// The elements for which `first` holds, then those for which it does not and `second` does,
/// then the rest, each in input order; and the sizes of the first two parts.
pub fn partition3<T: Element>(
    vals: &[T],
    first: &Predicate<T>,
    second: &Predicate<T>,
) -> (Vec<T>, [usize; 2]) {
    let one: Vec<T> = vals.iter().copied().filter(|&x| holds(first, x)).collect();
    let two: Vec<T> = vals
        .iter()
        .copied()
        .filter(|&x| !holds(first, x) && holds(second, x))
        .collect();
    let rest = vals
        .iter()
        .copied()
        .filter(|&x| !holds(first, x) && !holds(second, x));
    let counts = [one.len(), two.len()];
    let mut out = one;
    out.extend(two);
    out.extend(rest);
    (out, counts)
}
