//! warp_reduce_sync: `__reduce_*_sync(mask, v)` for every element type and op, under full,
//! sparse, single-lane, empty and random masks and launch sizes with a partial last warp; then
//! hand-worked edges: a lone -0.0, +0.0 with -0.0, NaN in a member and in a non-member, the
//! canonical order showing through a float sum whose rounding depends on it, and the errors.

use crate::Scale;
use crate::check::{eq, expect_err, ok, same_lanes};
use crate::inputs::{masks, thread_counts, value_sets};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::api::WarpPrimitives;
use wavekit_core::element::Element;
use wavekit_core::error::WavekitError as E;
use wavekit_core::mask::LaneMask;
use wavekit_core::op::ReduceOp;

fn warp_reduce_sync_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let w = b.warp_width();
    for op in ReduceOp::ops_for(T::KIND) {
        for (mname, mask) in masks(w, scale) {
            for threads in thread_counts(w, scale) {
                let seed = threads as u64 ^ mask.bits().rotate_left(17);
                for (vname, vals) in value_sets::<T>(threads, seed, true) {
                    let ctx = format!(
                        "{op:?} {} mask={mname} threads={threads} {vname}",
                        T::KIND.name()
                    );
                    let got = ok(&ctx, b.warp_reduce_sync(&vals, op, mask))?;
                    same_lanes(&ctx, &reference::warp_reduce_sync(&vals, op, mask), &got)?;
                }
            }
        }
    }
    Ok(())
}

pub fn warp_reduce_sync<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(warp_reduce_sync_typed(b, scale));
    each_half!(warp_reduce_sync_typed(b, scale));
    Ok(())
}

/// The value every member got (all members must agree), `None` if there is no member.
fn member_value<T: Element>(ctx: &str, got: &[Option<T>]) -> Result<Option<T>, String> {
    let mut seen: Option<T> = None;
    for (l, g) in got.iter().enumerate() {
        if let (Some(a), Some(b)) = (seen, *g)
            && !a.same(b)
        {
            return Err(format!(
                "{ctx}: lane {l} got {b:?}, an earlier member {a:?}"
            ));
        }
        seen = seen.or(*g);
    }
    Ok(seen)
}

fn one<B: RawBackend, T: Element>(
    b: &B,
    ctx: &str,
    vals: &[T],
    op: ReduceOp,
    mask: LaneMask,
) -> Result<Option<T>, String> {
    let got = ok(ctx, b.warp_reduce_sync(vals, op, mask))?;
    same_lanes(ctx, &reference::warp_reduce_sync(vals, op, mask), &got)?;
    member_value(ctx, &got)
}

pub fn warp_reduce_sync_specials<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let w = b.warp_width();
    let n = w.lanes() as usize;
    let lanes = |ls: &[u32]| LaneMask::from_fn(w, |l| ls.contains(&l));
    let bits = |x: Option<f32>| x.map(f32::to_bits);

    // A lone member's -0.0 stays -0.0 (non-members hold the identity -0.0, not +0.0).
    let z = vec![-0.0f32; n];
    let got = one(b, "lone -0.0", &z, ReduceOp::Sum, lanes(&[3]))?;
    eq("lone -0.0", bits(Some(-0.0)), bits(got))?;
    let got = one(b, "all -0.0", &z, ReduceOp::Sum, LaneMask::full(w))?;
    eq("all -0.0", bits(Some(-0.0)), bits(got))?;
    let mut mixed = z.clone();
    mixed[5] = 0.0;
    let got = one(b, "+0.0 and -0.0", &mixed, ReduceOp::Sum, lanes(&[3, 5]))?;
    eq("+0.0 and -0.0 sum", bits(Some(0.0)), bits(got))?;
    let got = one(b, "min of ±0", &mixed, ReduceOp::Min, lanes(&[3, 5]))?;
    eq("min of ±0", bits(Some(-0.0)), bits(got))?;
    let got = one(b, "max of ±0", &mixed, ReduceOp::Max, lanes(&[3, 5]))?;
    eq("max of ±0", bits(Some(0.0)), bits(got))?;

    // NaN in a member reaches every member; NaN in a non-member reaches nobody.
    let mut nan = vec![1.0f32; n];
    nan[7] = f32::NAN;
    for op in [
        ReduceOp::Sum,
        ReduceOp::Product,
        ReduceOp::Min,
        ReduceOp::Max,
    ] {
        let got = one(b, "NaN member", &nan, op, LaneMask::full(w))?;
        if !got.is_some_and(f32::is_nan) {
            return Err(format!(
                "{op:?} with a NaN member: got {got:?}, expected NaN"
            ));
        }
        let got = one(b, "NaN non-member", &nan, op, lanes(&[0, 6, 8]))?;
        let want = if op == ReduceOp::Sum { 3.0f32 } else { 1.0 };
        eq("NaN non-member", bits(Some(want)), bits(got))?;
    }

    // The canonical order, worked by hand: members 0, 1 and W/2. The butterfly first combines
    // lanes W/2 apart, so the result is (v0 + v[W/2]) + v1 = (1e8 - 1e8) + 1 = 1, where lane
    // order would give (1e8 + 1) - 1e8 = 0 in f32.
    let mut v = vec![0.0f32; n];
    let half = n / 2;
    (v[0], v[1], v[half]) = (1e8, 1.0, -1e8);
    let got = one(
        b,
        "canonical order",
        &v,
        ReduceOp::Sum,
        lanes(&[0, 1, half as u32]),
    )?;
    eq("canonical order", bits(Some(1.0)), bits(got))?;

    // Integers wrap; the hardware reduce and the shuffle tree must agree on i32::MIN.
    let m = vec![i32::MAX; n];
    let got = one(b, "i32 wrap", &m, ReduceOp::Sum, lanes(&[0, 9]))?;
    eq("i32 wrap", Some(-2), got)?;
    let got = one(
        b,
        "i32 min",
        &[i32::MIN, -1, 5],
        ReduceOp::Min,
        LaneMask::full(w),
    )?;
    eq("i32 min", Some(i32::MIN), got)?;
    let got = one(
        b,
        "u32 max",
        &[u32::MAX, 1, 5],
        ReduceOp::Max,
        lanes(&[1, 2]),
    )?;
    eq("u32 max", Some(5), got)?;
    let u = vec![0xF0F0_F0F0u64, 0x0FF0_0000_0000_000F, 0x1];
    let got = one(b, "u64 xor", &u, ReduceOp::BitXor, LaneMask::full(w))?;
    eq(
        "u64 xor",
        Some(0xF0F0_F0F0 ^ 0x0FF0_0000_0000_000F ^ 0x1),
        got,
    )?;

    // Errors.
    let f = vec![1.0f64; 8];
    expect_err!(
        "bitwise on floats",
        b.warp_reduce_sync(&f, ReduceOp::BitOr, LaneMask::full(w)),
        E::UnsupportedOp { .. }
    )?;
    let other = if n == 32 {
        wavekit_core::WarpWidth::W64
    } else {
        wavekit_core::WarpWidth::W32
    };
    expect_err!(
        "mask of the other width",
        b.warp_reduce_sync(&[1u32; 8], ReduceOp::Sum, LaneMask::full(other)),
        E::MaskWidthMismatch { .. }
    )?;
    eq(
        "empty input",
        Vec::<Option<u32>>::new(),
        ok(
            "empty",
            b.warp_reduce_sync(&[], ReduceOp::Sum, LaneMask::full(w)),
        )?,
    )
}
