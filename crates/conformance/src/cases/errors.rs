//! Errors that belong to no single primitive: a mask of the other width, a sub-width that is not
//! a power of two within the warp (shfl, warp_reduce, warp_scan), a bitwise op on floats. Each
//! primitive's own errors are checked in its file.

use crate::Scale;
use crate::check::{expect_err, ok};
use wavekit_core::RawBackend;
use wavekit_core::element::Element;
use wavekit_core::error::WavekitError as E;
use wavekit_core::mask::LaneMask;
use wavekit_core::op::ReduceOp;
use wavekit_core::width::WarpWidth;
use wavekit_core::{Collectives, Segments, VectorSize, WarpPrimitives};
use wavekit_core::{ScanKind, Shfl, Vote};

const KINDS: [Shfl; 4] = [Shfl::Idx, Shfl::Up, Shfl::Down, Shfl::Xor];

fn other_width(w: WarpWidth) -> WarpWidth {
    if w == WarpWidth::W32 {
        WarpWidth::W64
    } else {
        WarpWidth::W32
    }
}

pub fn err_mask_width<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let w = b.warp_width();
    let (me, other) = (w.lanes(), other_width(w).lanes());
    let wrong = LaneMask::full(other_width(w));
    let v = vec![1u32; me as usize];
    let is = |e: &E| matches!(e, E::MaskWidthMismatch { mask_width, warp } if *mask_width == other && *warp == me);
    let check =
        |what: &str, r: Result<(), E>| crate::check::fails(what, r, "MaskWidthMismatch", is);
    check("vote", b.vote(Vote::Any, &[true; 8], wrong).map(drop))?;
    check("shfl", b.shfl(Shfl::Idx, &v, 0, 1, wrong).map(drop))?;
    check("match_any", b.match_any(&v, wrong).map(drop))?;
    check("match_all", b.match_all(&v, wrong).map(drop))?;
    check("activemask", b.activemask(8, wrong).map(drop))?;
    check(
        "syncwarp_transpose",
        b.syncwarp_transpose(&v, wrong).map(drop),
    )?;
    // A mask naming lanes past its own width is refused when it is built.
    expect_err!(
        "LaneMask::from_bits",
        LaneMask::from_bits(1 << 32, WarpWidth::W32),
        E::MaskBeyondWidth { .. }
    )?;
    expect_err!(
        "LaneMask::single",
        LaneMask::single(me, w),
        E::LaneOutOfRange { .. }
    )
}

pub fn err_sub_width<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let w = b.warp_width();
    let v = vec![1.5f64; 70];
    let full = LaneMask::full(w);
    for width in [0, 3, 6, 12, 2 * w.lanes(), 128, w.lanes() + 1, u32::MAX] {
        let ctx = format!("width={width}");
        let bad = |e: &E| matches!(e, E::InvalidSubWidth { width: x, warp } if *x == width && *warp == w.lanes());
        for kind in KINDS {
            crate::check::fails(
                &format!("shfl {kind:?} {ctx}"),
                b.shfl(kind, &v, 0, width, full),
                "InvalidSubWidth",
                bad,
            )?;
        }
        crate::check::fails(
            &format!("warp_reduce {ctx}"),
            b.warp_reduce(&v, width, ReduceOp::Sum),
            "InvalidSubWidth",
            bad,
        )?;
        crate::check::fails(
            &format!("warp_scan {ctx}"),
            b.warp_scan(&v, width, ReduceOp::Sum, ScanKind::Inclusive),
            "InvalidSubWidth",
            bad,
        )?;
    }
    Ok(())
}

fn bitwise_typed<T: Element, B: RawBackend>(b: &B) -> Result<(), String> {
    let vals = vec![T::from_seed(1); 100];
    let buf = ok("upload", b.upload(&vals))?;
    let mut out = ok("alloc", b.alloc::<T>(100))?;
    let segs = ok("segments", Segments::<B>::fixed(8, VectorSize::Lanes(4)))?;
    for op in [ReduceOp::BitAnd, ReduceOp::BitOr, ReduceOp::BitXor] {
        let ctx = |what: &str| format!("{what} {op:?} on {}", T::KIND.name());
        let bad = |e: &E| matches!(e, E::UnsupportedOp { op: o, elem } if *o == op.name() && *elem == T::KIND.name());
        let check =
            |what: &str, r: Result<(), E>| crate::check::fails(&ctx(what), r, "UnsupportedOp", bad);
        check("tile_reduce", b.tile_reduce(4, op, &vals).map(drop))?;
        check("warp_reduce", b.warp_reduce(&vals, 4, op).map(drop))?;
        check(
            "warp_scan",
            b.warp_scan(&vals, 4, op, ScanKind::Exclusive).map(drop),
        )?;
        check("block_reduce", b.block_reduce(&buf, 64, op).map(drop))?;
        check("reduce", b.reduce(&buf, op).map(drop))?;
        check("scan", b.scan(&buf, &mut out, op, ScanKind::Inclusive))?;
        check(
            "segmented_reduce",
            b.segmented_reduce(&buf, &segs, op).map(drop),
        )?;
    }
    Ok(())
}

pub fn err_bitwise_float<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    bitwise_typed::<f32, B>(b)?;
    bitwise_typed::<f64, B>(b)
}

/// Sizes no machine holds: `OutOfMemory` with the bytes asked for (saturated at `u64::MAX`),
/// refused before any work, never an abort or a "capacity overflow" panic.
pub fn err_out_of_memory<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let oom = |what: &str, r: Result<(), E>, bytes: Option<u64>| {
        crate::check::fails(
            what,
            r,
            "OutOfMemory",
            |e| matches!(e, E::OutOfMemory { bytes: got } if bytes.is_none_or(|b| b == *got)),
        )
    };
    let full = LaneMask::full(b.warp_width());
    let bins_bytes = Some((u64::from(u32::MAX) + 1) * 8);
    let no_keys = ok("alloc", b.alloc::<u32>(0))?;
    oom(
        "histogram of u32::MAX bins, no keys",
        b.histogram(&no_keys, u32::MAX).map(drop),
        bins_bytes,
    )?;
    let keys = ok("upload", b.upload(&[0u32, 7, u32::MAX]))?;
    oom(
        "histogram of u32::MAX bins",
        b.histogram(&keys, u32::MAX).map(drop),
        bins_bytes,
    )?;
    oom(
        "activemask of 2^38 threads",
        b.activemask(1 << 38, full).map(drop),
        Some(8 << 38),
    )?;
    oom(
        "activemask of usize::MAX threads",
        b.activemask(usize::MAX, full).map(drop),
        Some(u64::MAX),
    )?;
    oom(
        "alloc of usize::MAX u64s",
        b.alloc::<u64>(usize::MAX).map(drop),
        Some(u64::MAX),
    )?;
    oom(
        "alloc of 2^57 u32s",
        b.alloc::<u32>(1 << 57).map(drop),
        None,
    )
}
