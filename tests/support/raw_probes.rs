//! Defence in depth on a GPU backend: raw calls whose arguments disagree with the buffers they
//! hand over (which the validated API never makes) are refused with a typed error by the
//! shared GPU backend or its kernels, instead of a kernel reading or writing past an
//! allocation (issue 11: SIGSEGV/SIGBUS on the executor, writes past device allocations on
//! CUDA and HIP, or a silently wrong result before). Each call is made with
//! `Validated::assume_checked`, wavekit-core's test hook. Run on the executor by
//! simt_raw_checks.rs and on CUDA, under compute-sanitizer memcheck, by cuda_probes.rs.

use wavekit::gpu::{GpuBackend, GpuRuntime};
use wavekit_core::error::WavekitError as E;
use wavekit_core::{
    Backend, LaneMask, Predicate, RawBackend, ReduceOp, ScanKind, SegmentSpec, Shfl, Validated,
    Vote, WarpLaunch, WarpWidth,
};

fn token() -> Validated {
    // SAFETY: GpuBackend checks every length, width, tile and block size of these calls
    // against the buffers it gets (the point of these tests), and its kernels the columns.
    unsafe { Validated::assume_checked() }
}

/// Every probe, on a backend `open` makes afresh for each.
#[macro_export]
macro_rules! raw_probes {
    (@each $open:expr, $reason:tt, $($probe:ident)*) => {
        $($crate::raw_probes!(@one $open, $reason, $probe);)*
    };
    (@one $open:expr, [$($reason:literal)?], $probe:ident) => {
        #[test]
        $(#[ignore = $reason])?
        fn $probe() {
            let b = $open;
            let w = wavekit::Backend::warp_width(&b);
            $crate::raw_probes::$probe(&b, w);
        }
    };
    ($open:expr $(, ignore = $reason:literal)?) => {
        $crate::raw_probes!(@each $open, [$($reason)?],
            device_scan_into_one_element compact_into_a_short_output warp_calls_with_short_values
            widths_tiles_blocks_and_masks_the_kernels_cannot_run
            activemask_of_every_thread_is_out_of_memory spmv_with_columns_past_x_and_short_buffers
            spmv_planned_with_another_matrix_plan spmv_unplanned_over_a_run_of_empty_rows
            segmented_reduce_and_atomics_with_short_outputs segment_offsets_past_the_input
            queued_kernel_errors_name_their_launch);
    };
}

fn launch(threads: usize, w: WarpWidth) -> WarpLaunch {
    WarpLaunch {
        threads,
        mask: LaneMask::full(w),
    }
}

fn is_len(r: &E, expected: usize, got: usize) -> bool {
    matches!(r, E::LengthMismatch { expected: e, got: g, .. } if *e == expected && *g == got)
}

pub fn device_scan_into_one_element<R: GpuRuntime>(b: &GpuBackend<R>, _: WarpWidth) {
    let input = b.upload(&[1u32; 100]).unwrap();
    let mut out = b.upload(&[7u32]).unwrap();
    let r = b.raw_device_scan(
        token(),
        &input,
        &mut out,
        ReduceOp::Sum,
        ScanKind::Inclusive,
    );
    assert!(is_len(&r.unwrap_err(), 100, 1));
    assert_eq!(b.download(&out).unwrap(), [7]);
}

pub fn compact_into_a_short_output<R: GpuRuntime>(b: &GpuBackend<R>, _: WarpWidth) {
    let input = b.upload(&[5u32; 1000]).unwrap();
    for stable in [true, false] {
        let mut out = b.alloc::<u32>(3).unwrap();
        let mut count = b.alloc::<u64>(1).unwrap();
        let r = b.raw_compact(
            token(),
            &input,
            Predicate::Ge(0),
            stable,
            &mut out,
            &mut count,
        );
        assert!(is_len(&r.unwrap_err(), 1000, 3), "stable={stable}");
    }
}

pub fn warp_calls_with_short_values<R: GpuRuntime>(b: &GpuBackend<R>, w: WarpWidth) {
    let lanes = w.lanes() as usize;
    let short = [1u32, 2, 3];
    let r = b.raw_tile_shfl(token(), 2 * lanes, 4, Shfl::Down, &short, 1);
    assert!(is_len(&r.unwrap_err(), 2 * lanes, 3));
    let r = b.raw_tile_reduce(token(), lanes, 4, ReduceOp::Sum, &short);
    assert!(is_len(&r.unwrap_err(), lanes, 3));
    let r = b.raw_tile_vote(token(), lanes, 4, Vote::Any, &[true; 2]);
    assert!(is_len(&r.unwrap_err(), lanes, 2));
    let r = b.raw_shfl(token(), &launch(lanes, w), Shfl::Idx, &short, 0, 4);
    assert!(is_len(&r.unwrap_err(), lanes, 3));
    let r = b.raw_vote(token(), &launch(lanes, w), Vote::Ballot, &[true; 5]);
    assert!(is_len(&r.unwrap_err(), lanes, 5));
    let r = b.raw_match(
        token(),
        &launch(lanes + 1, w),
        wavekit_core::Match::Any,
        &short,
    );
    assert!(is_len(&r.unwrap_err(), lanes + 1, 3));
    let r = b.raw_syncwarp_transpose(token(), &launch(lanes, w), &short);
    assert!(is_len(&r.unwrap_err(), lanes, 3));
}

pub fn widths_tiles_blocks_and_masks_the_kernels_cannot_run<R: GpuRuntime>(
    b: &GpuBackend<R>,
    w: WarpWidth,
) {
    let lanes = w.lanes() as usize;
    let vals = vec![1u32; lanes];
    for width in [0, 3, 2 * w.lanes()] {
        let r = b.raw_shfl(token(), &launch(lanes, w), Shfl::Xor, &vals, 1, width);
        assert!(
            matches!(r, Err(E::InvalidSubWidth { .. })),
            "{width}: {r:?}"
        );
        let r = b.raw_warp_reduce(token(), &vals, width, ReduceOp::Sum);
        assert!(
            matches!(r, Err(E::InvalidSubWidth { .. })),
            "{width}: {r:?}"
        );
        let r = b.raw_warp_scan(token(), &vals, width, ReduceOp::Sum, ScanKind::Exclusive);
        assert!(
            matches!(r, Err(E::InvalidSubWidth { .. })),
            "{width}: {r:?}"
        );
    }
    let r = b.raw_tile_reduce(token(), lanes, 0, ReduceOp::Sum, &vals);
    assert!(matches!(r, Err(E::InvalidTileSize { .. })), "{r:?}");
    let input = b.upload(&vals).unwrap();
    // Block 0 divided the element count by zero before.
    let mut out = b.alloc::<u32>(1).unwrap();
    let r = b.raw_block_reduce(token(), &input, 0, ReduceOp::Sum, &mut out);
    assert!(matches!(r, Err(E::InvalidBlockSize(0))), "{r:?}");
    let other = if w == WarpWidth::W32 {
        WarpWidth::W64
    } else {
        WarpWidth::W32
    };
    let r = b.raw_vote(
        token(),
        &launch(lanes, other),
        Vote::Any,
        &vec![true; lanes],
    );
    assert!(matches!(r, Err(E::MaskWidthMismatch { .. })), "{r:?}");
}

pub fn activemask_of_every_thread_is_out_of_memory<R: GpuRuntime>(b: &GpuBackend<R>, w: WarpWidth) {
    // `n * 8` overflowed (a debug-build panic) before the per-lane output size was checked.
    {
        for threads in [usize::MAX, usize::MAX / 8 + 1] {
            let r = b.raw_activemask(token(), &launch(threads, w));
            assert!(matches!(r, Err(E::OutOfMemory { .. })), "{threads}: {r:?}");
        }
    }
}

pub fn spmv_with_columns_past_x_and_short_buffers<R: GpuRuntime>(b: &GpuBackend<R>, _: WarpWidth) {
    // 2 rows: row 0 = {col 0}, row 1 = {col 1, col 9}; x has 3 elements.
    let offsets = b.upload(&[0u32, 1, 3]).unwrap();
    let cols = b.upload(&[0u32, 1, 9]).unwrap();
    let vals = b.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    let x = b.upload(&[1.0f32; 3]).unwrap();
    let mut y = b.alloc::<f32>(2).unwrap();
    for vector in [1, 2, 4] {
        // The column check runs in the kernel: asynchronous, reported at the synchronisation.
        let r = b
            .raw_spmv(token(), &offsets, &cols, &vals, &x, &mut y, vector)
            .and_then(|()| b.synchronize());
        assert!(
            matches!(
                r,
                Err(E::IndexOutOfRange {
                    value: 9,
                    limit: 3,
                    ..
                })
            ),
            "vector {vector}: {r:?}"
        );
    }
    // y longer than the row offsets allow, and values shorter than the columns.
    let mut long_y = b.alloc::<f32>(5).unwrap();
    let r = b.raw_spmv(token(), &offsets, &cols, &vals, &x, &mut long_y, 1);
    assert!(is_len(&r.unwrap_err(), 6, 3));
    let short_vals = b.upload(&[1.0f32]).unwrap();
    let r = b.raw_spmv(token(), &offsets, &cols, &short_vals, &x, &mut y, 1);
    assert!(is_len(&r.unwrap_err(), 3, 1));
    // Row offsets past the nonzeros are clamped: row 1 reads only what exists.
    let past = b.upload(&[0u32, 1, 50]).unwrap();
    let good_cols = b.upload(&[0u32, 1, 2]).unwrap();
    b.raw_spmv(token(), &past, &good_cols, &vals, &x, &mut y, 1)
        .unwrap();
    assert_eq!(b.download(&y).unwrap(), [1.0, 5.0]);
}

pub fn spmv_planned_with_another_matrix_plan<R: GpuRuntime>(b: &GpuBackend<R>, _: WarpWidth) {
    // A matrix of 3000 rows, one nonzero each, and its own plan: the planned launch gives the
    // vector-kernel bits. The longest row passed as unknown (usize::MAX) keeps the planned
    // launch on the chunk kernel, whose partition is what this probes.
    let rows = 3000usize;
    let offsets: Vec<u32> = (0..=rows as u32).collect();
    let cols: Vec<u32> = (0..rows as u32).collect();
    let vals: Vec<f32> = (0..rows).map(|i| i as f32).collect();
    let (o, c, v) = (
        b.upload(&offsets).unwrap(),
        b.upload(&cols).unwrap(),
        b.upload(&vals).unwrap(),
    );
    let x = b.upload(&vec![2.0f32; rows]).unwrap();
    let mut y = b.alloc::<f32>(rows).unwrap();
    let plan = b
        .raw_spmv_plan(token(), &o, rows)
        .unwrap()
        .expect("a GPU plan");
    b.raw_spmv_planned(token(), &o, &c, &v, &plan, usize::MAX, &x, &mut y, 1)
        .unwrap();
    let want: Vec<f32> = vals.iter().map(|a| a * 2.0).collect();
    assert_eq!(b.download(&y).unwrap(), want);
    // The plan of a 3-row matrix whose one row holds every nonzero, on the 3000-row one: rows
    // past the plan's are not written, and nothing is read or written outside the buffers.
    let skewed: Vec<u32> = [0u32, 0, rows as u32, rows as u32].to_vec();
    let so = b.upload(&skewed).unwrap();
    let other = b
        .raw_spmv_plan(token(), &so, rows)
        .unwrap()
        .expect("a GPU plan");
    b.write(&mut y, &vec![-1.0f32; rows]).unwrap();
    b.raw_spmv_planned(token(), &o, &c, &v, &other, usize::MAX, &x, &mut y, 1)
        .unwrap();
    b.synchronize().unwrap();
    let got = b.download(&y).unwrap();
    assert!(
        got.iter().zip(&want).all(|(g, w)| *g == -1.0 || g == w),
        "{got:?}"
    );
    // And the other way: the 3000-row plan on the 3-row matrix (same nonzero count). Its
    // blocks past row 3 are clamped to nothing; the first covers every row.
    let (sc, sv) = (b.upload(&cols).unwrap(), b.upload(&vals).unwrap());
    let mut y3 = b.alloc::<f32>(3).unwrap();
    b.raw_spmv_planned(token(), &so, &sc, &sv, &plan, usize::MAX, &x, &mut y3, 1)
        .unwrap();
    let row1 = vals.iter().fold(0.0f32, |acc, a| acc + a * 2.0);
    assert_eq!(b.download(&y3).unwrap(), [0.0, row1, 0.0]);
}

pub fn spmv_unplanned_over_a_run_of_empty_rows<R: GpuRuntime>(b: &GpuBackend<R>, _: WarpWidth) {
    // raw_spmv's chunks are of nonzeros, so the 3000 empty rows here all start in one chunk and
    // its block folds them from global offsets (more than it stages); Csr's plan splits rows and
    // nonzeros together and never gives a block that many, so only this call reaches that path.
    // A row of 5000 nonzeros runs past a block's window. Small integers: every order gives the
    // same sums, so the expectation is a plain loop.
    let mut lens: Vec<u32> = (0..400u32).map(|r| r % 23).collect();
    lens.extend(std::iter::repeat_n(0, 3000));
    lens.push(5000);
    lens.extend((0..400u32).map(|r| (r * 7) % 19));
    let rows = lens.len();
    let mut offsets = vec![0u32];
    for l in &lens {
        offsets.push(offsets.last().unwrap() + l);
    }
    let nnz = *offsets.last().unwrap() as usize;
    let cols: Vec<u32> = (0..nnz).map(|k| ((k * 7919) % rows) as u32).collect();
    let vals: Vec<i32> = (0..nnz).map(|k| (k % 7) as i32 - 3).collect();
    let x: Vec<i32> = (0..rows).map(|c| (c % 5) as i32 - 2).collect();
    let want: Vec<i32> = (0..rows)
        .map(|r| {
            (offsets[r] as usize..offsets[r + 1] as usize)
                .map(|k| vals[k] * x[cols[k] as usize])
                .sum()
        })
        .collect();
    let (o, c, v, xb) = (
        b.upload(&offsets).unwrap(),
        b.upload(&cols).unwrap(),
        b.upload(&vals).unwrap(),
        b.upload(&x).unwrap(),
    );
    let mut y = b.alloc::<i32>(rows).unwrap();
    let plan = b
        .raw_spmv_plan(token(), &o, nnz)
        .unwrap()
        .expect("a GPU plan");
    for vector in [1u32, 4, 32] {
        b.write(&mut y, &vec![i32::MIN; rows]).unwrap();
        b.raw_spmv(token(), &o, &c, &v, &xb, &mut y, vector)
            .unwrap();
        assert_eq!(b.download(&y).unwrap(), want, "raw_spmv, vector {vector}");
        b.write(&mut y, &vec![i32::MIN; rows]).unwrap();
        b.raw_spmv_planned(token(), &o, &c, &v, &plan, 5000, &xb, &mut y, vector)
            .unwrap();
        assert_eq!(b.download(&y).unwrap(), want, "planned, vector {vector}");
    }
}

pub fn segmented_reduce_and_atomics_with_short_outputs<R: GpuRuntime>(
    b: &GpuBackend<R>,
    _: WarpWidth,
) {
    let input = b.upload(&[1u32; 100]).unwrap();
    let mut out = b.alloc::<u32>(2).unwrap();
    let fixed = SegmentSpec::Fixed {
        size: 10,
        count: 10,
        vector: 4,
    };
    let r = b.raw_segmented_reduce(token(), &input, fixed, ReduceOp::Sum, &mut out);
    assert!(is_len(&r.unwrap_err(), 10, 2));
    let offsets = b.upload(&[0u32, 50]).unwrap();
    let by_offsets = SegmentSpec::Offsets {
        offsets: &offsets,
        count: 2,
        vector: 4,
        longest: 50,
    };
    let r = b.raw_segmented_reduce(token(), &input, by_offsets, ReduceOp::Sum, &mut out);
    assert!(is_len(&r.unwrap_err(), 3, 2));

    let slots = b.upload(&[0u32; 64]).unwrap();
    let mut counters = b.upload(&[0u32]).unwrap();
    let mut olds = b.alloc::<u32>(1).unwrap();
    let r = b.raw_atomic_agg_inc(token(), &slots, &mut counters, &mut olds);
    assert!(is_len(&r.unwrap_err(), 64, 1));
    assert_eq!(b.download(&counters).unwrap(), [0]);
}

pub fn segment_offsets_past_the_input<R: GpuRuntime>(b: &GpuBackend<R>, _: WarpWidth) {
    // 100 elements; segment 1 ends at 150 and segment 2 runs from 150 to 4000. The kernel read
    // past the input before (the launch was not checked at all).
    let input = b.upload(&[1u32; 100]).unwrap();
    let offsets = b.upload(&[0u32, 60, 150, 4000]).unwrap();
    let mut out = b.upload(&[7u32; 3]).unwrap();
    for vector in [1, 4, 32] {
        let spec = SegmentSpec::Offsets {
            offsets: &offsets,
            count: 3,
            vector,
            longest: 3850,
        };
        let r = b
            .raw_segmented_reduce(token(), &input, spec, ReduceOp::Sum, &mut out)
            .and_then(|()| b.synchronize());
        assert_eq!(
            r,
            Err(E::IndexOutOfRange {
                what: "segment offset",
                value: 150,
                limit: 101,
            }),
            "vector {vector}"
        );
        // The segment inside the input holds its sum; the others only what is inside.
        assert_eq!(b.download(&out).unwrap(), [60, 40, 0], "vector {vector}");
    }
}

pub fn queued_kernel_errors_name_their_launch<R: GpuRuntime>(b: &GpuBackend<R>, _: WarpWidth) {
    // A good SpMV, a bad one, a good segmented reduce, queued back to back: the error at the
    // synchronisation is the bad SpMV's, with its column, although three launches that can
    // report one were queued (before: a Device error naming the first launch "or one of the 2
    // launches queued after it").
    let offsets = b.upload(&[0u32, 1, 3]).unwrap();
    let good = b.upload(&[0u32, 1, 2]).unwrap();
    let bad = b.upload(&[0u32, 1, 9]).unwrap();
    let vals = b.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    let x = b.upload(&[1.0f32; 3]).unwrap();
    let mut y1 = b.alloc::<f32>(2).unwrap();
    let mut y2 = b.alloc::<f32>(2).unwrap();
    let input = b.upload(&[1u32; 10]).unwrap();
    let seg_offsets = b.upload(&[0u32, 4, 10]).unwrap();
    let mut sums = b.alloc::<u32>(2).unwrap();
    let spec = SegmentSpec::Offsets {
        offsets: &seg_offsets,
        count: 2,
        vector: 2,
        longest: 6,
    };
    b.raw_spmv(token(), &offsets, &good, &vals, &x, &mut y1, 1)
        .unwrap();
    b.raw_spmv(token(), &offsets, &bad, &vals, &x, &mut y2, 1)
        .unwrap();
    b.raw_segmented_reduce(token(), &input, spec, ReduceOp::Sum, &mut sums)
        .unwrap();
    assert_eq!(
        b.synchronize(),
        Err(E::IndexOutOfRange {
            what: "SpMV column",
            value: 9,
            limit: 3,
        })
    );
    // The launches around it ran; the status is clear again.
    assert_eq!(b.download(&y1).unwrap(), [1.0, 5.0]);
    assert_eq!(b.download(&sums).unwrap(), [4, 6]);
    assert_eq!(b.synchronize(), Ok(()));
}
