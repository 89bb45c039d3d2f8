//! The reduction ops and combining trees, written from docs/SEMANTICS.md alone. Deliberately
//! does not call `Element::combine` or `Element::identity`, so a bug there shows as a mismatch.

use wavekit_core::element::{ElemKind, Element};
use wavekit_core::op::ReduceOp;

/// (bits, signed) of an integer element kind; `None` for floats.
fn int_shape(kind: ElemKind) -> Option<(u32, bool)> {
    match kind {
        ElemKind::I32 => Some((32, true)),
        ElemKind::U32 => Some((32, false)),
        ElemKind::I64 => Some((64, true)),
        ElemKind::U64 => Some((64, false)),
        ElemKind::F32 | ElemKind::F64 | ElemKind::F16 | ElemKind::BF16 => None,
    }
}

fn low_bits(bits: u32) -> u64 {
    if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// The op's identity (SEMANTICS "Reduction ops": −0.0 for float Sum, ±inf for Min/Max).
pub fn identity<T: Element>(op: ReduceOp) -> T {
    let bits = match (T::KIND, op) {
        (ElemKind::F32, ReduceOp::Sum) => (-0.0f32).to_bits() as u64,
        (ElemKind::F32, ReduceOp::Product) => 1.0f32.to_bits() as u64,
        (ElemKind::F32, ReduceOp::Min) => f32::INFINITY.to_bits() as u64,
        (ElemKind::F32, ReduceOp::Max) => f32::NEG_INFINITY.to_bits() as u64,
        (ElemKind::F64, ReduceOp::Sum) => (-0.0f64).to_bits(),
        (ElemKind::F64, ReduceOp::Product) => 1.0f64.to_bits(),
        (ElemKind::F64, ReduceOp::Min) => f64::INFINITY.to_bits(),
        (ElemKind::F64, ReduceOp::Max) => f64::NEG_INFINITY.to_bits(),
        // The 16-bit floats' identities are f32's, which they hold exactly.
        (ElemKind::F16 | ElemKind::BF16, _) => return T::from_acc(identity::<T::Acc>(op)),
        (ElemKind::F32 | ElemKind::F64, _) => panic!("bitwise op {op:?} has no float identity"),
        (kind, op) => {
            let (bits, signed) = int_shape(kind).expect("integer kind");
            let all = low_bits(bits);
            let sign_bit = 1u64 << (bits - 1);
            match op {
                ReduceOp::Sum | ReduceOp::BitOr | ReduceOp::BitXor => 0,
                ReduceOp::Product => 1,
                ReduceOp::BitAnd => all,
                ReduceOp::Min if signed => all & !sign_bit,
                ReduceOp::Min => all,
                ReduceOp::Max if signed => sign_bit,
                ReduceOp::Max => 0,
            }
        }
    };
    T::from_bits(bits)
}

/// Integers on raw bits: wrap by masking, order by the sign-extended value.
fn int_apply(op: ReduceOp, x: u64, y: u64, bits: u32, signed: bool) -> u64 {
    let keep = low_bits(bits);
    let value = |v: u64| -> i128 {
        if signed && (v >> (bits - 1)) & 1 == 1 {
            v as i128 - (1i128 << bits)
        } else {
            v as i128
        }
    };
    match op {
        ReduceOp::Sum => x.wrapping_add(y) & keep,
        ReduceOp::Product => x.wrapping_mul(y) & keep,
        ReduceOp::Min => {
            if value(x) <= value(y) {
                x
            } else {
                y
            }
        }
        ReduceOp::Max => {
            if value(x) >= value(y) {
                x
            } else {
                y
            }
        }
        ReduceOp::BitAnd => x & y,
        ReduceOp::BitOr => x | y,
        ReduceOp::BitXor => x ^ y,
    }
}

macro_rules! float_apply {
    ($name:ident, $t:ty) => {
        /// IEEE add/multiply; Min/Max propagate NaN and order −0.0 below +0.0 (total_cmp does
        /// exactly that for non-NaN values).
        fn $name(op: ReduceOp, a: $t, b: $t) -> $t {
            match op {
                ReduceOp::Sum => a + b,
                ReduceOp::Product => a * b,
                ReduceOp::Min | ReduceOp::Max if a.is_nan() || b.is_nan() => <$t>::NAN,
                ReduceOp::Min => {
                    if a.total_cmp(&b).is_le() {
                        a
                    } else {
                        b
                    }
                }
                ReduceOp::Max => {
                    if a.total_cmp(&b).is_ge() {
                        a
                    } else {
                        b
                    }
                }
                _ => panic!("bitwise op {op:?} on a float"),
            }
        }
    };
}
float_apply!(f32_apply, f32);
float_apply!(f64_apply, f64);

/// `op(a, b)` as SEMANTICS defines it.
pub fn apply<T: Element>(op: ReduceOp, a: T, b: T) -> T {
    let (x, y) = (a.to_bits(), b.to_bits());
    let bits = match T::KIND {
        ElemKind::F32 => {
            f32_apply(op, f32::from_bits(x as u32), f32::from_bits(y as u32)).to_bits() as u64
        }
        ElemKind::F64 => f64_apply(op, f64::from_bits(x), f64::from_bits(y)).to_bits(),
        // One operation of the 16-bit floats: in f32, rounded once.
        ElemKind::F16 | ElemKind::BF16 => T::from_acc(apply(op, a.to_acc(), b.to_acc())).to_bits(),
        kind => {
            let (width, signed) = int_shape(kind).expect("integer kind");
            int_apply(op, x, y, width, signed)
        }
    };
    T::from_bits(bits)
}

/// SpMV's separate multiply (wrapping for integers, IEEE for floats, never fused).
pub fn mul<T: Element>(a: T, b: T) -> T {
    apply(ReduceOp::Product, a, b)
}

/// SEMANTICS "bfly": `vals` padded with the identity to `m` (a power of two), then for
/// d = m/2 … 1 every `v[i] = op(v[i], v[i ^ d])`, all reads before any write; result `v[0]`.
pub fn bfly<T: Element>(op: ReduceOp, vals: &[T], m: usize) -> T {
    assert!(
        m.is_power_of_two() && vals.len() <= m,
        "bfly over {} values in {m}",
        vals.len()
    );
    let mut v = vals.to_vec();
    v.resize(m, identity(op));
    let mut d = m / 2;
    while d >= 1 {
        let old = v.clone();
        for (i, slot) in v.iter_mut().enumerate() {
            *slot = apply(op, old[i], old[i ^ d]);
        }
        d /= 2;
    }
    v[0]
}

/// bfly padded to the next power of two at or above the length.
pub fn bfly_pow2<T: Element>(op: ReduceOp, vals: &[T]) -> T {
    bfly(op, vals, vals.len().max(1).next_power_of_two())
}

/// Inclusive Kogge-Stone scan of one segment of a `width`-lane group (the segment may be
/// shorter than `width`): for d = 1, 2, … < width, lanes `i >= d` take `op(v[i-d], v[i])`.
pub fn kogge_stone<T: Element>(op: ReduceOp, seg: &mut [T], width: usize) {
    kogge_stone_with(seg, width, &|a, b| apply(op, a, b));
}

/// [`kogge_stone`] over any combinable values, `f` standing for the op (left operand the lane
/// `d` below).
pub fn kogge_stone_with<P: Copy>(seg: &mut [P], width: usize, f: &impl Fn(P, P) -> P) {
    let mut d = 1;
    while d < width {
        let old = seg.to_vec();
        for i in d..seg.len() {
            seg[i] = f(old[i - d], old[i]);
        }
        d *= 2;
    }
}

/// SEMANTICS "group reduce": bfly within each logical group of 32 (padded), then bfly over the
/// group results (padded to a power of two).
pub fn group_reduce<T: Element>(op: ReduceOp, vals: &[T]) -> T {
    let group = wavekit_core::width::LOGICAL_GROUP as usize;
    let groups: Vec<T> = vals.chunks(group).map(|g| bfly(op, g, group)).collect();
    bfly_pow2(op, &groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_are_exact_for_hand_picked_values() {
        for op in ReduceOp::ALL {
            for x in [0i32, 1, -1, i32::MAX, i32::MIN, 12345] {
                assert_eq!(apply(op, identity::<i32>(op), x), x, "{op:?} {x}");
            }
            for x in [0u64, 1, u64::MAX, 1 << 63] {
                assert_eq!(apply(op, x, identity::<u64>(op)), x, "{op:?} {x}");
            }
        }
        for op in [
            ReduceOp::Sum,
            ReduceOp::Product,
            ReduceOp::Min,
            ReduceOp::Max,
        ] {
            for x in [
                0.0f32,
                -0.0,
                1.5,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::MIN_POSITIVE,
            ] {
                let got = apply(op, identity::<f32>(op), x);
                assert_eq!(got.to_bits(), x.to_bits(), "{op:?} {x}");
            }
        }
    }

    #[test]
    fn integer_ops_wrap_and_respect_sign() {
        assert_eq!(apply(ReduceOp::Sum, i32::MAX, 1), i32::MIN);
        assert_eq!(apply(ReduceOp::Sum, u32::MAX, 2), 1);
        assert_eq!(apply(ReduceOp::Product, i64::MAX, 2), -2);
        assert_eq!(apply(ReduceOp::Min, -1i32, 1), -1);
        assert_eq!(apply(ReduceOp::Min, u32::MAX, 1), 1);
        assert_eq!(apply(ReduceOp::Max, i64::MIN, -7), -7);
        assert_eq!(apply(ReduceOp::BitXor, 0b1100u32, 0b1010), 0b0110);
    }

    #[test]
    fn float_min_max_order_zeros_and_propagate_nan() {
        assert_eq!(
            apply(ReduceOp::Min, 0.0f64, -0.0).to_bits(),
            (-0.0f64).to_bits()
        );
        assert_eq!(
            apply(ReduceOp::Min, -0.0f64, 0.0).to_bits(),
            (-0.0f64).to_bits()
        );
        assert_eq!(
            apply(ReduceOp::Max, -0.0f32, 0.0).to_bits(),
            0.0f32.to_bits()
        );
        assert!(apply(ReduceOp::Max, f32::NAN, f32::INFINITY).is_nan());
        assert!(apply(ReduceOp::Min, 1.0f64, f64::NAN).is_nan());
        assert_eq!(
            apply(ReduceOp::Sum, -0.0f32, -0.0).to_bits(),
            (-0.0f32).to_bits()
        );
    }

    #[test]
    fn bfly_pairs_distance_half_first() {
        // bfly(a,b,c,d) = (a+c) + (b+d); pick floats where that differs from ((a+b)+c)+d.
        let v = [1.0e8f32, 1.0, -1.0e8, 1.0];
        assert_eq!(bfly_pow2(ReduceOp::Sum, &v), (v[0] + v[2]) + (v[1] + v[3]));
        assert_ne!(bfly_pow2(ReduceOp::Sum, &v), ((v[0] + v[1]) + v[2]) + v[3]);
    }

    #[test]
    fn kogge_stone_matches_hand_computation() {
        let mut v = [1u32, 2, 3, 4, 5];
        kogge_stone(ReduceOp::Sum, &mut v, 8);
        assert_eq!(v, [1, 3, 6, 10, 15]);
        // Width 2 only combines neighbours once.
        let mut w = [1u32, 2, 3, 4];
        kogge_stone(ReduceOp::Sum, &mut w, 2);
        assert_eq!(w, [1, 3, 5, 7]);
    }

    #[test]
    fn group_reduce_combines_within_groups_first() {
        // 64 values: groups of 32 reduce first, unlike a 64-lane butterfly (d = 32 first).
        let mut v = vec![0.0f32; 64];
        v[0] = 1.0e8;
        v[1] = 1.0;
        v[32] = -1.0e8;
        v[33] = 1.0;
        let g0 = 1.0e8f32 + 1.0;
        let g1 = -1.0e8f32 + 1.0;
        assert_eq!(group_reduce(ReduceOp::Sum, &v), g0 + g1);
        assert_eq!(
            bfly(ReduceOp::Sum, &v, 64),
            (1.0e8f32 + -1.0e8) + (1.0f32 + 1.0)
        );
    }
}
