//! CUDA-only rows of issue 13's kernel choices, each against the alternative in the same run:
//! the integer warp reduce on the hardware reduce against the shuffle butterfly (a warp-level
//! microbenchmark), the stable and unordered compaction in other shapes (tiles a block, blocks
//! per SM, loads through shared memory) against the default, and the sliced shared-memory
//! histogram of 65536 bins against the global-atomics method the launcher used before. Every
//! result is checked against the reference before it is timed.

use super::ffi;
use super::timer::{DeviceTimer, check};
use super::{inp, out, scratch, stream};
use crate::case::{Case, CaseResult, Measured, Refused, check_all, random, size_of};
use crate::cases::keys_for;
use crate::timing::{Baseline, Harness};
use rayon::prelude::*;
use wavekit::Backend;
use wavekit::Predicate;
use wavekit::cuda::CudaBackend;
use wavekit::element::Element;
use wavekit::gpu::GpuRuntime;
use wavekit::gpu::ffi as wk;
use wavekit_conformance::reference;

pub fn cases() -> Vec<Case<CudaBackend>> {
    vec![
        Case {
            collective: "warp reduce sum rounds",
            elem: "i32",
            run: warp_rounds,
        },
        Case {
            collective: "compact x>0 stable via shared memory (before)",
            elem: "f32",
            run: |b, h, n| compact_shape::<f32>(b, h, n, true, 128 + 2 * 16 + 4),
        },
        Case {
            collective: "compact x>0 stable tiles=1 blocks=7",
            elem: "f32",
            run: |b, h, n| compact_shape::<f32>(b, h, n, true, 7),
        },
        Case {
            collective: "compact x>0 stable tiles=1 blocks=8",
            elem: "f32",
            run: |b, h, n| compact_shape::<f32>(b, h, n, true, 8),
        },
        Case {
            collective: "compact x>0 stable tiles=2 blocks=3",
            elem: "f32",
            run: |b, h, n| compact_shape::<f32>(b, h, n, true, 2 * 16 + 3),
        },
        Case {
            collective: "compact x>0 unordered via shared memory (before)",
            elem: "f32",
            run: |b, h, n| compact_shape::<f32>(b, h, n, false, 128 + 7),
        },
        Case {
            collective: "compact x>0 unordered tiles=1 blocks=compiler",
            elem: "f32",
            run: |b, h, n| compact_shape::<f32>(b, h, n, false, 1),
        },
        Case {
            collective: "compact x>0 unordered tiles=1 blocks=8",
            elem: "f32",
            run: |b, h, n| compact_shape::<f32>(b, h, n, false, 8),
        },
        Case {
            collective: "compact x>0 unordered tiles=2 blocks=4",
            elem: "f32",
            run: |b, h, n| compact_shape::<f32>(b, h, n, false, 2 * 16 + 4),
        },
        Case {
            collective: "partition x>0 via shared memory (before)",
            elem: "f32",
            run: |b, h, n| partition_shape::<f32>(b, h, n, 128 + 6),
        },
        Case {
            collective: "partition x>0 tiles=1 blocks=6",
            elem: "f32",
            run: |b, h, n| partition_shape::<f32>(b, h, n, 6),
        },
        // 8-byte elements at the floor they had, which spilled (ptxas: 200-1500 bytes a thread).
        Case {
            collective: "compact x>0 stable tiles=1 blocks=7 (before)",
            elem: "f64",
            run: |b, h, n| compact_shape::<f64>(b, h, n, true, 7),
        },
        Case {
            collective: "compact x>0 unordered tiles=1 blocks=7 (before)",
            elem: "f64",
            run: |b, h, n| compact_shape::<f64>(b, h, n, false, 7),
        },
        Case {
            collective: "partition x>0 tiles=1 blocks=6 (before)",
            elem: "f64",
            run: |b, h, n| partition_shape::<f64>(b, h, n, 6),
        },
        Case {
            collective: "histogram 65536 uniform vs before",
            elem: "u32",
            run: |b, h, n| histogram_before(b, h, n, false),
        },
        Case {
            collective: "histogram 65536 skewed vs before",
            elem: "u32",
            run: |b, h, n| histogram_before(b, h, n, true),
        },
    ]
}

/// What `wk_bench_warp_rounds` computes, warp by warp (`lanes` a warp, lanes past n hold 0).
fn warp_rounds_reference(x: &[i32], lanes: usize, rounds: u32) -> Vec<i32> {
    x.chunks(lanes)
        .map(|w| {
            let mut v: Vec<i32> = (0..lanes).map(|l| w.get(l).copied().unwrap_or(0)).collect();
            for r in 0..rounds {
                let s = v.iter().fold(0i32, |a, &b| a.wrapping_add(b));
                for (l, x) in v.iter_mut().enumerate() {
                    *x = s.wrapping_add((l as u32 ^ r) as i32);
                }
            }
            v[0]
        })
        .collect()
}

/// `rounds` dependent warp sums per thread: redux.sync (through prims::bfly) against the
/// shuffle butterfly.
fn warp_rounds(b: &CudaBackend, h: &Harness, n: usize) -> CaseResult {
    let x: Vec<i32> = random(n, 17);
    // SAFETY: a constant of the bench object.
    let rounds = unsafe { ffi::wk_bench_warp_rounds_count() };
    let want = warp_rounds_reference(&x, b.warp_width().lanes() as usize, rounds);
    let input = b.upload(&x)?;
    let res = b.alloc::<i32>(want.len())?;
    let timer = DeviceTimer::new(b)?;
    let (i, o) = (inp::<_, i32>(&input), out::<_, i32>(&res));
    let run = |hw: u32| {
        // SAFETY: `i` points at the n inputs of `input` and `o` at `res`, which holds one sum per
        // warp's worth of threads (`want.len()`, the reference's count); both alive for the whole
        // function.
        move |s| unsafe { ffi::wk_bench_warp_rounds(s, i, n as u64, o, hw) }
    };
    check(b, run(1)(stream(b)?), "warp rounds")?;
    check_all(&want, &b.download(&res)?)?;
    let timing = timer.time(h, "warp rounds redux", run(1))?;
    check_all(&want, &b.download(&res)?)?;
    let shuffle = timer.time(h, "warp rounds shuffle", run(0))?;
    check_all(&want, &b.download(&res)?)?;
    Ok(Measured {
        timing,
        bytes: size_of::<i32>(n),
        input_bytes: size_of::<i32>(n),
        baseline: Some(Baseline {
            name: "shuffle butterfly",
            timing: shuffle,
        }),
        read_only: true,
    })
}

/// The compaction in another shape, against the default: `blocks` is what the launcher's
/// `blocks` argument takes (1..8: one tile a block compiled for that many blocks per SM,
/// tiles per block times 16 plus blocks per SM, 128 + a default shape: loaded through shared
/// memory).
fn compact_shape<T: Element>(
    b: &CudaBackend,
    h: &Harness,
    n: usize,
    stable: bool,
    blocks: u32,
) -> CaseResult {
    let x: Vec<T> = random(n, 11);
    let mut want = reference::compact(&x, &Predicate::Gt(T::default()));
    if !stable {
        // Unordered keeps the multiset: compare in bit order.
        want.par_sort_unstable_by_key(|v| v.to_bits());
    }
    let input = b.upload(&x)?;
    // SAFETY: a pure size computation.
    let bytes = unsafe {
        (b.runtime().launchers().scratch_bytes)(wk::ALGO_COMPACT, T::KIND as u32, n as u64)
    };
    let sc = scratch(b, bytes)?;
    let res = b.alloc::<T>(n)?;
    let count = b.alloc::<u64>(1)?;
    let timer = DeviceTimer::new(b)?;
    let (i, s_ptr, o, c) = (
        inp::<_, std::ffi::c_void>(&input),
        out::<_, std::ffi::c_void>(&sc),
        out::<_, std::ffi::c_void>(&res),
        out::<_, u64>(&count),
    );
    let run = |blocks: u32| {
        // SAFETY: `i` points at the n inputs, `o` at `res` (n elements: a compaction writes at most
        // n), `c` at the one-u64 `count` and `s_ptr` at `sc`, at least `bytes` bytes: all alive for
        // the whole function and used by nothing else.
        move |s| unsafe {
            ffi::wk_bench_compact_b(
                s,
                T::KIND as u32,
                i,
                n as u64,
                T::default().to_bits(),
                s_ptr,
                bytes,
                o,
                c,
                stable as u32,
                blocks,
            )
        }
    };
    let verify = |b: &CudaBackend| -> Result<(), Refused> {
        let got = b.download(&count)?[0] as usize;
        let mut have = b.download(&res)?;
        have.truncate(got.min(n));
        if !stable {
            have.par_sort_unstable_by_key(|v| v.to_bits());
        }
        check_all(&want, &have)
    };
    let (timing, default) = timer.shape_against_default(h, "compact shape", blocks, run, verify)?;
    Ok(Measured {
        timing,
        bytes: size_of::<T>(n + want.len()),
        input_bytes: size_of::<T>(n),
        baseline: Some(default),
        read_only: false,
    })
}

/// The stable two-way partition (f32 or f64, x > 0) in another shape, against the default: `blocks`
/// is what the launcher's `blocks` argument takes (6: one tile a block at six blocks an SM,
/// 128 + 6: the same loaded through shared memory).
fn partition_shape<T: Element>(b: &CudaBackend, h: &Harness, n: usize, blocks: u32) -> CaseResult {
    let x: Vec<T> = random(n, 13);
    let (want, selected) = reference::partition(&x, &Predicate::Gt(T::default()));
    let input = b.upload(&x)?;
    // SAFETY: a pure size computation.
    let bytes = unsafe {
        (b.runtime().launchers().scratch_bytes)(wk::ALGO_PARTITION, T::KIND as u32, n as u64)
    };
    let sc = scratch(b, bytes)?;
    let res = b.alloc::<T>(n)?;
    let count = b.alloc::<u64>(1)?;
    let timer = DeviceTimer::new(b)?;
    let (i, s_ptr, o, c) = (
        inp::<_, std::ffi::c_void>(&input),
        out::<_, std::ffi::c_void>(&sc),
        out::<_, std::ffi::c_void>(&res),
        out::<_, u64>(&count),
    );
    let run = |blocks: u32| {
        // SAFETY: `i` points at the n inputs, `o` at `res` (n elements, the partition's length),
        // `c` at the one-u64 `count` and `s_ptr` at `sc`, at least `bytes` bytes: all alive for the
        // whole function and used by nothing else.
        move |s| unsafe {
            ffi::wk_bench_partition_b(
                s,
                T::KIND as u32,
                i,
                n as u64,
                T::default().to_bits(),
                s_ptr,
                bytes,
                o,
                c,
                blocks,
            )
        }
    };
    let verify = |b: &CudaBackend| -> Result<(), Refused> {
        let got = b.download(&count)?[0] as usize;
        if got != selected {
            return Err(Refused::Wrong(format!(
                "first part of {got} elements, expected {selected}"
            )));
        }
        check_all(&want, &b.download(&res)?)
    };
    let (timing, default) =
        timer.shape_against_default(h, "partition shape", blocks, run, verify)?;
    Ok(Measured {
        timing,
        bytes: size_of::<T>(2 * n),
        input_bytes: size_of::<T>(n),
        baseline: Some(default),
        read_only: false,
    })
}

/// The launcher's 65536-bin histogram (sliced shared-memory counts) against the method it used
/// before (adaptive warp aggregation on global counts, mode 2), on the same keys.
fn histogram_before(b: &CudaBackend, h: &Harness, n: usize, skewed: bool) -> CaseResult {
    const BINS: u32 = 65536;
    let keys = keys_for(n, skewed, BINS);
    let (mut want, outside) = reference::histogram(&keys, BINS);
    want.push(outside);
    let buf = b.upload(&keys)?;
    let res = b.alloc::<u64>(BINS as usize + 1)?;
    let timer = DeviceTimer::new(b)?;
    let (k, r) = (inp::<_, u32>(&buf), out::<_, u64>(&res));
    let run = |mode: i32| {
        // SAFETY: `k` points at the n keys of `buf` and `r` at the `BINS + 1` counts of `res` (keys
        // past the bins count in the last), both alive for the whole function.
        move |s| unsafe { ffi::wk_bench_histogram_mode(s, k, n as u64, BINS, r, mode) }
    };
    check(b, run(4)(stream(b)?), "sliced histogram")?;
    check_all(&want, &b.download(&res)?)?;
    let timing = timer.time(h, "sliced histogram", run(4))?;
    check_all(&want, &b.download(&res)?)?;
    let before = timer.time(h, "global adaptive histogram", run(2))?;
    check_all(&want, &b.download(&res)?)?;
    Ok(Measured {
        timing,
        bytes: size_of::<u32>(n),
        input_bytes: size_of::<u32>(n),
        baseline: Some(Baseline {
            name: "global adaptive (before)",
            timing: before,
        }),
        read_only: true,
    })
}
