//! device_scan: the canonical tiled scan bit for bit, inclusive and exclusive, over one and
//! several tiles; an output of another length is refused and left as it was.

use crate::Scale;
use crate::check::{expect_err, ok, same_elems};
use crate::inputs::{pick, value_sets};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::ScanKind;
use wavekit_core::api::Collectives;
use wavekit_core::canonical::SCAN_TILE;
use wavekit_core::element::Element;
use wavekit_core::error::WavekitError as E;
use wavekit_core::op::ReduceOp;

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
            for (vname, vals) in value_sets::<T>(n, n as u64 * 5 + op as u64, n < t) {
                let ctx = format!("{kind:?} {op:?} {} n={n} {vname}", T::KIND.name());
                check_scan(b, &ctx, &vals, op, kind)?;
            }
        }
    }
    Ok(())
}

/// `scan` of `vals` on `b` against the reference, bit for bit.
pub(crate) fn check_scan<T: Element, B: RawBackend>(
    b: &B,
    ctx: &str,
    vals: &[T],
    op: ReduceOp,
    kind: ScanKind,
) -> Result<(), String> {
    let input = ok(ctx, b.upload(vals))?;
    let mut out = ok(ctx, b.alloc::<T>(vals.len()))?;
    ok(ctx, b.scan(&input, &mut out, op, kind))?;
    let got = ok(ctx, b.download(&out))?;
    same_elems(
        ctx,
        "element",
        &reference::device_scan(vals, op, kind),
        &got,
    )
}

pub fn device_scan_inclusive<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(device_scan_typed(b, scale, ScanKind::Inclusive));
    each_half!(device_scan_typed(b, scale, ScanKind::Inclusive));
    Ok(())
}

pub fn device_scan_exclusive<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(device_scan_typed(b, scale, ScanKind::Exclusive));
    each_half!(device_scan_typed(b, scale, ScanKind::Exclusive));
    Ok(())
}

/// Scans one after another as a caller makes them: new values of the same length, fewer tiles,
/// more tiles, another type and back. A GPU backend keeps the scan's tile statuses between calls
/// without zeroing them (backends/gpu/src/tagged_pool.rs), so a scan that took an earlier call's
/// statuses for its own would come out wrong here.
pub fn device_scan_reused<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let t = SCAN_TILE;
    let (mid, few, many) = match scale {
        Scale::Full => (3 * t + 7, t + 1, 6 * t + 333),
        Scale::Small => (2 * t + 5, t + 1, 3 * t + 9),
    };
    let steps: [(usize, u64, ScanKind); 6] = [
        (mid, 1, ScanKind::Inclusive),
        (mid, 2, ScanKind::Inclusive),
        (mid, 3, ScanKind::Exclusive),
        (few, 4, ScanKind::Inclusive),
        (many, 5, ScanKind::Inclusive),
        (mid, 6, ScanKind::Inclusive),
    ];
    for (i, &(n, seed, kind)) in steps.iter().enumerate() {
        let vals: Vec<f32> = crate::inputs::values(n, seed);
        check_scan(
            b,
            &format!("f32 step {i} n={n}"),
            &vals,
            ReduceOp::Sum,
            kind,
        )?;
        if i == 3 {
            // Another type between two f32 scans: other statuses in the same scratch.
            let ints: Vec<i64> = crate::inputs::values(mid, seed);
            check_scan(
                b,
                &format!("i64 after step {i} n={mid}"),
                &ints,
                ReduceOp::Sum,
                kind,
            )?;
        }
    }
    Ok(())
}

pub fn err_scan_length<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let input = ok("upload", b.upload(&vec![1.0f32; 100]))?;
    for out_len in [0usize, 1, 99, 101] {
        let before: Vec<f32> = (0..out_len).map(|i| -(i as f32) - 0.5).collect();
        let mut out = ok("upload", b.upload(&before))?;
        let ctx = format!("scan of 100 into {out_len}");
        expect_err!(ctx, b.scan(&input, &mut out, ReduceOp::Sum, ScanKind::Inclusive), E::LengthMismatch { expected: 100, got, .. } if *got == out_len)?;
        let after = ok("download", b.download(&out))?;
        same_elems(&ctx, "untouched output element", &before, &after)?;
    }
    Ok(())
}
