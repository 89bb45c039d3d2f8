//! How elements combine and which one is selected: [`ReduceOp`], the reduction operators
//! (which element types each applies to is `ReduceOp::check`, element.rs), and [`ArgOp`], the
//! selection of an arg reduce.

use crate::element::Element;

/// How a reduction or scan combines two elements. Integers wrap; float semantics (signed
/// zeros, NaN) are in docs/SEMANTICS.md. The bitwise ops apply to integers only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum ReduceOp {
    /// `a + b`.
    Sum = 0,
    /// `a * b`.
    Product = 1,
    /// The smaller of the two.
    Min = 2,
    /// The larger of the two.
    Max = 3,
    /// `a & b` (integers).
    BitAnd = 4,
    /// `a | b` (integers).
    BitOr = 5,
    /// `a ^ b` (integers).
    BitXor = 6,
}

impl ReduceOp {
    /// Every op, in code order.
    pub const ALL: [ReduceOp; 7] = [
        ReduceOp::Sum,
        ReduceOp::Product,
        ReduceOp::Min,
        ReduceOp::Max,
        ReduceOp::BitAnd,
        ReduceOp::BitOr,
        ReduceOp::BitXor,
    ];

    /// The op's lower-case name: `"sum"`, `"bitand"`, ...
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

    /// `true` for `BitAnd`, `BitOr` and `BitXor`.
    pub fn is_bitwise(self) -> bool {
        matches!(self, ReduceOp::BitAnd | ReduceOp::BitOr | ReduceOp::BitXor)
    }
}

/// Which element an arg reduce selects: the first (lowest index) smallest or largest one. A NaN
/// anywhere is selected over every number, for both (the first NaN, as numpy and torch do);
/// `-0.0` orders below `+0.0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum ArgOp {
    /// The first minimum (argmin).
    Min = 0,
    /// The first maximum (argmax).
    Max = 1,
}

impl ArgOp {
    /// Both ops, in code order.
    pub const ALL: [ArgOp; 2] = [ArgOp::Min, ArgOp::Max];

    /// `"argmin"` or `"argmax"`.
    pub fn name(self) -> &'static str {
        match self {
            ArgOp::Min => "argmin",
            ArgOp::Max => "argmax",
        }
    }

    /// The reduction op of the same direction (`ReduceOp::Min` or `ReduceOp::Max`).
    pub fn reduce_op(self) -> ReduceOp {
        match self {
            ArgOp::Min => ReduceOp::Min,
            ArgOp::Max => ReduceOp::Max,
        }
    }

    /// What an empty segment's value is: the identity of [`reduce_op`](Self::reduce_op)
    /// (`T::MAX` or `+inf` for `Min`, `T::MIN` or `-inf` for `Max`).
    pub fn identity<T: Element>(self) -> T {
        T::identity(self.reduce_op())
    }

    /// The selection key of `v`: the element selected is the one of the smallest key, ties to
    /// the lower index. Any NaN is 0 (so the first NaN wins); otherwise `Min` takes
    /// [`order_bits`](Element::order_bits) and `Max` its bit complement, neither of which is 0
    /// for a number.
    ///
    /// ```
    /// use wavekit_core::ArgOp;
    /// assert!(ArgOp::Min.key(-0.0f32) < ArgOp::Min.key(0.0f32));
    /// assert!(ArgOp::Max.key(7u32) < ArgOp::Max.key(3u32));
    /// assert_eq!(ArgOp::Max.key(f64::NAN), 0);
    /// ```
    #[inline]
    pub fn key<T: Element>(self, v: T) -> u64 {
        if T::KIND.is_float() && v.partial_cmp(&v).is_none() {
            return 0;
        }
        match self {
            ArgOp::Min => v.order_bits(),
            ArgOp::Max => !v.order_bits(),
        }
    }
}
