//! partition and partition3 (docs/SEMANTICS.md "partition"): one pass per part, in input order;
//! the reversed forms (docs/SEMANTICS.md "partition_reversed") reverse the rest afterwards.

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

/// The elements for which `pred` holds in input order, then the rest in reverse input order;
/// and how many hold.
pub fn partition_reversed<T: Element>(vals: &[T], pred: &Predicate<T>) -> (Vec<T>, usize) {
    let (mut out, selected) = partition(vals, pred);
    out[selected..].reverse();
    (out, selected)
}

/// The three parts of the three-way reversed partition: those for which `first` holds and
/// those for which it does not and `second` does, each in input order, and the rest in reverse
/// input order.
pub fn partition3_reversed<T: Element>(
    vals: &[T],
    first: &Predicate<T>,
    second: &Predicate<T>,
) -> (Vec<T>, Vec<T>, Vec<T>) {
    let (all, [one, two]) = partition3(vals, first, second);
    let mut rest = all[one + two..].to_vec();
    rest.reverse();
    (all[..one].to_vec(), all[one..one + two].to_vec(), rest)
}
