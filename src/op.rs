//! Reduction operators and the predicates of count_if and compaction.

use crate::element::{ElemKind, Element};
use crate::error::{Result, WavekitError};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum ReduceOp {
    Sum = 0,
    Product = 1,
    Min = 2,
    Max = 3,
    BitAnd = 4,
    BitOr = 5,
    BitXor = 6,
}

impl ReduceOp {
    pub const ALL: [ReduceOp; 7] = [
        ReduceOp::Sum,
        ReduceOp::Product,
        ReduceOp::Min,
        ReduceOp::Max,
        ReduceOp::BitAnd,
        ReduceOp::BitOr,
        ReduceOp::BitXor,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Product => "product",
            ReduceOp::Min => "min",
            ReduceOp::Max => "max",
            ReduceOp::BitAnd => "bitand",
            ReduceOp::BitOr => "bitor",
            ReduceOp::BitXor => "bitxor",
        }
    }

    pub fn is_bitwise(self) -> bool {
        matches!(self, ReduceOp::BitAnd | ReduceOp::BitOr | ReduceOp::BitXor)
    }

    /// Bitwise ops on floats are refused: they have no meaning there.
    pub fn check<T: Element>(self) -> Result<()> {
        if self.is_bitwise() && T::KIND.is_float() {
            return Err(WavekitError::UnsupportedOp {
                op: self.name(),
                elem: T::KIND.name(),
            });
        }
        Ok(())
    }

    pub fn ops_for(kind: ElemKind) -> impl Iterator<Item = ReduceOp> {
        ReduceOp::ALL
            .into_iter()
            .filter(move |op| !(op.is_bitwise() && kind.is_float()))
    }
}

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
