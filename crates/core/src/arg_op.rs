//! Which element an arg reduce selects ([`ArgOp`]): a vocabulary type of the raw layer and the
//! API alike, so it lives below both (the API re-exports it as `api::ArgOp`).

use crate::element::Element;
use crate::op::ReduceOp;

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
