//! Device buffers move bits exactly, and every call accepts an empty input.

use crate::Scale;
use crate::check::{eq, ok};
use crate::inputs::{pick, values, values_with_specials};
use wavekit_core::RawBackend;
use wavekit_core::element::Element;
use wavekit_core::error::WavekitError as E;
use wavekit_core::mask::LaneMask;
use wavekit_core::{Collectives, Segments, VectorSize, WarpPrimitives};
use wavekit_core::{DeviceBuffer, ScanKind, Shfl, Vote};
use wavekit_core::{Predicate, ReduceOp};

fn roundtrip_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let bits = |v: &[T]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
    for n in pick(scale, &[1usize, 3, 1000, 70_001], &[1usize, 3, 1000]) {
        let ctx = format!("{} n={n}", T::KIND.name());
        let zeroed = ok(&ctx, b.alloc::<T>(n))?;
        eq(&format!("{ctx}: alloc length"), n, zeroed.len())?;
        eq(
            &format!("{ctx}: alloc is zeroed"),
            vec![0u64; n],
            bits(&ok(&ctx, b.download(&zeroed))?),
        )?;
        // Exact bits, NaN payloads included: a copy is not arithmetic.
        let data = values_with_specials::<T>(n, n as u64);
        let mut buf = ok(&ctx, b.upload(&data))?;
        eq(&format!("{ctx}: upload length"), n, buf.len())?;
        eq(
            &format!("{ctx}: upload/download"),
            bits(&data),
            bits(&ok(&ctx, b.download(&buf))?),
        )?;
        let other = values::<T>(n, n as u64 + 1);
        ok(&ctx, b.write_from(&mut buf, &other))?;
        eq(
            &format!("{ctx}: write/download"),
            bits(&other),
            bits(&ok(&ctx, b.download(&buf))?),
        )?;
    }
    Ok(())
}

pub fn buffers_roundtrip<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    if b.name().is_empty() {
        return Err("the backend has an empty name".into());
    }
    each_type!(roundtrip_typed(b, scale));
    ok("synchronize", b.synchronize())
}

/// Zero threads, zero elements: an empty (or identity-free) answer, never an error or a hang.
pub fn empty_inputs<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let w = b.warp_width();
    let full = LaneMask::full(w);
    let none: &[f32] = &[];
    eq(
        "vote",
        0,
        ok("vote", b.vote(Vote::Ballot, &[], full))?.len(),
    )?;
    eq(
        "shfl",
        0,
        ok("shfl", b.shfl(Shfl::Down, none, 1, w.lanes(), full))?.len(),
    )?;
    eq(
        "match_any",
        0,
        ok("match_any", b.match_any(none, full))?.len(),
    )?;
    eq(
        "match_all",
        0,
        ok("match_all", b.match_all(none, full))?.len(),
    )?;
    eq(
        "activemask",
        0,
        ok("activemask", b.activemask(0, full))?.len(),
    )?;
    eq(
        "transpose",
        0,
        ok("transpose", b.syncwarp_transpose(none, full))?.len(),
    )?;
    eq(
        "tile_shfl",
        0,
        ok("tile_shfl", b.tile_shfl(2, Shfl::Xor, none, 1))?.len(),
    )?;
    eq(
        "tile_vote",
        0,
        ok("tile_vote", b.tile_vote(2, Vote::Any, &[]))?.len(),
    )?;
    eq(
        "tile_reduce",
        0,
        ok("tile_reduce", b.tile_reduce(2, ReduceOp::Sum, none))?.len(),
    )?;
    eq(
        "warp_reduce",
        0,
        ok("warp_reduce", b.warp_reduce(none, 4, ReduceOp::Max))?.len(),
    )?;
    eq(
        "warp_scan",
        0,
        ok(
            "warp_scan",
            b.warp_scan(none, 4, ReduceOp::Sum, ScanKind::Exclusive),
        )?
        .len(),
    )?;

    let empty = ok("alloc", b.alloc::<f32>(0))?;
    eq(
        "block_reduce",
        0,
        ok("block_reduce", b.block_reduce(&empty, 64, ReduceOp::Sum))?.len(),
    )?;
    let mut out = ok("alloc", b.alloc::<f32>(0))?;
    ok(
        "scan",
        b.scan(&empty, &mut out, ReduceOp::Sum, ScanKind::Inclusive),
    )?;
    let segs = ok("segments", Segments::<B>::fixed(8, VectorSize::Lanes(4)))?;
    eq(
        "segmented fixed",
        0,
        ok(
            "segmented",
            b.segmented_reduce(&empty, &segs, ReduceOp::Sum),
        )?
        .len(),
    )?;
    let segs = ok(
        "segments",
        Segments::from_offsets(b, &[0], 0, VectorSize::Auto),
    )?;
    eq(
        "segmented offsets",
        0,
        ok(
            "segmented",
            b.segmented_reduce(&empty, &segs, ReduceOp::Sum),
        )?
        .len(),
    )?;
    eq(
        "count_if",
        0,
        ok("count_if", b.count_if(&empty, Predicate::Ne(1.0)))?,
    )?;
    eq(
        "compact",
        0,
        ok("compact", b.compact(&empty, Predicate::Ne(1.0), true))?.len,
    )?;
    let keys = ok("alloc", b.alloc::<u32>(0))?;
    let h = ok("histogram", b.histogram(&keys, 3))?;
    eq("histogram counts", vec![0u64; 3], h.counts)?;
    eq("histogram outside", 0, h.outside)?;
    let mut counters = ok("alloc", b.alloc::<u32>(0))?;
    eq(
        "atomic_agg_inc",
        0,
        ok("atomic_agg_inc", b.atomic_agg_inc(&keys, &mut counters))?.len(),
    )?;
    Ok(())
}

/// A write from a slice one short or one long is refused and leaves the buffer as it was.
pub fn err_write_untouched<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let before: Vec<u32> = (0..100).map(|i| i * 7 + 1).collect();
    let mut buf = ok("upload", b.upload(&before))?;
    for len in [0usize, 99, 101] {
        let ctx = format!("write of {len} into 100");
        let src = vec![5u32; len];
        let bad = |e: &E| matches!(e, E::LengthMismatch { expected: 100, got, .. } if *got == len);
        crate::check::fails(&ctx, b.write_from(&mut buf, &src), "LengthMismatch", bad)?;
        crate::check::fails(&ctx, b.write(&mut buf, &src), "LengthMismatch", bad)?;
        eq(
            &format!("{ctx}: buffer untouched"),
            before.clone(),
            ok("download", b.download(&buf))?,
        )?;
    }
    Ok(())
}
