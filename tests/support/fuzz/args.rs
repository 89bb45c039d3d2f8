//! Strategies, the documented rules written independently of the API, and the check of one
//! call, shared by the fuzz families.

use super::Tally;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use wavekit::{Element, Predicate, ReduceOp, SortOrder, VectorSize, WavekitError};

/// Lengths that matter: empty, around a warp and a few warps, and up to several scan tiles.
pub fn len() -> impl Strategy<Value = usize> {
    prop_oneof![
        4 => 0usize..200,
        2 => (0usize..4).prop_flat_map(|k| (k * 32).saturating_sub(2)..k * 32 + 3),
        1 => 200usize..9000,
    ]
}

/// Small numbers with the edges: 0, powers of two and their neighbours, `u32::MAX`.
pub fn small_u32() -> impl Strategy<Value = u32> {
    prop_oneof![
        4 => 0u32..70,
        2 => (0u32..11).prop_map(|s| 1 << s),
        1 => Just(u32::MAX),
        1 => any::<u32>(),
    ]
}

/// A vector size: mostly a valid one, sometimes any number of lanes.
pub fn vector() -> impl Strategy<Value = VectorSize> {
    prop_oneof![
        2 => Just(VectorSize::Auto),
        3 => (0u32..6).prop_map(|s| VectorSize::Lanes(1 << s)),
        1 => small_u32().prop_map(VectorSize::Lanes),
    ]
}

/// Mostly an op defined on every type, sometimes a bitwise one (refused on floats).
pub fn op() -> impl Strategy<Value = ReduceOp> {
    prop_oneof![
        3 => proptest::sample::select(vec![ReduceOp::Sum, ReduceOp::Product, ReduceOp::Min, ReduceOp::Max]),
        1 => proptest::sample::select(ReduceOp::ALL.to_vec()),
    ]
}

/// A predicate of any kind over floats, specials included.
pub fn predicate() -> impl Strategy<Value = Predicate<f32>> {
    let v = prop_oneof![any::<f32>(), -2000.0f32..2000.0];
    (0u8..7, v.clone(), v).prop_map(|(k, a, b)| match k {
        0 => Predicate::Lt(a),
        1 => Predicate::Le(a),
        2 => Predicate::Gt(a),
        3 => Predicate::Ge(a),
        4 => Predicate::Eq(a),
        5 => Predicate::Ne(a),
        _ => Predicate::InRange(a.min(b), a.max(b)),
    })
}

// ---- the documented rules, written here independently of the API -------------------------

/// `x` is a power of two no larger than `max`.
pub fn pow2_upto(x: u32, max: u32) -> bool {
    x != 0 && x & (x - 1) == 0 && x <= max
}

/// The op is defined on `T` (bitwise ops are not defined on floats).
pub fn op_ok<T: Element>(op: ReduceOp) -> bool {
    !(T::KIND.is_float() && matches!(op, ReduceOp::BitAnd | ReduceOp::BitOr | ReduceOp::BitXor))
}

/// A vector size the API accepts.
pub fn vector_ok(v: VectorSize) -> bool {
    match v {
        VectorSize::Auto => true,
        VectorSize::Lanes(n) => pow2_upto(n, 32),
    }
}

/// Offsets that start at 0, never decrease and end at `len`.
pub fn offsets_ok(offsets: &[u32], len: usize) -> bool {
    !offsets.is_empty()
        && offsets[0] == 0
        && offsets.windows(2).all(|w| w[0] <= w[1])
        && *offsets.last().unwrap() as usize == len
}

// ---- checking one call ------------------------------------------------------------------

/// The property for one call: `Err` exactly when `valid` is false, and then a typed error
/// (any `WavekitError` but a device failure, which no argument should cause); when valid,
/// `check` compares the result with the reference.
pub fn judge<R>(
    valid: bool,
    r: Result<R, WavekitError>,
    check: impl FnOnce(R) -> Result<(), TestCaseError>,
) -> Result<Tally, TestCaseError> {
    match (valid, r) {
        (true, Ok(v)) => check(v).map(|()| Tally::MATCHED),
        (_, Err(WavekitError::Device { .. })) => Err(TestCaseError::fail("a device failure")),
        (true, Err(_)) => Err(TestCaseError::fail("valid arguments refused")),
        (false, Err(_)) => Ok(Tally::REFUSED),
        (false, Ok(_)) => Err(TestCaseError::fail("invalid arguments accepted")),
    }
}

/// `judge` with the error itself in the failure message.
pub fn judged<R>(
    what: &str,
    valid: bool,
    r: Result<R, WavekitError>,
    check: impl FnOnce(R) -> Result<(), TestCaseError>,
) -> Result<Tally, TestCaseError> {
    let shown = match &r {
        Err(e) => format!("error {e:?}"),
        Ok(_) => "Ok".into(),
    };
    judge(valid, r, check).map_err(|e| TestCaseError::fail(format!("{what}: {e} ({shown})")))
}

/// Equal bit for bit (floats by their bits), element by element.
pub fn same<T: Element>(want: &[T], got: &[T]) -> Result<(), TestCaseError> {
    prop_assert_eq!(want.len(), got.len());
    for (i, (a, b)) in want.iter().zip(got).enumerate() {
        prop_assert!(a.same(*b), "element {}: want {:?}, got {:?}", i, a, b);
    }
    Ok(())
}

/// Equal lane by lane: both undefined, or both defined and equal bit for bit.
pub fn same_lanes<T: Element>(want: &[Option<T>], got: &[Option<T>]) -> Result<(), TestCaseError> {
    prop_assert_eq!(want.len(), got.len());
    for (i, (a, b)) in want.iter().zip(got).enumerate() {
        let eq = match (a, b) {
            (None, None) => true,
            (Some(x), Some(y)) => x.same(*y),
            _ => false,
        };
        prop_assert!(eq, "lane {}: want {:?}, got {:?}", i, a, b);
    }
    Ok(())
}

/// A backend call's error as a test failure (for calls whose arguments are all valid).
pub fn a_unwrap<T>(r: Result<T, WavekitError>) -> Result<T, TestCaseError> {
    r.map_err(|e| TestCaseError::fail(e.to_string()))
}

/// An order, with a bit range drawn inside and around a 32-bit key.
pub fn order_arg() -> impl Strategy<Value = SortOrder> {
    (
        any::<bool>(),
        prop_oneof![2 => Just(None), 1 => (0u32..34, 0u32..34).prop_map(Some)],
    )
        .prop_map(|(desc, bits)| {
            let o = if desc {
                SortOrder::DESCENDING
            } else {
                SortOrder::ASCENDING
            };
            match bits {
                Some((a, b)) => o.bits(a, b),
                None => o,
            }
        })
}

/// The documented rule for an order's bit range over keys of `bits` bits.
pub fn order_ok(order: SortOrder, bits: u32) -> bool {
    order.bit_range().is_none_or(|(a, b)| a < b && b <= bits)
}
