//! CUDA-only rows of the runs and by-key kernels' shapes (blocks per SM, tiles a block, loads
//! through shared memory), each against the default shape in the same run on the same input:
//! `u32` keys in runs of 8 (and `f32` values), as the runs and by-key rows. Every result is
//! checked against the reference before and after it is timed.

use super::ffi;
use super::timer::DeviceTimer;
use super::{inp, out, scratch};
use crate::by_key::by_key_input;
use crate::case::{Case, CaseResult, Measured, Refused, check_all, size_of};
use crate::runs::run_keys;
use crate::timing::Harness;
use wavekit::Backend;
use wavekit::cuda::CudaBackend;
use wavekit::element::ElemKind;
use wavekit::gpu::GpuRuntime;
use wavekit::gpu::ffi as wk;
use wavekit_conformance::reference;

/// One row: run-length encode (`lengths`) or unique in the shape `blocks`.
macro_rules! shape_case {
    ($name:literal, $lengths:expr, $blocks:expr) => {
        Case {
            collective: $name,
            elem: "u32",
            run: |b, h, n| runs_shape(b, h, n, $lengths, $blocks),
        }
    };
}

pub fn cases() -> Vec<Case<CudaBackend>> {
    vec![
        shape_case!(
            "unique runs of 8 via shared memory (before)",
            false,
            128 + 6
        ),
        shape_case!("unique runs of 8 blocks=compiler", false, 1),
        shape_case!("unique runs of 8 blocks=6", false, 6),
        shape_case!("unique runs of 8 blocks=8", false, 8),
        shape_case!("unique runs of 8 tiles=2 blocks=3", false, 2 * 16 + 3),
        shape_case!("unique runs of 8 tiles=2 blocks=4", false, 2 * 16 + 4),
        shape_case!(
            "run_length_encode runs of 8 via shared memory (before)",
            true,
            128 + 6
        ),
        shape_case!("run_length_encode runs of 8 blocks=6", true, 6),
        shape_case!("run_length_encode runs of 8 blocks=8", true, 8),
        Case {
            collective: "reduce_by_key runs of 8 blocks=5",
            elem: "f32",
            run: |b, h, n| reduce_by_key_shape(b, h, n, 5),
        },
        Case {
            collective: "reduce_by_key runs of 8 blocks=8",
            elem: "f32",
            run: |b, h, n| reduce_by_key_shape(b, h, n, 8),
        },
    ]
}

/// The runs kernel in another shape, against the default: `blocks` is what the launcher's
/// `blocks` argument takes (1, 6, 8 blocks an SM; 128 + 6: loaded through shared memory;
/// 2 x 16 + 3 or 4: two tiles a block, keys only).
fn runs_shape(b: &CudaBackend, h: &Harness, n: usize, lengths: bool, blocks: u32) -> CaseResult {
    let keys = run_keys(n, 8);
    let want = reference::runs(&keys);
    let want_keys: Vec<u32> = want.iter().map(|r| keys[r.0]).collect();
    let want_lens: Vec<u32> = want.iter().map(|r| r.1 as u32).collect();
    let input = b.upload(&keys)?;
    // SAFETY: a pure size computation.
    let bytes = unsafe {
        (b.runtime().launchers().scratch_bytes)(wk::ALGO_RUNS, ElemKind::U32 as u32, n as u64)
    };
    let sc = scratch(b, bytes)?;
    let (ko, lo, count) = (b.alloc::<u32>(n)?, b.alloc::<u32>(n)?, b.alloc::<u64>(1)?);
    let timer = DeviceTimer::new(b)?;
    let (k, s_ptr, o, c) = (
        inp::<_, u32>(&input),
        out::<_, std::ffi::c_void>(&sc),
        out::<_, u32>(&ko),
        out::<_, u64>(&count),
    );
    let l = if lengths {
        out::<_, u32>(&lo)
    } else {
        std::ptr::null_mut()
    };
    let run = |blocks: u32| {
        // SAFETY: live buffers of n keys, n lengths (or null) and one count, the backend's
        // stream.
        move |s| unsafe { ffi::wk_bench_runs_b(s, k, n as u64, s_ptr, bytes, o, l, c, blocks) }
    };
    let verify = |b: &CudaBackend| -> Result<(), Refused> {
        check_all(&[want.len() as u64], &b.download(&count)?)?;
        check_all(&want_keys, &b.download(&ko)?[..want.len()])?;
        if lengths {
            check_all(&want_lens, &b.download(&lo)?[..want.len()])?;
        }
        Ok(())
    };
    let (timing, default) = timer.shape_against_default(h, "runs shape", blocks, run, verify)?;
    let out_elems = want.len() * if lengths { 2 } else { 1 };
    Ok(Measured {
        timing,
        bytes: size_of::<u32>(n + out_elems),
        input_bytes: size_of::<u32>(n),
        baseline: Some(default),
        read_only: false,
    })
}

/// The reduce_by_key kernel (Sum of `f32` values whole below 2^10, so exact in any order) in
/// another shape, against the default: `blocks` is what the launcher's `blocks` argument takes.
fn reduce_by_key_shape(b: &CudaBackend, h: &Harness, n: usize, blocks: u32) -> CaseResult {
    let (keys, vals) = by_key_input(n);
    let runs = reference::runs(&keys);
    let want_keys: Vec<u32> = runs.iter().map(|r| keys[r.0]).collect();
    let want_sums: Vec<f32> = runs
        .iter()
        .map(|&(start, len)| {
            vals[start..start + len]
                .iter()
                .map(|&v| v as f64)
                .sum::<f64>() as f32
        })
        .collect();
    let (kb, vb) = (b.upload(&keys)?, b.upload(&vals)?);
    // SAFETY: a pure size computation.
    let bytes = unsafe {
        (b.runtime().launchers().scratch_bytes)(wk::ALGO_BY_KEY, ElemKind::F32 as u32, n as u64)
    };
    let sc = scratch(b, bytes)?;
    let (res, ko, count) = (b.alloc::<f32>(n)?, b.alloc::<u32>(n)?, b.alloc::<u64>(1)?);
    let timer = DeviceTimer::new(b)?;
    let (k, v, s_ptr, o, kop, c) = (
        inp::<_, u32>(&kb),
        inp::<_, f32>(&vb),
        out::<_, std::ffi::c_void>(&sc),
        out::<_, f32>(&res),
        out::<_, u32>(&ko),
        out::<_, u64>(&count),
    );
    let run = |blocks: u32| {
        // SAFETY: live buffers of n keys, n values, n outputs, n output keys and one count,
        // the backend's stream.
        move |s| unsafe {
            ffi::wk_bench_reduce_by_key_b(s, k, v, n as u64, s_ptr, bytes, o, kop, c, blocks)
        }
    };
    let m = runs.len();
    let verify = |b: &CudaBackend| -> Result<(), Refused> {
        check_all(&[m as u64], &b.download(&count)?)?;
        check_all(&want_keys, &b.download(&ko)?[..m])?;
        check_all(&want_sums, &b.download(&res)?[..m])
    };
    let (timing, default) =
        timer.shape_against_default(h, "reduce_by_key shape", blocks, run, verify)?;
    let input = size_of::<u32>(n) + size_of::<f32>(n);
    Ok(Measured {
        timing,
        bytes: input + 2 * size_of::<u32>(m),
        input_bytes: input,
        baseline: Some(default),
        read_only: false,
    })
}
