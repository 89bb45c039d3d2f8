//! device_reduce: the canonical combining order bit for bit, over one to three levels of
//! tiles; an empty input is refused.

use crate::Scale;
use crate::check::{eq, expect_err, ok, show};
use crate::inputs::{pick, value_sets, values};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::api::Collectives;
use wavekit_core::canonical::REDUCE_TILE;
use wavekit_core::element::{ElemKind, Element, splitmix};
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

/// Float Min and Max over whole tiles, where the reduce folds its vector loads (for the 16-bit
/// floats on the loaded words' bits, two values to a word, and from a few tiles in four-tile
/// blocks): signed zeros, negatives only, subnormals, infinities, and a NaN of either sign, late.
fn min_max_specials_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let t = REDUCE_TILE;
    let sign = 1u64 << (T::KIND.size() * 8 - 1);
    let exp: u64 = match T::KIND {
        ElemKind::F32 => 0x7F80_0000,
        ElemKind::F64 => 0x7FF0_0000_0000_0000,
        ElemKind::F16 => 0x7C00,
        ElemKind::BF16 => 0x7F80,
        _ => return Err(format!("{}: not a float", T::KIND.name())),
    };
    let quiet_nan = exp | (exp >> 1 & !exp);
    for &n in &pick(scale, &[t, 4 * t + 7, 9 * t + 1], &[t, 3 * t + 5]) {
        let seed = n as u64 * 7;
        let r = |i: usize| splitmix(seed ^ (i as u64).wrapping_mul(0x9E37));
        let from =
            |f: &dyn Fn(usize) -> u64| -> Vec<T> { (0..n).map(|i| T::from_bits(f(i))).collect() };
        let rand = values::<T>(n, seed);
        let magnitude = |i: usize| rand[i].to_bits() & !sign;
        let sets: Vec<(&str, Vec<T>)> = vec![
            (
                "signed zeros",
                from(&|i| if r(i) % 2 == 0 { sign } else { 0 }),
            ),
            (
                "-0.0 and one +0.0",
                from(&|i| if i == n * 2 / 3 { 0 } else { sign }),
            ),
            (
                "+0.0 and one -0.0",
                from(&|i| if i == n / 3 { sign } else { 0 }),
            ),
            (
                "negatives, one -inf",
                from(&|i| {
                    if i == n / 2 {
                        sign | exp
                    } else {
                        sign | magnitude(i)
                    }
                }),
            ),
            (
                "subnormals",
                from(&|i| (r(i) % 1000 + 1) | if r(i) >> 40 & 1 == 1 { sign } else { 0 }),
            ),
            (
                "infinities and zeros",
                from(&|i| [exp, sign | exp, 0, sign][(r(i) >> 8) as usize % 4]),
            ),
            (
                "negatives, a NaN last",
                from(&|i| {
                    if i == n - 1 {
                        quiet_nan
                    } else {
                        sign | magnitude(i)
                    }
                }),
            ),
            (
                "positives, a negative NaN",
                from(&|i| {
                    if i == n * 3 / 4 {
                        sign | exp | 1
                    } else {
                        magnitude(i)
                    }
                }),
            ),
        ];
        for (name, vals) in &sets {
            for op in [ReduceOp::Min, ReduceOp::Max] {
                check_reduce(
                    b,
                    &format!("{op:?} {} n={n} {name}", T::KIND.name()),
                    vals,
                    op,
                )?;
            }
        }
    }
    Ok(())
}

pub fn device_reduce_min_max_specials<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    min_max_specials_typed::<f32, B>(b, scale)?;
    min_max_specials_typed::<f64, B>(b, scale)?;
    each_half!(min_max_specials_typed(b, scale));
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
