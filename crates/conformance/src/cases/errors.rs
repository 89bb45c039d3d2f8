//! Bad input gets the right typed `WavekitError`, never a panic or a wrong answer.

use crate::Scale;
use crate::check::{expect_err, ok};
use wavekit_core::RawBackend;
use wavekit_core::element::Element;
use wavekit_core::error::WavekitError as E;
use wavekit_core::mask::LaneMask;
use wavekit_core::op::ReduceOp;
use wavekit_core::width::WarpWidth;
use wavekit_core::{Collectives, Csr, Segments, VectorSize, WarpPrimitives};
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

pub fn err_tile_size<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let w = b.warp_width();
    let v = vec![1i32; 256];
    let mut sizes = vec![0, 1, 3, 6, 128, 2 * w.lanes()];
    sizes.dedup();
    for tile in sizes {
        let bad = |e: &E| matches!(e, E::InvalidTileSize { tile: t, .. } if *t == tile);
        let ctx = format!("tile={tile}");
        crate::check::fails(
            &format!("tile_shfl {ctx}"),
            b.tile_shfl(tile, Shfl::Xor, &v, 0),
            "InvalidTileSize",
            bad,
        )?;
        crate::check::fails(
            &format!("tile_vote {ctx}"),
            b.tile_vote(tile, Vote::All, &[true; 8]),
            "InvalidTileSize",
            bad,
        )?;
        crate::check::fails(
            &format!("tile_reduce {ctx}"),
            b.tile_reduce(tile, ReduceOp::Max, &v),
            "InvalidTileSize",
            bad,
        )?;
    }
    Ok(())
}

pub fn err_shuffle_arg<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let w = b.warp_width();
    let n = w.lanes();
    let v = vec![7u64; 100];
    for kind in KINDS {
        for arg in [n, n + 1, 2 * n, u32::MAX] {
            let ctx = format!("shfl {kind:?} arg={arg}");
            expect_err!(ctx, b.shfl(kind, &v, arg, n, LaneMask::full(w)), E::ShuffleArgOutOfRange { arg: a, limit } if *a == arg && *limit == n)?;
        }
        for tile in [2, 8, n] {
            for arg in [tile, tile + 1, n] {
                let ctx = format!("tile_shfl {kind:?} tile={tile} arg={arg}");
                expect_err!(ctx, b.tile_shfl(tile, kind, &v, arg), E::ShuffleArgOutOfRange { arg: a, limit } if *a == arg && *limit == tile)?;
            }
        }
    }
    Ok(())
}

pub fn err_block_size<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let buf = ok("upload", b.upload(&vec![1u32; 3000]))?;
    for block in [0, 1, 16, 48, 100, 1056, 2048, u32::MAX] {
        let ctx = format!("block={block}");
        expect_err!(ctx, b.block_reduce(&buf, block, ReduceOp::Sum), E::InvalidBlockSize(x) if *x == block)?;
    }
    Ok(())
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

pub fn err_scan_length<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let input = ok("upload", b.upload(&vec![1.0f32; 100]))?;
    for out_len in [0usize, 99, 101] {
        let mut out = ok("alloc", b.alloc::<f32>(out_len))?;
        let ctx = format!("scan of 100 into {out_len}");
        expect_err!(ctx, b.scan(&input, &mut out, ReduceOp::Sum, ScanKind::Inclusive), E::LengthMismatch { expected: 100, got, .. } if *got == out_len)?;
    }
    Ok(())
}

pub fn err_segments<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    expect_err!(
        "fixed(0)",
        Segments::<B>::fixed(0, VectorSize::Lanes(4)).map(drop),
        E::ZeroSegmentSize
    )?;
    let bad_offsets: [(&str, &[u32], usize, usize); 5] = [
        ("no offsets", &[], 0, 0),
        ("non-zero first", &[1, 5, 10], 10, 0),
        ("decreasing", &[0, 6, 4, 10], 10, 2),
        ("last below len", &[0, 4, 9], 10, 2),
        ("last past len", &[0, 4, 11], 10, 2),
    ];
    for (name, offsets, len, index) in bad_offsets {
        let r = Segments::from_offsets(b, offsets, len, VectorSize::Auto).map(drop);
        expect_err!(name, r, E::InvalidOffsets { index: i, .. } if *i == index)?;
    }
    // Offsets built for 10 elements used on 12.
    let segs = ok(
        "segments",
        Segments::from_offsets(b, &[0, 4, 10], 10, VectorSize::Auto),
    )?;
    let input = ok("upload", b.upload(&[1u32; 12]))?;
    expect_err!(
        "offsets for another length",
        b.segmented_reduce(&input, &segs, ReduceOp::Sum).map(drop),
        E::LengthMismatch { .. }
    )
}

pub fn err_csr<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let v = [1.0f32, 2.0, 3.0];
    let csr = |rows, cols, offs: &[u32], idx: &[u32], vals: &[f32]| {
        Csr::new(b, rows, cols, offs, idx, vals).map(drop)
    };
    expect_err!(
        "column 4 of 4",
        csr(2, 4, &[0, 1, 3], &[0, 4, 1], &v),
        E::ColumnOutOfRange {
            index: 1,
            col: 4,
            cols: 4
        }
    )?;
    expect_err!(
        "row offsets too short",
        csr(3, 4, &[0, 1, 3], &[0, 1, 2], &v),
        E::LengthMismatch {
            expected: 4,
            got: 3,
            ..
        }
    )?;
    expect_err!(
        "fewer values than columns",
        csr(2, 4, &[0, 1, 3], &[0, 1, 2], &v[..2]),
        E::LengthMismatch { .. }
    )?;
    expect_err!(
        "row offsets past nnz",
        csr(2, 4, &[0, 1, 4], &[0, 1, 2], &v),
        E::InvalidOffsets { .. }
    )?;
    expect_err!(
        "row offsets decreasing",
        csr(2, 4, &[0, 2, 1], &[0, 1, 2], &v),
        E::InvalidOffsets { .. }
    )?;
    let a = ok("csr", Csr::new(b, 2, 4, &[0, 1, 3], &[0, 3, 1], &v))?;
    let x_short = ok("upload", b.upload(&[1.0f32; 3]))?;
    let x = ok("upload", b.upload(&[1.0f32; 4]))?;
    let mut y = ok("alloc", b.alloc::<f32>(2))?;
    let mut y_long = ok("alloc", b.alloc::<f32>(3))?;
    expect_err!(
        "x shorter than cols",
        b.spmv(&a, &x_short, &mut y, VectorSize::Auto),
        E::LengthMismatch {
            expected: 4,
            got: 3,
            ..
        }
    )?;
    expect_err!(
        "y longer than rows",
        b.spmv(&a, &x, &mut y_long, VectorSize::Auto),
        E::LengthMismatch {
            expected: 2,
            got: 3,
            ..
        }
    )
}

pub fn err_vector_size<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let a = ok(
        "csr",
        Csr::new(b, 2, 4, &[0, 1, 3], &[0, 3, 1], &[1.0f64, 2.0, 3.0]),
    )?;
    let x = ok("upload", b.upload(&[1.0f64; 4]))?;
    let mut y = ok("alloc", b.alloc::<f64>(2))?;
    for v in [0u32, 3, 5, 48, 64, 128] {
        let bad = |e: &E| matches!(e, E::InvalidVectorSize(x) if *x == v);
        let lanes = VectorSize::Lanes(v);
        crate::check::fails(
            &format!("fixed vector {v}"),
            Segments::<B>::fixed(8, lanes).map(drop),
            "InvalidVectorSize",
            bad,
        )?;
        let r = Segments::from_offsets(b, &[0, 3, 10], 10, lanes).map(drop);
        crate::check::fails(&format!("offsets vector {v}"), r, "InvalidVectorSize", bad)?;
        crate::check::fails(
            &format!("spmv vector {v}"),
            b.spmv(&a, &x, &mut y, lanes),
            "InvalidVectorSize",
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

pub fn err_histogram_bins<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let keys = ok("upload", b.upload(&[0u32, 1, 2]))?;
    expect_err!("0 bins", b.histogram(&keys, 0).map(drop), E::ZeroBins)?;
    let empty = ok("alloc", b.alloc::<u32>(0))?;
    expect_err!(
        "0 bins, no keys",
        b.histogram(&empty, 0).map(drop),
        E::ZeroBins
    )
}

pub fn err_atomic_slot<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let lanes = b.warp_width().lanes() as usize;
    let n = 2 * lanes + 3;
    let mut slots: Vec<u32> = (0..n as u32).map(|t| t % 3).collect();
    slots[lanes + 1] = 3; // one past the three counters
    let initial = [10u32, 20, 30];
    let slot_buf = ok("upload", b.upload(&slots))?;
    let mut counters = ok("upload", b.upload(&initial))?;
    let r = b.atomic_agg_inc(&slot_buf, &mut counters).map(drop);
    expect_err!(
        "slot 3 of 3 counters",
        r,
        E::IndexOutOfRange {
            value: 3,
            limit: 3,
            ..
        }
    )?;
    // The bad thread's increment is skipped: no counter gains more than its valid threads.
    let finals = ok("download", b.download(&counters))?;
    for c in 0..3 {
        let valid = slots.iter().filter(|&&s| s == c as u32).count() as u32;
        if finals[c] != initial[c] && finals[c] != initial[c] + valid {
            return Err(format!(
                "counter {c}: started at {}, {valid} valid increments, ended at {}",
                initial[c], finals[c]
            ));
        }
    }
    let mut no_counters = ok("alloc", b.alloc::<u32>(0))?;
    expect_err!(
        "slots with no counters",
        b.atomic_agg_inc(&slot_buf, &mut no_counters).map(drop),
        E::EmptyInput { .. }
    )
}
