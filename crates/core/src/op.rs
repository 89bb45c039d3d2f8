//! The reduction operators. Which element types each applies to is `ReduceOp::check`
//! (element.rs), so this module depends on nothing.

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
