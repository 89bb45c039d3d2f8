//! Block reduce, device reduce and device scan in the canonical combining order, bit for bit.

use crate::Scale;
use crate::check::{eq, ok, same_elems, show};
use crate::inputs::{near_max, pick, values, values_with_specials};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::ScanKind;
use wavekit_core::api::Collectives;
use wavekit_core::canonical::{REDUCE_TILE, SCAN_TILE};
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;

/// Random finite values always; specials and near-maximum values too for smaller inputs.
fn inputs<T: Element>(n: usize, seed: u64, all: bool) -> Vec<(&'static str, Vec<T>)> {
    let mut v = vec![("random", values(n, seed))];
    if all {
        v.push(("specials", values_with_specials(n, seed)));
        v.push(("near max", near_max(n, seed)));
    }
    v
}

fn block_reduce_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let blocks = pick(
        scale,
        &[32u32, 64, 96, 224, 512, 544, 992, 1024],
        &[32, 96, 1024],
    );
    for op in ReduceOp::ops_for(T::KIND) {
        for &block in &blocks {
            let bl = block as usize;
            for n in [1, bl - 1, bl, 2 * bl + 37] {
                for (vname, vals) in inputs::<T>(n, (block as u64) << 32 | n as u64, n <= bl) {
                    let ctx = format!("{op:?} {} block={block} n={n} {vname}", T::KIND.name());
                    let buf = ok(&ctx, b.upload(&vals))?;
                    let got = ok(&ctx, b.block_reduce(&buf, block, op))?;
                    same_elems(
                        &ctx,
                        "block",
                        &reference::block_reduce(&vals, block, op),
                        &got,
                    )?;
                }
            }
        }
    }
    Ok(())
}

pub fn block_reduce<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(block_reduce_typed(b, scale));
    Ok(())
}

fn check_reduce<T: Element, B: RawBackend>(
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
            for (vname, vals) in inputs::<T>(n, n as u64 * 3 + op as u64, n < t) {
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

fn device_scan_typed<T: Element, B: RawBackend>(
    b: &B,
    scale: Scale,
    kind: ScanKind,
) -> Result<(), String> {
    let t = SCAN_TILE;
    let small = pick(scale, &[1, 2, 17, 255, t - 1, t + 1], &[1, 17, t + 1]);
    let large = pick(scale, &[t, 3 * t, 5 * t + 333], &[2 * t + 5]);
    for op in ReduceOp::ops_for(T::KIND) {
        let big_too = matches!(op, ReduceOp::Sum | ReduceOp::Max);
        for &n in small.iter().chain(large.iter().filter(|_| big_too)) {
            for (vname, vals) in inputs::<T>(n, n as u64 * 5 + op as u64, n < t) {
                let ctx = format!("{kind:?} {op:?} {} n={n} {vname}", T::KIND.name());
                let input = ok(&ctx, b.upload(&vals))?;
                let mut out = ok(&ctx, b.alloc::<T>(n))?;
                ok(&ctx, b.scan(&input, &mut out, op, kind))?;
                let got = ok(&ctx, b.download(&out))?;
                same_elems(
                    &ctx,
                    "element",
                    &reference::device_scan(&vals, op, kind),
                    &got,
                )?;
            }
        }
    }
    Ok(())
}

pub fn device_scan_inclusive<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(device_scan_typed(b, scale, ScanKind::Inclusive));
    Ok(())
}

pub fn device_scan_exclusive<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(device_scan_typed(b, scale, ScanKind::Exclusive));
    Ok(())
}
