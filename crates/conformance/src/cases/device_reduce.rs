//! device_reduce: the canonical combining order bit for bit, over one to three levels of
//! tiles; an empty input is refused.

use crate::Scale;
use crate::check::{eq, expect_err, ok, show};
use crate::inputs::{pick, value_sets, values};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::api::Collectives;
use wavekit_core::canonical::REDUCE_TILE;
use wavekit_core::element::Element;
use wavekit_core::error::WavekitError as E;
use wavekit_core::op::ReduceOp;

/// `reduce` of `vals` on `b` against the reference, bit for bit.
pub(crate) fn check_reduce<T: Element, B: RawBackend>(
    b: &B,
    ctx: &str,
    vals: &[T],
    op: ReduceOp,
) -> Result<(), String> {
    let buf = ok(ctx, b.upload(vals))?;
    let got = ok(ctx, b.reduce(&buf, op))?;
    let want = reference::device_reduce(vals, op);
    if want.same(got) {
        Ok(())
    } else {
        Err(format!("{ctx}: expected {}, got {}", show(want), show(got)))
    }
}

fn device_reduce_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let t = REDUCE_TILE;
    // One element, one partial tile, exactly a tile, one over, several tiles, not a multiple
    // of the tile, and enough tiles for a second pass over the partials.
    // Every op on the small sizes; the large ones (several tiles, a second pass) with Sum,
    // whose float rounding shows any other order, and Max.
    let small = pick(scale, &[1, 2, 31, 1000, t - 1, t + 1], &[1, 31, t + 1]);
    let large = pick(scale, &[t, 3 * t, 5 * t + 123, 17 * t + 1], &[3 * t + 5]);
    for op in ReduceOp::ops_for(T::KIND) {
        let big_too = matches!(op, ReduceOp::Sum | ReduceOp::Max);
        for &n in small.iter().chain(large.iter().filter(|_| big_too)) {
            for (vname, vals) in value_sets::<T>(n, n as u64 * 3 + op as u64, n < t) {
                check_reduce(
                    b,
                    &format!("{op:?} {} n={n} {vname}", T::KIND.name()),
                    &vals,
                    op,
                )?;
            }
        }
    }
    Ok(())
}

pub fn device_reduce<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(device_reduce_typed(b, scale));
    each_half!(device_reduce_typed(b, scale));
    Ok(())
}

/// More than REDUCE_TILE² elements, so the partials themselves need two more passes. Full only:
/// Small checks a two-level input instead.
pub fn device_reduce_three_levels<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let t = REDUCE_TILE;
    let (n, levels) = match scale {
        Scale::Full => (t * t + 2 * t + 77, 3),
        Scale::Small => (3 * t + 77, 2),
    };
    eq(
        "levels the input needs",
        levels,
        reference::device_reduce_levels(n),
    )?;
    // f32 sums of random values round differently under any other tree. A random block whose
    // length is prime to the tile repeats, so every tile still differs (and input is cheap).
    let block = values::<f32>(1_000_003.min(n), 0x3_1E7E1);
    let vals: Vec<f32> = block.iter().copied().cycle().take(n).collect();
    check_reduce(
        b,
        &format!("Sum f32 n={n} ({levels} levels)"),
        &vals,
        ReduceOp::Sum,
    )
}

pub fn err_empty_reduce<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    fn one<T: Element, B: RawBackend>(b: &B) -> Result<(), String> {
        let empty = ok("alloc", b.alloc::<T>(0))?;
        expect_err!(
            format!("reduce {} of nothing", T::KIND.name()),
            b.reduce(&empty, ReduceOp::Max),
            E::EmptyInput { .. }
        )
    }
    one::<i32, B>(b)?;
    one::<f64, B>(b)
}
