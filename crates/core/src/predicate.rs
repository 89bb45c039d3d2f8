//! The predicates of count_if and compaction.

use crate::element::Element;

/// What count_if and compaction select. Comparisons are IEEE: NaN satisfies only `Ne`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Predicate<T> {
    Lt(T),
    Le(T),
    Gt(T),
    Ge(T),
    Eq(T),
    Ne(T),
    /// `lo <= x && x < hi`.
    InRange(T, T),
}

impl<T: Element> Predicate<T> {
    pub fn test(&self, x: T) -> bool {
        match *self {
            Predicate::Lt(v) => x < v,
            Predicate::Le(v) => x <= v,
            Predicate::Gt(v) => x > v,
            Predicate::Ge(v) => x >= v,
            Predicate::Eq(v) => x == v,
            Predicate::Ne(v) => x != v,
            Predicate::InRange(lo, hi) => lo <= x && x < hi,
        }
    }

    /// (code, a, b) as the device code reads it.
    pub fn encode(&self) -> (u32, u64, u64) {
        let z = T::default().to_bits();
        match *self {
            Predicate::Lt(v) => (0, v.to_bits(), z),
            Predicate::Le(v) => (1, v.to_bits(), z),
            Predicate::Gt(v) => (2, v.to_bits(), z),
            Predicate::Ge(v) => (3, v.to_bits(), z),
            Predicate::Eq(v) => (4, v.to_bits(), z),
            Predicate::Ne(v) => (5, v.to_bits(), z),
            Predicate::InRange(lo, hi) => (6, lo.to_bits(), hi.to_bits()),
        }
    }
}
