//! The combining shapes of docs/SEMANTICS.md ("Canonical combining order") as plain loops:
//! butterfly, group reduce and Kogge-Stone. Every CPU collective is built from these, so the
//! association of each result is exactly the one the GPU kernels use.

/// Runs `$body` with `$f` bound to a closure `(T, T) -> T` for one fixed op, so hot loops are
/// compiled once per op with the op's branch resolved outside the loop.
macro_rules! with_op {
    ($t:ty, $op:expr, |$f:ident| $body:expr) => {{
        use wavekit_core::ReduceOp as R;
        match $op {
            R::Sum => {
                let $f = |a: $t, b: $t| <$t as wavekit_core::Element>::combine(R::Sum, a, b);
                $body
            }
            R::Product => {
                let $f = |a: $t, b: $t| <$t as wavekit_core::Element>::combine(R::Product, a, b);
                $body
            }
            R::Min => {
                let $f = |a: $t, b: $t| <$t as wavekit_core::Element>::combine(R::Min, a, b);
                $body
            }
            R::Max => {
                let $f = |a: $t, b: $t| <$t as wavekit_core::Element>::combine(R::Max, a, b);
                $body
            }
            R::BitAnd => {
                let $f = |a: $t, b: $t| <$t as wavekit_core::Element>::combine(R::BitAnd, a, b);
                $body
            }
            R::BitOr => {
                let $f = |a: $t, b: $t| <$t as wavekit_core::Element>::combine(R::BitOr, a, b);
                $body
            }
            R::BitXor => {
                let $f = |a: $t, b: $t| <$t as wavekit_core::Element>::combine(R::BitXor, a, b);
                $body
            }
        }
    }};
}
pub(crate) use with_op;

use wavekit_core::canonical::MAX_GROUPS;
use wavekit_core::element::Element;
use wavekit_core::width::LOGICAL_GROUP;

const GROUP: usize = LOGICAL_GROUP as usize;

/// bfly(v): for d = m/2 … 1, `v[i] = op(v[i], v[i ^ d])`; returns `v[0]`. Only the lower half
/// is computed at each step: the op is commutative bit for bit, so `v[i]` for `i < d` is all
/// the final `v[0]` depends on. `v.len()` must be a power of two.
#[inline]
pub(crate) fn bfly<T: Copy>(v: &mut [T], f: impl Fn(T, T) -> T) -> T {
    debug_assert!(v.len().is_power_of_two());
    let mut d = v.len() / 2;
    while d > 0 {
        let (lo, hi) = v.split_at_mut(d);
        for (a, &b) in lo.iter_mut().zip(&hi[..d]) {
            *a = f(*a, b);
        }
        d /= 2;
    }
    v[0]
}

/// bfly over `vals` padded with `id` to `width` lanes (a power of two, at most 64).
#[inline]
pub(crate) fn bfly_padded<T: Element>(vals: &[T], width: usize, id: T, f: impl Fn(T, T) -> T) -> T {
    let mut v = [id; 64];
    v[..vals.len()].copy_from_slice(vals);
    bfly(&mut v[..width], f)
}

/// bfly_padded in `T::Acc`: each value widened exactly, the result rounded once (no-ops for
/// the types that are their own accumulator; f32 for the 16-bit floats).
#[inline]
pub(crate) fn bfly_padded_acc<T: Element>(
    vals: &[T],
    width: usize,
    id: T::Acc,
    f: impl Fn(T::Acc, T::Acc) -> T::Acc,
) -> T {
    let mut v = [id; 64];
    for (l, &x) in v.iter_mut().zip(vals) {
        *l = x.to_acc();
    }
    T::from_acc(bfly(&mut v[..width], f))
}

/// Group reduce: bfly over each logical group of 32 (identity-padded), then bfly over the
/// `groups` group results padded to a power of two. `vals` holds at most `groups * 32` values;
/// the missing ones are the identity.
#[inline]
pub(crate) fn group_reduce<T: Element>(
    vals: &[T],
    groups: usize,
    id: T,
    f: impl Fn(T, T) -> T + Copy,
) -> T {
    debug_assert!(groups <= MAX_GROUPS as usize && vals.len() <= groups * GROUP);
    let mut g = [id; MAX_GROUPS as usize];
    for (gk, group) in g.iter_mut().zip(vals.chunks(GROUP)) {
        *gk = bfly_padded(group, GROUP, id, f);
    }
    bfly(&mut g[..groups.next_power_of_two()], f)
}

/// Inclusive Kogge-Stone scan of one segment in place: for d = 1, 2, 4, … below the segment
/// width, lane i (i >= d) takes `op(v[i - d], v[i])`, every lane reading before any writes.
/// A short last segment simply has fewer lanes: lanes past its end are never read.
#[inline]
pub(crate) fn kogge_stone<T: Copy>(v: &mut [T], f: impl Fn(T, T) -> T) {
    let mut d = 1;
    while d < v.len() {
        // Walking down keeps v[i - d] at its value from before this step.
        for i in (d..v.len()).rev() {
            v[i] = f(v[i - d], v[i]);
        }
        d *= 2;
    }
}
