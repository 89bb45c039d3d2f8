//! match: match_any and match_all, comparing whole values by bit pattern.

use crate::Scale;
use crate::check::{eq_lanes, ok};
use crate::inputs::{masks, thread_counts, values};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::api::WarpPrimitives;
use wavekit_core::element::{ElemKind, Element, splitmix};
use wavekit_core::mask::LaneMask;

/// `n` values drawn from `palette`.
fn from_palette<T: Element>(palette: &[T], n: usize, seed: u64) -> Vec<T> {
    (0..n as u64)
        .map(|i| palette[(splitmix(seed ^ i) % palette.len() as u64) as usize])
        .collect()
}

/// One value on the members and distinct values elsewhere: match_all must say true.
fn uniform_on_members<T: Element>(mask: LaneMask, n: usize, seed: u64) -> Vec<T> {
    let lanes = mask.width().lanes() as usize;
    let (c, other) = (T::from_seed(seed), values::<T>(n, seed + 1));
    (0..n)
        .map(|t| {
            if mask.contains((t % lanes) as u32) {
                c
            } else {
                other[t]
            }
        })
        .collect()
}

fn check_match<T: Element, B: RawBackend>(
    b: &B,
    ctx: &str,
    vals: &[T],
    mask: LaneMask,
    any: bool,
) -> Result<(), String> {
    if any {
        let got = ok(ctx, b.match_any(vals, mask))?;
        eq_lanes(
            &format!("match_any {ctx}"),
            &reference::match_any(vals, mask),
            &got,
        )
    } else {
        let got = ok(ctx, b.match_all(vals, mask))?;
        eq_lanes(
            &format!("match_all {ctx}"),
            &reference::match_all(vals, mask),
            &got,
        )
    }
}

fn match_typed<T: Element, B: RawBackend>(b: &B, scale: Scale, any: bool) -> Result<(), String> {
    let w = b.warp_width();
    for threads in thread_counts(w, scale) {
        for (mname, mask) in masks(w, scale) {
            for distinct in [1usize, 2, 5, 64] {
                let seed = threads as u64 * 131 + distinct as u64;
                let palette = values::<T>(distinct, seed);
                let vals = from_palette(&palette, threads, seed);
                let ctx = format!(
                    "{} threads={threads} mask={mname} distinct={distinct}",
                    T::KIND.name()
                );
                check_match(b, &ctx, &vals, mask, any)?;
            }
            let vals = uniform_on_members::<T>(mask, threads, threads as u64);
            let ctx = format!(
                "{} threads={threads} mask={mname} uniform on members",
                T::KIND.name()
            );
            check_match(b, &ctx, &vals, mask, any)?;
        }
    }
    Ok(())
}

pub fn match_any<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(match_typed(b, scale, true));
    each_half!(match_typed(b, scale, true));
    Ok(())
}

pub fn match_all<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(match_typed(b, scale, false));
    each_half!(match_typed(b, scale, false));
    Ok(())
}

/// Values that are equal as numbers but not as bits, or differ only in one half of a 64-bit
/// word: match must compare bit patterns of the whole value.
fn tricky_palette<T: Element>() -> Vec<T> {
    let bits: Vec<u64> = match T::KIND {
        ElemKind::F32 => vec![
            (-0.0f32).to_bits() as u64,
            0.0f32.to_bits() as u64,
            0x7FC0_0000,
            0x7FC0_0001,
            0xFFC0_0000,
            1.0f32.to_bits() as u64,
        ],
        ElemKind::F64 => vec![
            (-0.0f64).to_bits(),
            0.0f64.to_bits(),
            0x7FF8_0000_0000_0000,
            0x7FF8_0000_0000_0001,
            0xFFF8_0000_0000_0000,
            1.0f64.to_bits(),
            // Differs from 1.0 only in the low half.
            1.0f64.to_bits() | 1,
        ],
        ElemKind::I64 | ElemKind::U64 => {
            vec![
                5,
                5 | 1 << 32,
                1 << 32,
                0,
                1 << 63 | 5,
                0xFFFF_FFFF,
                0xFFFF_FFFF_0000_0000,
            ]
        }
        ElemKind::I32 | ElemKind::U32 => vec![0, 0x8000_0000, 1, 0xFFFF_FFFF, 0x7FFF_FFFF],
        ElemKind::F16 => vec![0x8000, 0, 0x7E00, 0x7E01, 0xFE00, 0x3C00],
        ElemKind::BF16 => vec![0x8000, 0, 0x7FC0, 0x7FC1, 0xFFC0, 0x3F80],
    };
    bits.into_iter().map(T::from_bits).collect()
}

fn bit_patterns_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let w = b.warp_width();
    let palette = tricky_palette::<T>();
    let mut ms = masks(w, scale);
    ms.retain(|(n, _)| {
        ["full", "even", "upper half", "middle lane", "random a"].contains(&n.as_str())
    });
    for threads in thread_counts(w, scale) {
        for (mname, mask) in &ms {
            let mask = *mask;
            for (i, pair) in palette.windows(2).enumerate() {
                // Two look-alike values only, so match_all fails only on the bit difference.
                let vals = from_palette(pair, threads, threads as u64 ^ i as u64);
                let ctx = format!("{} threads={threads} mask={mname} pair {i}", T::KIND.name());
                check_match(b, &ctx, &vals, mask, true)?;
                check_match(b, &ctx, &vals, mask, false)?;
            }
            let vals = from_palette(&palette, threads, threads as u64);
            let ctx = format!(
                "{} threads={threads} mask={mname} whole palette",
                T::KIND.name()
            );
            check_match(b, &ctx, &vals, mask, true)?;
            // Every member holds the same NaN (or -0.0): match_all is true.
            for &v in &palette[..3.min(palette.len())] {
                let vals = vec![v; threads];
                check_match(b, &format!("{ctx} all {v:?}"), &vals, mask, false)?;
            }
        }
    }
    Ok(())
}

pub fn match_bit_patterns<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(bit_patterns_typed(b, scale));
    each_half!(bit_patterns_typed(b, scale));
    Ok(())
}
