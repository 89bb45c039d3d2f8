//! CUDA-only rows: variants of wavekit's own kernels, so the run that fills BENCHMARKS.md also
//! shows why the launchers pick what they pick (device reduce tiles per block, histogram
//! aggregation). Each variant is checked against the reference before it is timed.

use super::ffi;
use super::reduce::cub_reduce;
use super::timer::{DeviceTimer, check};
use super::{inp, out, scratch};
use crate::case::{Case, CaseResult, Measured, Refused, check_all, check_one, random, size_of};
use crate::cases::{BINS, histogram_keys};
use crate::timing::{Baseline, Harness};
use wavekit::cuda::CudaBackend;
use wavekit::element::Element;
use wavekit::gpu::GpuRuntime;
use wavekit::gpu::ffi as wk;
use wavekit::op::ReduceOp;
use wavekit::{Backend, ScanKind};
use wavekit_conformance::reference;

/// A row of [`scan_variant`]: "scan inclusive|exclusive sum " and the variant's name, the
/// element type (the element column is its own name) and bench.h's variant.
macro_rules! scan_case {
    (inclusive, $name:literal, $t:ty, $variant:expr) => {
        scan_case!(@ concat!("scan inclusive sum ", $name), $t, $variant, Inclusive)
    };
    (exclusive, $name:literal, $t:ty, $variant:expr) => {
        scan_case!(@ concat!("scan exclusive sum ", $name), $t, $variant, Exclusive)
    };
    (@ $collective:expr, $t:ty, $variant:expr, $kind:ident) => {
        Case {
            collective: $collective,
            elem: <$t as Element>::KIND.name(),
            run: |b, h, n| scan_variant::<$t>(b, h, n, $variant, ScanKind::$kind),
        }
    };
}

pub fn cases() -> Vec<Case<CudaBackend>> {
    vec![
        Case {
            collective: "reduce sum k=1",
            elem: "f32",
            run: |b, h, n| reduce_k::<f32>(b, h, n, 1),
        },
        Case {
            collective: "reduce sum k=2",
            elem: "f32",
            run: |b, h, n| reduce_k::<f32>(b, h, n, 2),
        },
        Case {
            collective: "reduce sum k=4",
            elem: "f32",
            run: |b, h, n| reduce_k::<f32>(b, h, n, 4),
        },
        Case {
            collective: "reduce sum k=8",
            elem: "f32",
            run: |b, h, n| reduce_k::<f32>(b, h, n, 8),
        },
        Case {
            collective: "reduce sum k=1",
            elem: "f64",
            run: |b, h, n| reduce_k::<f64>(b, h, n, 1),
        },
        Case {
            collective: "reduce sum k=4",
            elem: "f64",
            run: |b, h, n| reduce_k::<f64>(b, h, n, 4),
        },
        Case {
            collective: "reduce sum k=1",
            elem: "f16",
            run: |b, h, n| reduce_k::<wavekit::f16>(b, h, n, 1),
        },
        Case {
            collective: "reduce sum k=2",
            elem: "f16",
            run: |b, h, n| reduce_k::<wavekit::f16>(b, h, n, 2),
        },
        Case {
            collective: "reduce sum k=4",
            elem: "f16",
            run: |b, h, n| reduce_k::<wavekit::f16>(b, h, n, 4),
        },
        // The 16-bit Sums in two launches as the launcher runs them from 2^26 elements
        // (k + 256; + 512: four tiles' partials each reduced alone, as before tile_partials).
        Case {
            collective: "reduce sum two k=4 per-tile",
            elem: "f16",
            run: |b, h, n| reduce_k::<wavekit::f16>(b, h, n, 4 | 256 | 512),
        },
        Case {
            collective: "reduce sum two k=4 per-tile",
            elem: "bf16",
            run: |b, h, n| reduce_k::<wavekit::bf16>(b, h, n, 4 | 256 | 512),
        },
        Case {
            collective: "reduce sum two k=4",
            elem: "f16",
            run: |b, h, n| reduce_k::<wavekit::f16>(b, h, n, 4 | 256),
        },
        Case {
            collective: "reduce sum two k=2",
            elem: "f16",
            run: |b, h, n| reduce_k::<wavekit::f16>(b, h, n, 2 | 256),
        },
        Case {
            collective: "reduce sum two k=1",
            elem: "f16",
            run: |b, h, n| reduce_k::<wavekit::f16>(b, h, n, 1 | 256),
        },
        // The 16-bit Max as the launcher runs it from 2^26 elements, then its four tiles' key
        // partials each reduced alone (+ 512), then also its values widened before the fold
        // (+ 1024: the kernel before fold_half_minmax).
        Case {
            collective: "reduce max two k=4",
            elem: "f16",
            run: |b, h, n| reduce_op_k::<wavekit::f16>(b, h, n, ReduceOp::Max, 4 | 256),
        },
        Case {
            collective: "reduce max two k=4 per-tile",
            elem: "f16",
            run: |b, h, n| reduce_op_k::<wavekit::f16>(b, h, n, ReduceOp::Max, 4 | 256 | 512),
        },
        Case {
            collective: "reduce max two k=4 widened",
            elem: "f16",
            run: |b, h, n| reduce_op_k::<wavekit::f16>(b, h, n, ReduceOp::Max, 4 | 256 | 1024),
        },
        Case {
            collective: "reduce max two k=4 widened",
            elem: "bf16",
            run: |b, h, n| reduce_op_k::<wavekit::bf16>(b, h, n, ReduceOp::Max, 4 | 256 | 1024),
        },
        Case {
            collective: "reduce min two k=4 widened",
            elem: "f16",
            run: |b, h, n| reduce_op_k::<wavekit::f16>(b, h, n, ReduceOp::Min, 4 | 256 | 1024),
        },
        Case {
            collective: "reduce sum e2e",
            elem: "f32",
            run: reduce_e2e::<f32>,
        },
        Case {
            collective: "reduce sum e2e",
            elem: "f64",
            run: reduce_e2e::<f64>,
        },
        scan_case!(inclusive, "tiles=1 blocks=6", f32, shape(1, 6)),
        scan_case!(inclusive, "tiles=1 blocks=7", i32, shape(1, 7)),
        scan_case!(inclusive, "tiles=2 blocks=3", f32, shape(2, 3)),
        scan_case!(inclusive, "tiles=2 blocks=3", i32, shape(2, 3)),
        scan_case!(inclusive, "tiles=2 blocks=4", f32, shape(2, 4)),
        scan_case!(inclusive, "tiles=2 blocks=4", i32, shape(2, 4)),
        scan_case!(
            inclusive,
            "tile parked in shared memory (before)",
            wavekit::f16,
            3
        ),
        scan_case!(
            inclusive,
            "tile parked in shared memory (before)",
            wavekit::bf16,
            3
        ),
        scan_case!(
            exclusive,
            "tile parked in shared memory (before)",
            wavekit::f16,
            3
        ),
        scan_case!(
            exclusive,
            "tile parked in shared memory (before)",
            wavekit::bf16,
            3
        ),
        scan_case!(inclusive, "tiles=1 blocks=4", i64, shape(1, 4)),
        scan_case!(inclusive, "tiles=1 blocks=6", i64, shape(1, 6)),
        scan_case!(inclusive, "blocks in index order", wavekit::f16, 5),
        scan_case!(inclusive, "blocks in index order", wavekit::bf16, 5),
        scan_case!(inclusive, "blocks in index order, 2 tiles", wavekit::f16, 6),
        scan_case!(
            inclusive,
            "blocks in index order, 2 tiles",
            wavekit::bf16,
            6
        ),
        scan_case!(inclusive, "4 logical threads a thread", wavekit::f16, 7),
        scan_case!(inclusive, "4 logical threads a thread", wavekit::bf16, 7),
        scan_case!(
            inclusive,
            "4 logical threads a thread, 3 tiles",
            wavekit::f16,
            8
        ),
        scan_case!(
            inclusive,
            "4 logical threads a thread, 3 tiles",
            wavekit::bf16,
            8
        ),
        scan_case!(inclusive, "loads via shared memory (before)", f32, 1),
        scan_case!(inclusive, "loads via shared memory (before)", i32, 1),
        scan_case!(inclusive, "stores 4 bytes a lane (before)", f32, 2),
        scan_case!(inclusive, "stores 4 bytes a lane (before)", i32, 2),
        scan_case!(inclusive, "stores 4 bytes a lane (before)", i64, 2),
        scan_case!(exclusive, "stores 4 bytes a lane (before)", f32, 2),
        scan_case!(exclusive, "stores 4 bytes a lane (before)", i32, 2),
        scan_case!(exclusive, "stores 4 bytes a lane (before)", i64, 2),
        Case {
            collective: "histogram 256 uniform adaptive",
            elem: "u32",
            run: |b, h, n| histogram_mode(b, h, n, false, 2),
        },
        Case {
            collective: "histogram 256 skewed adaptive",
            elem: "u32",
            run: |b, h, n| histogram_mode(b, h, n, true, 2),
        },
        Case {
            collective: "histogram 256 uniform match",
            elem: "u32",
            run: |b, h, n| histogram_mode(b, h, n, false, 1),
        },
        Case {
            collective: "histogram 256 skewed match",
            elem: "u32",
            run: |b, h, n| histogram_mode(b, h, n, true, 1),
        },
    ]
}

/// The device reduce with `k` tiles per block (the launcher picks by size), or in the shape
/// `k` names as device_reduce.cu's run_levels reads it (two launches, per-tile partials).
fn reduce_k<T: Element>(b: &CudaBackend, h: &Harness, n: usize, k: u32) -> CaseResult {
    reduce_op_k::<T>(b, h, n, ReduceOp::Sum, k)
}

/// [`reduce_k`] of `op`.
fn reduce_op_k<T: Element>(
    b: &CudaBackend,
    h: &Harness,
    n: usize,
    op: ReduceOp,
    k: u32,
) -> CaseResult {
    let x: Vec<T> = random(n, 1);
    let expected = reference::device_reduce(&x, op);
    let input = b.upload(&x)?;
    let kind = T::KIND as u32;
    let t = b.runtime().launchers();
    // SAFETY: a pure size computation.
    let bytes = unsafe { (t.scratch_bytes)(wk::ALGO_DEVICE_REDUCE, kind, n as u64) };
    let sc = scratch(b, bytes)?;
    let res = b.alloc::<T>(1)?;
    // SAFETY: `input` holds n elements, `sc` at least `bytes` bytes (scratch() rounds up) and `res`
    // one element: live buffers of this backend that nothing else uses while the launch runs.
    let launch = |s| unsafe {
        ffi::wk_bench_reduce_k(
            s,
            kind,
            op as u32,
            inp(&input),
            n as u64,
            out(&sc),
            bytes,
            out(&res),
            k,
        )
    };
    check(b, launch(super::stream(b)?), "reduce_k")?;
    check_one(expected, b.download(&res)?[0])?;
    let timer = DeviceTimer::new(b)?;
    let timing = timer.time(h, "reduce_k", launch)?;
    check_one(expected, b.download(&res)?[0])?;
    let baseline = cub_reduce(b, &timer, h, &input, op, expected)?;
    Ok(Measured {
        timing,
        bytes: size_of::<T>(n),
        input_bytes: size_of::<T>(n),
        baseline,
        read_only: true,
    })
}

/// bench.h's scan variant of a block shape: tiles per block x 16 + blocks per SM.
const fn shape(tiles: u32, blocks: u32) -> u32 {
    tiles * 16 + blocks
}

/// The inclusive or exclusive Sum scan in bench.h's `variant` (a [`shape`]; 1: the default
/// shape with its loads through shared memory; 2: with its stores 4 bytes a lane; 3: the
/// 16-bit floats' kernel before scan_pairs_kernel (csrc/kernels/device_scan_pairs.h), its tile's
/// float accumulators parked in shared memory through the look-back, 8 tiles an SM; 5 and 6:
/// scan_pairs_kernel with its blocks numbered by `blockIdx.x` instead of a ticket, four or two
/// tiles a block; 7 and 8: scan_pairs_kernel with four logical threads a thread, four tiles a
/// block five blocks an SM or three tiles six blocks), against the
/// launcher's default timed in the same run, every result checked against the reference.
fn scan_variant<T: Element>(
    b: &CudaBackend,
    h: &Harness,
    n: usize,
    variant: u32,
    scan: ScanKind,
) -> CaseResult {
    let x: Vec<T> = random(n, 1);
    let want = reference::device_scan(&x, ReduceOp::Sum, scan);
    let exclusive = u32::from(scan == ScanKind::Exclusive);
    let input = b.upload(&x)?;
    let kind = T::KIND as u32;
    let t = b.runtime().launchers();
    // SAFETY: a pure size computation.
    let bytes = unsafe { (t.scratch_bytes)(wk::ALGO_DEVICE_SCAN, kind, n as u64) };
    let sc = scratch(b, bytes)?;
    let res = b.alloc::<T>(n)?;
    // Tags as the backend's (tagged_pool.rs): the scratch zeroed by the first call only; each
    // variant may lay out its statuses alike, so one count serves them all.
    let tags = std::cell::Cell::new(0u32);
    let run = |variant: u32| {
        let (i, s_ptr, o) = (inp(&input), out(&sc), out(&res));
        let tags = &tags;
        // SAFETY: `input` and `res` hold n elements each, `sc` at least `bytes` bytes; the tag
        // grows on every call as the backend's own does, so the zeroed scratch reads as fresh;
        // nothing else uses these buffers meanwhile.
        move |s| unsafe {
            tags.set(tags.get() + 1);
            ffi::wk_bench_scan_b(
                s,
                kind,
                exclusive,
                i,
                n as u64,
                s_ptr,
                bytes,
                o,
                variant,
                tags.get(),
            )
        }
    };
    check(b, run(variant)(super::stream(b)?), "scan variant")?;
    check_all(&want, &b.download(&res)?)?;
    let timer = DeviceTimer::new(b)?;
    let timing = timer.time(h, "scan variant", run(variant))?;
    check_all(&want, &b.download(&res)?)?;
    let default = timer.time(h, "scan default", run(0))?;
    check_all(&want, &b.download(&res)?)?;
    Ok(Measured {
        timing,
        bytes: 2 * size_of::<T>(n),
        input_bytes: size_of::<T>(n),
        baseline: Some(Baseline {
            name: "default",
            timing: default,
        }),
        read_only: false,
    })
}

/// The device reduce timed end to end: the stream idle, then start event, the call, stop event,
/// so the GPU time includes waiting for the host to submit each launch (what a second launch
/// costs CUB in a real call), against CUB timed the same way.
fn reduce_e2e<T: Element>(b: &CudaBackend, h: &Harness, n: usize) -> CaseResult {
    let op = ReduceOp::Sum;
    let x: Vec<T> = random(n, 1);
    let expected = reference::device_reduce(&x, op);
    let input = b.upload(&x)?;
    let kind = T::KIND as u32;
    let t = b.runtime().launchers();
    // SAFETY: a pure size computation.
    let bytes = unsafe { (t.scratch_bytes)(wk::ALGO_DEVICE_REDUCE, kind, n as u64) };
    let sc = scratch(b, bytes)?;
    let res = b.alloc::<T>(1)?;
    let status = b.upload(&[0u64, u64::MAX])?;
    let st = out::<_, wk::Status>(&status);
    let timer = DeviceTimer::new(b)?;
    // SAFETY: `input` holds n elements, `sc` at least `bytes` bytes, `res` one element and `st` the
    // cleared status word in `status`; nothing else uses them meanwhile.
    let timing = timer.time_e2e(h, "device_reduce", |s| unsafe {
        (t.device_reduce)(
            s,
            st,
            kind,
            op as u32,
            inp(&input),
            n as u64,
            out(&sc),
            bytes,
            out(&res),
        )
    })?;
    check_one(expected, b.download(&res)?[0])?;
    let cub_res = b.alloc::<T>(1)?;
    let mut tb = 0usize;
    check(
        b,
        // SAFETY: a size query: nothing is launched.
        unsafe {
            ffi::wk_bench_cub_reduce(
                std::ptr::null_mut(),
                kind,
                op as u32,
                inp(&input),
                n as u64,
                out(&cub_res),
                std::ptr::null_mut(),
                &mut tb,
            )
        },
        "cub reduce",
    )?;
    let temp = scratch(b, tb as u64)?;
    // SAFETY: as above.
    let cub = timer.time_e2e(h, "cub reduce", |s| unsafe {
        let mut tb = tb;
        ffi::wk_bench_cub_reduce(
            s,
            kind,
            op as u32,
            inp(&input),
            n as u64,
            out(&cub_res),
            out(&temp),
            &mut tb,
        )
    })?;
    Ok(Measured {
        timing,
        bytes: size_of::<T>(n),
        input_bytes: size_of::<T>(n),
        baseline: Some(Baseline {
            name: "CUB",
            timing: cub,
        }),
        read_only: true,
    })
}

/// The histogram with aggregation `mode`, against plain atomics on shared-memory counts.
fn histogram_mode(b: &CudaBackend, h: &Harness, n: usize, skewed: bool, mode: i32) -> CaseResult {
    let keys = histogram_keys(n, skewed);
    let (counts, outside) = reference::histogram(&keys, BINS);
    let mut want = counts;
    want.push(outside);
    let buf = b.upload(&keys)?;
    let res = b.alloc::<u64>(BINS as usize + 1)?;
    let timer = DeviceTimer::new(b)?;
    let (keys_ptr, res_ptr) = (inp::<_, u32>(&buf), out::<_, u64>(&res));
    let run = |m: i32| {
        // SAFETY: `keys_ptr` points at the n keys of `buf` and `res_ptr` at the `BINS + 1` counts
        // of `res` (keys past the bins count in the last), both alive for the whole function.
        move |s| unsafe { ffi::wk_bench_histogram_mode(s, keys_ptr, n as u64, BINS, res_ptr, m) }
    };
    check(b, run(mode)(super::stream(b)?), "histogram mode")?;
    check_all(&want, &b.download(&res)?)?;
    let timing = timer.time(h, "histogram mode", run(mode))?;
    check_all(&want, &b.download(&res)?)?;
    let plain = timer.time(h, "plain histogram", run(0))?;
    check_all(&want, &b.download(&res)?).map_err(|e| match e {
        Refused::Wrong(d) => Refused::Wrong(format!("plain: {d}")),
        other => other,
    })?;
    Ok(Measured {
        timing,
        bytes: size_of::<u32>(n),
        input_bytes: size_of::<u32>(n),
        baseline: Some(Baseline {
            name: "shared atomics",
            timing: plain,
        }),
        read_only: true,
    })
}
