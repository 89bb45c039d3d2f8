//! Element types a collective can carry, and the exact combining rules of each reduction op.

use crate::error::{Result, WavekitError};
use crate::vocab::ReduceOp;
use std::fmt::Debug;

/// The element types wavekit moves through kernels. Sealed: the device code is compiled for
/// exactly these eight. The two 16-bit floats ([`f16`](struct@f16), [`bf16`]) are storage types: their Sum
/// and Product accumulate in `f32` ([`Element::Acc`]) and round once (docs/COLLECTIVES.md,
/// "Half precision"). Every collective of one device takes them; wavekit-dist's refuse them
/// with `UnsupportedType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum ElemKind {
    /// `i32`.
    I32 = 0,
    /// `u32`.
    U32 = 1,
    /// `i64`.
    I64 = 2,
    /// `u64`.
    U64 = 3,
    /// `f32`.
    F32 = 4,
    /// `f64`.
    F64 = 5,
    /// IEEE binary16 ([`f16`](struct@f16)).
    F16 = 6,
    /// bfloat16 ([`bf16`]): the top half of an `f32`.
    BF16 = 7,
}

impl ElemKind {
    /// Every element type, in code order.
    pub const ALL: [ElemKind; 8] = [
        ElemKind::I32,
        ElemKind::U32,
        ElemKind::I64,
        ElemKind::U64,
        ElemKind::F32,
        ElemKind::F64,
        ElemKind::F16,
        ElemKind::BF16,
    ];

    /// The Rust type's name: `"i32"`, ..., `"f64"`.
    pub fn name(self) -> &'static str {
        match self {
            ElemKind::I32 => "i32",
            ElemKind::U32 => "u32",
            ElemKind::I64 => "i64",
            ElemKind::U64 => "u64",
            ElemKind::F32 => "f32",
            ElemKind::F64 => "f64",
            ElemKind::F16 => "f16",
            ElemKind::BF16 => "bf16",
        }
    }

    /// Bytes per element: 2, 4 or 8.
    pub fn size(self) -> usize {
        match self {
            ElemKind::F16 | ElemKind::BF16 => 2,
            ElemKind::I32 | ElemKind::U32 | ElemKind::F32 => 4,
            ElemKind::I64 | ElemKind::U64 | ElemKind::F64 => 8,
        }
    }

    /// `true` for the four float types.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElemKind::F32 | ElemKind::F64 | ElemKind::F16 | ElemKind::BF16
        )
    }

    /// `true` for the 16-bit floats, whose arithmetic runs in `f32` ([`Element::Acc`]).
    pub fn is_half(self) -> bool {
        matches!(self, ElemKind::F16 | ElemKind::BF16)
    }

    /// `Ok` unless this is a 16-bit float and `collective` does not take those yet.
    ///
    /// # Errors
    /// `UnsupportedType` naming the collective and the type.
    pub fn check_full(self, collective: &'static str) -> Result<()> {
        if self.is_half() {
            return Err(WavekitError::UnsupportedType {
                collective,
                elem: self.name(),
            });
        }
        Ok(())
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A plain value type with no padding and every bit pattern valid.
pub trait Element:
    sealed::Sealed + Copy + Send + Sync + Debug + Default + PartialEq + PartialOrd + 'static
{
    /// The runtime tag of this type.
    const KIND: ElemKind;

    /// The type arithmetic runs in: `Self` for the six 32- and 64-bit types, `f32` for
    /// [`f16`](struct@f16) and [`bf16`]. A collective that combines values converts each input with
    /// [`to_acc`](Self::to_acc) (exact), combines in `Acc` in the canonical order, and rounds
    /// each result once with [`from_acc`](Self::from_acc) (to nearest, ties to even).
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// // 1 and three halves of f16's unit in the last place at 1.0 (2^-11 each).
    /// let x = [1.0, 2f32.powi(-11), 2f32.powi(-11), 2f32.powi(-11)].map(f16::from_f32);
    /// let input = cpu.upload(&x)?;
    /// // Summed in f32 (1 + 3·2^-11, halfway between two f16 values), rounded once to the even
    /// // one; summing in f16 would have stayed at 1.0.
    /// assert_eq!(cpu.reduce(&input, ReduceOp::Sum)?, f16::from_f32(1.0 + 2f32.powi(-9)));
    /// let mut out = cpu.alloc::<f16>(4)?;
    /// cpu.scan(&input, &mut out, ReduceOp::Sum, ScanKind::Inclusive)?;
    /// let ulp = 2f32.powi(-10);
    /// let want = [1.0, 1.0, 1.0 + ulp, 1.0 + 2.0 * ulp].map(f16::from_f32);
    /// assert_eq!(cpu.download(&out)?, want);
    /// // Selections compare exactly: of 1.0 and the three small values, one is at least 1.0.
    /// assert_eq!(cpu.count_if(&input, Predicate::Ge(f16::ONE))?, 1);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    type Acc: Element;
    /// The value in the accumulator type, exactly.
    fn to_acc(self) -> Self::Acc;
    /// The accumulator value rounded to this type (to nearest, ties to even; a NaN stays NaN).
    fn from_acc(acc: Self::Acc) -> Self;

    /// The op's identity e with `combine(op, e, x)` bit-identical to x for every x
    /// (−0.0 for float Sum, +inf for float Min; see docs/SEMANTICS.md).
    fn identity(op: ReduceOp) -> Self;
    /// The op as every backend computes it: integers wrap, floats follow SEMANTICS.md.
    /// Commutative bit for bit (NaN payloads aside), so lane order inside a pair never matters.
    fn combine(op: ReduceOp, a: Self, b: Self) -> Self;
    /// Wrapping product for SpMV (`a * b`, no fused multiply-add).
    fn mul(a: Self, b: Self) -> Self;
    /// The value's bits, zero-extended to 64 (floats bit for bit, not converted).
    fn to_bits(self) -> u64;
    /// The value whose `to_bits` is `bits` (high bits past the type's size are dropped).
    fn from_bits(bits: u64) -> Self;
    /// Equality as the conformance suite means it: bit-identical, any NaN equal to any NaN.
    fn same(self, other: Self) -> bool;
    /// A deterministic test value from a seed: spread over the type's range, floats finite.
    fn from_seed(seed: u64) -> Self;
    /// The value converted to `f64` (rounded for 64-bit integers past 2^53).
    fn to_f64(self) -> f64;
    /// The key as the sorts order it (docs/SEMANTICS.md "sort"): an unsigned integer of the
    /// type's width, zero-extended to 64 bits, whose ascending order is the keys' order.
    /// Unsigned keys as they are; signed keys with the sign bit flipped; floats with the sign
    /// bit flipped when it is clear and every bit flipped when it is set, which orders
    /// -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN (NaNs by their payload bits, as
    /// `total_cmp`).
    fn order_bits(self) -> u64;
}

/// The six 32- and 64-bit types are their own accumulator type.
macro_rules! self_acc {
    ($t:ty) => {
        type Acc = $t;
        #[inline]
        fn to_acc(self) -> Self {
            self
        }
        #[inline]
        fn from_acc(acc: Self) -> Self {
            acc
        }
    };
}

macro_rules! int_element {
    ($t:ty, $kind:ident, $ut:ty) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const KIND: ElemKind = ElemKind::$kind;
            self_acc!($t);
            #[inline]
            fn identity(op: ReduceOp) -> Self {
                match op {
                    ReduceOp::Sum | ReduceOp::BitOr | ReduceOp::BitXor => 0,
                    ReduceOp::Product => 1,
                    ReduceOp::Min => <$t>::MAX,
                    ReduceOp::Max => <$t>::MIN,
                    ReduceOp::BitAnd => !0,
                }
            }
            #[inline]
            fn combine(op: ReduceOp, a: Self, b: Self) -> Self {
                match op {
                    ReduceOp::Sum => a.wrapping_add(b),
                    ReduceOp::Product => a.wrapping_mul(b),
                    ReduceOp::Min => a.min(b),
                    ReduceOp::Max => a.max(b),
                    ReduceOp::BitAnd => a & b,
                    ReduceOp::BitOr => a | b,
                    ReduceOp::BitXor => a ^ b,
                }
            }
            #[inline]
            fn mul(a: Self, b: Self) -> Self {
                a.wrapping_mul(b)
            }
            #[inline]
            fn to_bits(self) -> u64 {
                self as $ut as u64
            }
            #[inline]
            fn from_bits(bits: u64) -> Self {
                bits as $ut as $t
            }
            fn same(self, other: Self) -> bool {
                self == other
            }
            fn from_seed(seed: u64) -> Self {
                splitmix(seed) as $ut as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn order_bits(self) -> u64 {
                // Signed types: flipping the sign bit maps MIN..=MAX onto 0..=UMAX in order.
                let sign: $ut = if <$t>::MIN == 0 {
                    0
                } else {
                    1 << (<$ut>::BITS - 1)
                };
                ((self as $ut) ^ sign) as u64
            }
        }
    };
}

int_element!(i32, I32, u32);
int_element!(u32, U32, u32);
int_element!(i64, I64, u64);
int_element!(u64, U64, u64);

macro_rules! float_element {
    ($t:ty, $kind:ident, $bits:ty) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const KIND: ElemKind = ElemKind::$kind;
            self_acc!($t);
            #[inline]
            fn identity(op: ReduceOp) -> Self {
                match op {
                    ReduceOp::Sum => -0.0,
                    ReduceOp::Product => 1.0,
                    ReduceOp::Min => <$t>::INFINITY,
                    ReduceOp::Max => <$t>::NEG_INFINITY,
                    // Bitwise ops are rejected for floats before any backend runs.
                    ReduceOp::BitAnd | ReduceOp::BitOr | ReduceOp::BitXor => <$t>::NAN,
                }
            }
            #[inline]
            fn combine(op: ReduceOp, a: Self, b: Self) -> Self {
                match op {
                    ReduceOp::Sum => a + b,
                    ReduceOp::Product => a * b,
                    ReduceOp::Min => {
                        // NaN propagates; -0.0 orders below +0.0, so the result is commutative.
                        if a.is_nan() {
                            a
                        } else if b.is_nan() {
                            b
                        } else if a < b {
                            a
                        } else if b < a {
                            b
                        } else if a.is_sign_negative() {
                            a
                        } else {
                            b
                        }
                    }
                    ReduceOp::Max => {
                        if a.is_nan() {
                            a
                        } else if b.is_nan() {
                            b
                        } else if a > b {
                            a
                        } else if b > a {
                            b
                        } else if a.is_sign_positive() {
                            a
                        } else {
                            b
                        }
                    }
                    ReduceOp::BitAnd | ReduceOp::BitOr | ReduceOp::BitXor => <$t>::NAN,
                }
            }
            #[inline]
            fn mul(a: Self, b: Self) -> Self {
                a * b
            }
            #[inline]
            fn to_bits(self) -> u64 {
                <$t>::to_bits(self) as u64
            }
            #[inline]
            fn from_bits(bits: u64) -> Self {
                <$t>::from_bits(bits as $bits)
            }
            fn same(self, other: Self) -> bool {
                (self.is_nan() && other.is_nan()) || <$t>::to_bits(self) == <$t>::to_bits(other)
            }
            fn from_seed(seed: u64) -> Self {
                // Values in [-1000, 1000) with a varied mantissa: sums round, so order shows.
                (unit_draw(seed) * 2000.0 - 1000.0) as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn order_bits(self) -> u64 {
                let bits = <$t>::to_bits(self);
                let sign: $bits = 1 << (<$bits>::BITS - 1);
                // Negative floats order by decreasing magnitude: all bits flipped.
                (if bits & sign != 0 { !bits } else { bits | sign }) as u64
            }
        }
    };
}

float_element!(f32, F32, u32);
float_element!(f64, F64, u64);

pub use half::{bf16, f16};

/// The 16-bit floats: values live in 16 bits, arithmetic in `f32`. `combine` rounds after the
/// one operation (what a single combine of two stored values gives); the collectives that take
/// these types instead combine in `f32` throughout and round once ([`Element::Acc`]).
macro_rules! half_element {
    ($t:ident, $kind:ident) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const KIND: ElemKind = ElemKind::$kind;
            type Acc = f32;
            #[inline]
            fn to_acc(self) -> f32 {
                self.to_f32()
            }
            #[inline]
            fn from_acc(acc: f32) -> Self {
                $t::from_f32(acc)
            }
            #[inline]
            fn identity(op: ReduceOp) -> Self {
                $t::from_f32(f32::identity(op))
            }
            #[inline]
            fn combine(op: ReduceOp, a: Self, b: Self) -> Self {
                $t::from_f32(f32::combine(op, a.to_f32(), b.to_f32()))
            }
            #[inline]
            fn mul(a: Self, b: Self) -> Self {
                $t::from_f32(a.to_f32() * b.to_f32())
            }
            #[inline]
            fn to_bits(self) -> u64 {
                $t::to_bits(self) as u64
            }
            #[inline]
            fn from_bits(bits: u64) -> Self {
                $t::from_bits(bits as u16)
            }
            fn same(self, other: Self) -> bool {
                (self.is_nan() && other.is_nan()) || $t::to_bits(self) == $t::to_bits(other)
            }
            fn from_seed(seed: u64) -> Self {
                // Values in [-8, 8), rounded to the type's 11 (f16) or 8 (bf16) significant bits.
                $t::from_f64(unit_draw(seed) * 16.0 - 8.0)
            }
            fn to_f64(self) -> f64 {
                $t::to_f64(self)
            }
            #[inline]
            fn order_bits(self) -> u64 {
                let bits = $t::to_bits(self);
                (if bits & 0x8000 != 0 {
                    !bits
                } else {
                    bits | 0x8000
                }) as u64
            }
        }
    };
}

half_element!(f16, F16);
half_element!(bf16, BF16);

/// SplitMix64: a tiny, well-mixed generator so test inputs need no RNG crate.
pub fn splitmix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform draw in [0, 1) from `seed`: the top 53 bits of its splitmix, as an f64.
fn unit_draw(seed: u64) -> f64 {
    (splitmix(seed) >> 11) as f64 / (1u64 << 53) as f64
}

/// Views a slice of elements as bytes, for copies to and from devices.
pub fn as_bytes<T: Element>(data: &[T]) -> &[u8] {
    // SAFETY: every Element is a primitive integer or float: no padding, any bits valid.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data)) }
}

/// Views a mutable slice of elements as bytes, for copies from devices.
pub fn as_bytes_mut<T: Element>(data: &mut [T]) -> &mut [u8] {
    // SAFETY: as in `as_bytes`; every bit pattern written is a valid T.
    unsafe {
        std::slice::from_raw_parts_mut(data.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(data))
    }
}

/// Which ops apply to which element types (kept here so that op.rs needs no element types).
impl ReduceOp {
    /// Bitwise ops on floats are refused: they have no meaning there.
    ///
    /// # Errors
    /// `UnsupportedOp` for a bitwise op on a float type.
    pub fn check<T: Element>(self) -> Result<()> {
        if self.is_bitwise() && T::KIND.is_float() {
            return Err(WavekitError::UnsupportedOp {
                op: self.name(),
                elem: T::KIND.name(),
            });
        }
        Ok(())
    }

    /// The ops that apply to `kind`: all seven for integers, the non-bitwise four for floats.
    pub fn ops_for(kind: ElemKind) -> impl Iterator<Item = ReduceOp> {
        ReduceOp::ALL
            .into_iter()
            .filter(move |op| !(op.is_bitwise() && kind.is_float()))
    }
}
