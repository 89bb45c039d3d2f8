//! The 16-bit floats (SEMANTICS "Half precision"): reduce, scan, segmented, block, tile and
//! warp reduces and warp scan accumulate in f32 and round each result once, to nearest with
//! ties to even, subnormals and overflow included.
//!
//! The expected bits below are worked out by hand (in the comments), not computed by any code
//! under test: an implementation that accumulates in 16 bits, rounds towards zero, flushes
//! subnormals or saturates instead of overflowing fails them.

use super::device_reduce::check_reduce;
use super::device_scan::check_scan;
use crate::Scale;
use crate::check::{ok, same_elems, same_lanes, show};
use crate::inputs::pick;
use crate::reference;
use wavekit_core::api::Collectives;
use wavekit_core::canonical::{REDUCE_TILE, SCAN_TILE};
use wavekit_core::element::splitmix;
use wavekit_core::element::{Element, bf16, f16};
use wavekit_core::op::ReduceOp;
use wavekit_core::{LaneMask, RawBackend, ScanKind, Segments, VectorSize, WarpPrimitives};

/// One input, its op, the reduce's bits and (for Sum) the inclusive scan's bits.
struct Row {
    what: &'static str,
    op: ReduceOp,
    input: &'static [u16],
    reduce: u16,
    inclusive: Option<&'static [u16]>,
}

const F16_ROWS: &[Row] = &[
    // 1 + 2^-11 is halfway between 1.0 and its successor: the even 1.0; 1 + 2^-10 exact;
    // 1 + 3·2^-11 halfway between 1 + 2^-10 (odd) and 1 + 2^-9: the even 1 + 2^-9. Summed in
    // f16 every prefix would stay 1.0.
    Row {
        what: "ties to even from f32 prefixes",
        op: ReduceOp::Sum,
        input: &[0x3C00, 0x1000, 0x1000, 0x1000],
        reduce: 0x3C02,
        inclusive: Some(&[0x3C00, 0x3C00, 0x3C01, 0x3C02]),
    },
    // 65504 + 16 = 65520, halfway to 2^16: rounds to inf; 65504 + 15 stays 65504.
    Row {
        what: "overflow to inf at the halfway point",
        op: ReduceOp::Sum,
        input: &[0x7BFF, 0x4C00],
        reduce: 0x7C00,
        inclusive: Some(&[0x7BFF, 0x7C00]),
    },
    Row {
        what: "just below the halfway point",
        op: ReduceOp::Sum,
        input: &[0x7BFF, 0x4B80],
        reduce: 0x7BFF,
        inclusive: Some(&[0x7BFF, 0x7BFF]),
    },
    // 65504 + 65504 - 65504: the f32 prefix 131008 rounds to inf, the next is 65504 again (a
    // 16-bit accumulator would stay at inf).
    Row {
        what: "an f32 prefix past the f16 range comes back",
        op: ReduceOp::Sum,
        input: &[0x7BFF, 0x7BFF, 0xFBFF],
        reduce: 0x7BFF,
        inclusive: Some(&[0x7BFF, 0x7C00, 0x7BFF]),
    },
    // 2^-12 · 2^-13 = 2^-25, halfway between 0 and the smallest subnormal 2^-24: +0.
    Row {
        what: "a product halfway to the smallest subnormal",
        op: ReduceOp::Product,
        input: &[0x0C00, 0x0800],
        reduce: 0x0000,
        inclusive: None,
    },
    // 2^-12 · 1.5·2^-13 = 0.75·2^-24: up to 2^-24.
    Row {
        what: "a product rounding up to the smallest subnormal",
        op: ReduceOp::Product,
        input: &[0x0C00, 0x0A00],
        reduce: 0x0001,
        inclusive: None,
    },
    // 2^-12 · 1.5·2^-12 = 1.5·2^-24: halfway between 1 and 2 units, the even 2.
    Row {
        what: "a subnormal product at a tie",
        op: ReduceOp::Product,
        input: &[0x0C00, 0x0E00],
        reduce: 0x0002,
        inclusive: None,
    },
    // -2^-25 rounds to -0.
    Row {
        what: "a negative product rounding to -0",
        op: ReduceOp::Product,
        input: &[0x0C00, 0x0800, 0xBC00],
        reduce: 0x8000,
        inclusive: None,
    },
    Row {
        what: "Min orders -0 below +0",
        op: ReduceOp::Min,
        input: &[0x0000, 0x8000, 0x0000],
        reduce: 0x8000,
        inclusive: None,
    },
    Row {
        what: "Max orders +0 above -0",
        op: ReduceOp::Max,
        input: &[0x8000, 0x0000, 0x8000],
        reduce: 0x0000,
        inclusive: None,
    },
];

const BF16_ROWS: &[Row] = &[
    // The same ties one binade of precision down: 1 + 2^-8 is halfway (even 1.0), 1 + 3·2^-8
    // is halfway between 0x3F81 (odd) and 0x3F82.
    Row {
        what: "ties to even from f32 prefixes",
        op: ReduceOp::Sum,
        input: &[0x3F80, 0x3B80, 0x3B80, 0x3B80],
        reduce: 0x3F82,
        inclusive: Some(&[0x3F80, 0x3F80, 0x3F81, 0x3F82]),
    },
    // The largest bf16, 2^128 - 2^120, plus 2^119 is halfway to 2^128 (odd mantissa): inf;
    // plus 2^118 stays.
    Row {
        what: "overflow to inf at the halfway point",
        op: ReduceOp::Sum,
        input: &[0x7F7F, 0x7B00],
        reduce: 0x7F80,
        inclusive: Some(&[0x7F7F, 0x7F80]),
    },
    Row {
        what: "just below the halfway point",
        op: ReduceOp::Sum,
        input: &[0x7F7F, 0x7A80],
        reduce: 0x7F7F,
        inclusive: Some(&[0x7F7F, 0x7F7F]),
    },
    // 2^-67 · 2^-67 = 2^-134 (an f32 subnormal), halfway between 0 and 2^-133: +0.
    Row {
        what: "a product halfway to the smallest subnormal",
        op: ReduceOp::Product,
        input: &[0x1E00, 0x1E00],
        reduce: 0x0000,
        inclusive: None,
    },
    // 2^-67 · 1.5·2^-67 = 0.75·2^-133: up to 2^-133 (an f32 subnormal flushed to zero fails).
    Row {
        what: "a product rounding up to the smallest subnormal",
        op: ReduceOp::Product,
        input: &[0x1E00, 0x1E40],
        reduce: 0x0001,
        inclusive: None,
    },
    Row {
        what: "subnormals add exactly",
        op: ReduceOp::Sum,
        input: &[0x0001, 0x0001, 0x0002],
        reduce: 0x0004,
        inclusive: Some(&[0x0001, 0x0002, 0x0004]),
    },
    Row {
        what: "Min orders -0 below +0",
        op: ReduceOp::Min,
        input: &[0x0000, 0x8000, 0x0000],
        reduce: 0x8000,
        inclusive: None,
    },
];

fn rounding_typed<T: Element, B: RawBackend>(b: &B, rows: &[Row]) -> Result<(), String> {
    let bits = |v: &[u16]| -> Vec<T> { v.iter().map(|&x| T::from_bits(x as u64)).collect() };
    for row in rows {
        let ctx = format!("{} {:?} {}", T::KIND.name(), row.op, row.what);
        let vals = bits(row.input);
        let input = ok(&ctx, b.upload(&vals))?;
        let got = ok(&ctx, b.reduce(&input, row.op))?;
        let want = T::from_bits(row.reduce as u64);
        if !want.same(got) {
            return Err(format!(
                "{ctx}: reduce expected {}, got {}",
                show(want),
                show(got)
            ));
        }
        let Some(incl) = row.inclusive else { continue };
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            let mut want = bits(incl);
            if kind == ScanKind::Exclusive {
                // The identity of Sum, -0.0, then the inclusive results shifted right.
                want.insert(0, T::from_bits(0x8000));
                want.pop();
            }
            let mut out = ok(&ctx, b.alloc::<T>(vals.len()))?;
            ok(&ctx, b.scan(&input, &mut out, row.op, kind))?;
            let got = ok(&ctx, b.download(&out))?;
            same_elems(&format!("{ctx} {kind:?} scan"), "element", &want, &got)?;
        }
    }
    Ok(())
}

pub fn half_rounding<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    rounding_typed::<f16, B>(b, F16_ROWS)?;
    rounding_typed::<bf16, B>(b, BF16_ROWS)
}

/// The bits of `cancelling`'s values: the large one (its sign alternates), and the small ones
/// from `small_base` on, `small_span` of them.
#[derive(Clone, Copy)]
struct Mix {
    big: u16,
    small_base: u16,
    small_span: u16,
}

/// f16: ±2^15 (f32's unit there is 2^-8) among values in [2^-9, 2^-8).
const F16_MIX: Mix = Mix {
    big: 0x7800,
    small_base: 0x1800,
    small_span: 0x400,
};
/// bf16: ±2^26 (f32's unit there is 8) among values in [0.5, 1).
const BF16_MIX: Mix = Mix {
    big: 0x4C80,
    small_base: 0x3F00,
    small_span: 0x80,
};

/// Large values that cancel (alternating signs, in order of appearance) among small ones: an
/// f32 accumulator holding a large value drops the small ones' low bits, so the result, once
/// the large ones have cancelled, depends on which elements were combined in which order, and
/// it is small enough that rounding to 16 bits keeps the difference. Any other tree (say, f16
/// data laid out as 8 to a lane-vector instead of f32's 4) changes the bits.
fn cancelling<T: Element>(n: usize, seed: u64, mix: Mix) -> Vec<T> {
    let Mix {
        big,
        small_base,
        small_span,
    } = mix;
    let mut sign = 0u16;
    let mut v: Vec<u16> = (0..n as u64)
        .map(|i| {
            let r = splitmix(seed ^ i.wrapping_mul(0x9E37));
            if r & 1 == 1 {
                let b = big | sign;
                sign ^= 0x8000;
                b
            } else {
                small_base + (r >> 8) as u16 % small_span
            }
        })
        .collect();
    if sign != 0 {
        // An odd number of large values: the last one becomes a small one.
        if let Some(last) = v.iter_mut().rev().find(|x| **x & 0x7FFF == big) {
            *last = small_base;
        }
    }
    v.into_iter().map(|b| T::from_bits(b as u64)).collect()
}

fn order_typed<T: Element, B: RawBackend>(b: &B, scale: Scale, mix: Mix) -> Result<(), String> {
    let t = REDUCE_TILE;
    let sizes = pick(
        scale,
        &[37, 1000, t, 3 * t + 5, 17 * t + 1],
        &[37, 1000, t + 5],
    );
    for &n in &sizes {
        let vals: Vec<T> = cancelling(n, n as u64, mix);
        let ctx = format!("{} Sum n={n} cancelling", T::KIND.name());
        check_reduce(b, &ctx, &vals, ReduceOp::Sum)?;
        check_scan(b, &ctx, &vals, ReduceOp::Sum, ScanKind::Inclusive)?;
        // The segmented reduce's lanes (each folds every V-th item) and the warp reduce's
        // butterfly, in f32 and rounded once.
        let input = ok("upload", b.upload(&vals))?;
        for lanes in [1u32, 8] {
            let c = format!("{ctx} segmented size=100 vector={lanes}");
            let segs = ok(&c, Segments::<B>::fixed(100, VectorSize::Lanes(lanes)))?;
            let out = ok(&c, b.segmented_reduce(&input, &segs, ReduceOp::Sum))?;
            let want = reference::segmented_reduce_fixed(&vals, 100, lanes, ReduceOp::Sum);
            same_elems(&c, "segment", &want, &ok(&c, b.download(&out))?)?;
        }
        let width = b.warp_width().lanes();
        let c = format!("{ctx} warp_reduce width={width}");
        let want = reference::warp_reduce(&vals, width, ReduceOp::Sum);
        same_elems(
            &c,
            "segment",
            &want,
            &ok(&c, b.warp_reduce(&vals, width, ReduceOp::Sum))?,
        )?;
        let c = format!("{ctx} warp_scan width={width}");
        let want = reference::warp_scan(&vals, width, ReduceOp::Sum, ScanKind::Inclusive);
        let got = b.warp_scan(&vals, width, ReduceOp::Sum, ScanKind::Inclusive);
        same_elems(&c, "lane", &want, &ok(&c, got)?)?;
        // The group reduce of a block, a tile's and a masked warp's butterflies.
        let c = format!("{ctx} block_reduce block=256");
        let want = reference::block_reduce(&vals, 256, ReduceOp::Sum);
        let got = b.block_reduce(&input, 256, ReduceOp::Sum);
        same_elems(&c, "block", &want, &ok(&c, got)?)?;
        let c = format!("{ctx} tile_reduce tile={width}");
        let want = reference::tile_reduce(width, ReduceOp::Sum, &vals);
        same_lanes(
            &c,
            &want,
            &ok(&c, b.tile_reduce(width, ReduceOp::Sum, &vals))?,
        )?;
        let c = format!("{ctx} warp_reduce_sync");
        let mask = LaneMask::full(b.warp_width());
        let want = reference::warp_reduce_sync(&vals, ReduceOp::Sum, mask);
        same_lanes(
            &c,
            &want,
            &ok(&c, b.warp_reduce_sync(&vals, ReduceOp::Sum, mask))?,
        )?;
    }
    Ok(())
}

pub fn half_order<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    order_typed::<f16, B>(b, scale, F16_MIX)?;
    order_typed::<bf16, B>(b, scale, BF16_MIX)
}

/// The 16-bit floats' scan in groups of SCAN_HALF_GROUP tiles (SEMANTICS "device_scan" step 5):
/// cancelling values, so that a scan folding its tile prefixes tile by tile (or in any other
/// grouping) gets other bits from the sixth tile on. Ten tiles and a bit: blocks of two tiles
/// (the executor's) start inside groups and end them, a third group is left partial; at full
/// scale 150 tiles walk more than one look-back window of groups.
fn groups_typed<T: Element, B: RawBackend>(b: &B, scale: Scale, mix: Mix) -> Result<(), String> {
    let t = SCAN_TILE;
    let sizes = pick(scale, &[10 * t + 7, 150 * t + 3], &[10 * t + 7]);
    for &n in &sizes {
        let vals: Vec<T> = cancelling(n, 3 * n as u64 + 1, mix);
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            let ctx = format!("{} Sum {kind:?} n={n} cancelling", T::KIND.name());
            check_scan(b, &ctx, &vals, ReduceOp::Sum, kind)?;
        }
    }
    Ok(())
}

pub fn half_scan_groups<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    groups_typed::<f16, B>(b, scale, F16_MIX)?;
    groups_typed::<bf16, B>(b, scale, BF16_MIX)
}
