//! The reduction operators. Which element types each applies to is `ReduceOp::check`
//! (element.rs), so this module depends on nothing.

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
}
