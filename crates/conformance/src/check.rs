//! Comparison helpers: each returns `Err` naming the first mismatch (where, expected, got).

use std::fmt::Debug;
use wavekit_core::element::Element;
use wavekit_core::error::WavekitError;

/// An element with its bits, so a -0.0/+0.0 or NaN-payload mismatch is visible.
pub fn show<T: Element>(x: T) -> String {
    format!("{x:?} (bits {:#x})", x.to_bits())
}

pub fn show_opt<T: Element>(x: Option<T>) -> String {
    x.map_or_else(|| "None".to_string(), show)
}

/// A backend call that had to succeed.
pub fn ok<R>(ctx: &str, r: wavekit_core::error::Result<R>) -> Result<R, String> {
    r.map_err(|e| format!("{ctx}: unexpected error: {e}"))
}

fn len_check(ctx: &str, expected: usize, got: usize) -> Result<(), String> {
    if expected == got {
        Ok(())
    } else {
        Err(format!("{ctx}: expected {expected} results, got {got}"))
    }
}

/// Elements, bit for bit (any NaN equal to any NaN, as SEMANTICS says payloads are not
/// compared).
pub fn same_elems<T: Element>(
    ctx: &str,
    what: &str,
    expected: &[T],
    got: &[T],
) -> Result<(), String> {
    len_check(ctx, expected.len(), got.len())?;
    for (i, (&e, &g)) in expected.iter().zip(got).enumerate() {
        if !e.same(g) {
            return Err(format!(
                "{ctx}: {what} {i}: expected {}, got {}",
                show(e),
                show(g)
            ));
        }
    }
    Ok(())
}

/// Per-lane optional elements: `None` must match `None`, values bit for bit.
pub fn same_lanes<T: Element>(
    ctx: &str,
    expected: &[Option<T>],
    got: &[Option<T>],
) -> Result<(), String> {
    len_check(ctx, expected.len(), got.len())?;
    for (i, (&e, &g)) in expected.iter().zip(got).enumerate() {
        let equal = match (e, g) {
            (None, None) => true,
            (Some(a), Some(b)) => a.same(b),
            _ => false,
        };
        if !equal {
            return Err(format!(
                "{ctx}: lane {i}: expected {}, got {}",
                show_opt(e),
                show_opt(g)
            ));
        }
    }
    Ok(())
}

/// Per-lane results of any comparable type (votes, masks).
pub fn eq_lanes<R: PartialEq + Debug>(ctx: &str, expected: &[R], got: &[R]) -> Result<(), String> {
    len_check(ctx, expected.len(), got.len())?;
    for (i, (e, g)) in expected.iter().zip(got).enumerate() {
        if e != g {
            return Err(format!("{ctx}: lane {i}: expected {e:?}, got {g:?}"));
        }
    }
    Ok(())
}

pub fn eq<R: PartialEq + Debug>(ctx: &str, expected: R, got: R) -> Result<(), String> {
    if expected == got {
        Ok(())
    } else {
        Err(format!("{ctx}: expected {expected:?}, got {got:?}"))
    }
}

/// A call that had to fail with an error `want` accepts (`desc` says which).
pub fn fails<R>(
    ctx: &str,
    r: wavekit_core::error::Result<R>,
    desc: &str,
    want: impl Fn(&WavekitError) -> bool,
) -> Result<(), String> {
    match r {
        Err(e) if want(&e) => Ok(()),
        Err(e) => Err(format!("{ctx}: expected {desc}, got error {e:?}")),
        Ok(_) => Err(format!("{ctx}: expected {desc}, got Ok")),
    }
}

/// `check::fails` with a pattern: `expect_err!(ctx, call, WavekitError::X { .. })`.
macro_rules! expect_err {
    ($ctx:expr, $call:expr, $pat:pat $(if $guard:expr)?) => {
        $crate::check::fails(
            &$ctx,
            $call,
            stringify!($pat $(if $guard)?),
            |e| matches!(e, $pat $(if $guard)?),
        )
    };
}
pub(crate) use expect_err;
