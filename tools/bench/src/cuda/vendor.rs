//! Vendor-library baselines beside CUB's reduce, scan and select: cuSPARSE's CSR SpMV (opened at
//! run time, csrc/bench/cusparse.cu) for the SpMV rows, and CUB's `DeviceHistogram::
//! HistogramEven` for the `histogram ... vs CUB` rows. Each baseline's result is checked before
//! its time is used: CUB's counts bit for bit, cuSPARSE's y (summed in its own order) against
//! wavekit's to a relative error far below what a wrong product or row would give.

use super::ffi;
use super::timer::{DeviceTimer, check};
use super::{Buf, inp, out, scratch, stream, time_cub};
use crate::case::{Case, CaseResult, Measured, Refused, check_all, size_of};
use crate::cases::keys_for;
use crate::job::RawCsr;
use crate::timing::{Baseline, Harness, Timing};
use std::ffi::{CStr, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use wavekit::cuda::CudaBackend;
use wavekit::element::{ElemKind, Element};
use wavekit::error::{Result, WavekitError};
use wavekit::gpu::GpuRuntime;
use wavekit::gpu::ffi::{Status, dptr};
use wavekit::{Backend, DeviceBuffer};
use wavekit_conformance::reference;

/// Histogram rows timed against CUB: 256 bins (shared-memory counts) and 65536 (past what one
/// block's shared memory holds as 32-bit counts), uniform and skewed keys.
pub fn cases() -> Vec<Case<CudaBackend>> {
    vec![
        Case {
            collective: "histogram 256 uniform vs CUB",
            elem: "u32",
            run: |b, h, n| histogram_vs_cub(b, h, n, false, 256),
        },
        Case {
            collective: "histogram 256 skewed vs CUB",
            elem: "u32",
            run: |b, h, n| histogram_vs_cub(b, h, n, true, 256),
        },
        Case {
            collective: "histogram 65536 uniform vs CUB",
            elem: "u32",
            run: |b, h, n| histogram_vs_cub(b, h, n, false, 65536),
        },
        Case {
            collective: "histogram 65536 skewed vs CUB",
            elem: "u32",
            run: |b, h, n| histogram_vs_cub(b, h, n, true, 65536),
        },
    ]
}

fn device_err(call: &str, message: String) -> WavekitError {
    WavekitError::Device {
        backend: "cuda",
        call: call.to_string(),
        message,
    }
}

/// wavekit's histogram launcher against CUB's HistogramEven on the same keys, both checked
/// against the reference (CUB on the in-range bins, which is all it counts).
fn histogram_vs_cub(b: &CudaBackend, h: &Harness, n: usize, skewed: bool, bins: u32) -> CaseResult {
    let keys = keys_for(n, skewed, bins);
    let (counts, outside) = reference::histogram(&keys, bins);
    let mut want = counts.clone();
    want.push(outside);
    let buf = b.upload(&keys)?;
    let res = b.alloc::<u64>(bins as usize + 1)?;
    let status = b.upload(&[0u64, u64::MAX])?;
    let st = dptr::<Status>(status.device_ptr());
    let t = b.runtime().launchers();
    let timer = DeviceTimer::new(b)?;
    // SAFETY: `buf` holds the n keys, `res` `bins + 1` counts (keys past the bins count in the
    // last) and `st` is the cleared status word in `status`, all alive for the whole function.
    let launch = |s| unsafe { (t.histogram)(s, st, inp(&buf), n as u64, bins, out(&res)) };
    check(b, launch(stream(b)?), "histogram")?;
    check_all(&want, &b.download(&res)?)?;
    let timing = timer.time(h, "histogram", launch)?;
    check_all(&want, &b.download(&res)?)?;
    if b.download(&status)?[0] as u32 != 0 {
        return Err(Refused::Error(device_err(
            "histogram",
            "kernel reported an error".into(),
        )));
    }

    let cub_counts = b.alloc::<u32>(bins as usize)?;
    // SAFETY: a null scratch is a size query (CUB writes only `*tb`); otherwise `buf` holds n
    // keys, `cub_counts` `bins` counts and `temp` the `*tb` bytes CUB asked for, on the timer's
    // stream.
    let cub = time_cub(b, &timer, h, "cub histogram", |s, temp, tb| unsafe {
        ffi::wk_bench_cub_histogram(s, inp(&buf), n as u64, bins, out(&cub_counts), temp, tb)
    })?;
    let got: Vec<u64> = b
        .download(&cub_counts)?
        .into_iter()
        .map(u64::from)
        .collect();
    check_all(&counts, &got).map_err(|e| match e {
        Refused::Wrong(d) => Refused::Wrong(format!("CUB HistogramEven: {d}")),
        other => other,
    })?;
    Ok(Measured {
        timing,
        bytes: size_of::<u32>(n),
        input_bytes: size_of::<u32>(n),
        baseline: Some(Baseline {
            name: "CUB HistogramEven",
            timing: cub,
        }),
        read_only: true,
    })
}

/// A cuSPARSE plan (handle and descriptors), released on drop.
struct Plan(*mut c_void);

impl Drop for Plan {
    fn drop(&mut self) {
        // SAFETY: made by wk_bench_cusparse_spmv_plan (or null, which it ignores).
        unsafe { ffi::wk_bench_cusparse_free(self.0) }
    }
}

fn cusparse_err(call: &str) -> WavekitError {
    // SAFETY: a NUL-terminated static buffer of csrc/bench/cusparse.cu.
    let msg = unsafe { CStr::from_ptr(ffi::wk_bench_cusparse_error()) };
    device_err(call, msg.to_string_lossy().into_owned())
}

static MISSING_SAID: AtomicBool = AtomicBool::new(false);

/// Relative 2-norm distance of cuSPARSE's y from wavekit's: both sum the same products, in
/// different orders, so they differ by rounding only.
fn relative_error(ours: &[f64], theirs: &[f32]) -> f64 {
    let (mut diff, mut norm) = (0f64, 0f64);
    for (&a, &b) in ours.iter().zip(theirs) {
        let b = f64::from(b);
        diff += (a - b) * (a - b);
        norm += a * a;
    }
    if norm == 0.0 {
        diff.sqrt()
    } else {
        (diff / norm).sqrt()
    }
}

/// cuSPARSE's `cusparseSpMV` (CSR, f32, the default algorithm) on the job's matrix, timed plain
/// and after `cusparseSpMV_preprocess`; the faster is the baseline. None for other element types,
/// or when the library is not there (said once on stderr).
pub(super) fn cusparse_spmv<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    raw: &RawCsr<'_, CudaBackend>,
    vals: &Buf<T>,
    x: &Buf<T>,
    ours: &Buf<T>,
) -> Result<Option<Baseline>> {
    if T::KIND != ElemKind::F32 {
        return Ok(None);
    }
    // SAFETY: no arguments; loads the library once.
    if unsafe { ffi::wk_bench_cusparse_version() } == 0 {
        if !MISSING_SAID.swap(true, Ordering::Relaxed) {
            eprintln!("no cuSPARSE baseline: {}", cusparse_err("dlopen"));
        }
        return Ok(None);
    }
    let rows = ours.len();
    let (ncols, nnz) = (x.len(), raw.cols.len());
    let y = b.alloc::<f32>(rows)?;
    let mut plan = Plan(std::ptr::null_mut());
    let mut bytes = 0usize;
    // SAFETY: live device buffers of the lengths given; the backend's stream.
    let rc = unsafe {
        ffi::wk_bench_cusparse_spmv_plan(
            stream(b)?,
            inp(raw.row_offsets),
            inp(raw.cols),
            inp(vals),
            inp(x),
            out(&y),
            rows as u64,
            ncols as u64,
            nnz as u64,
            0,
            &mut plan.0,
            &mut bytes,
        )
    };
    if rc != 0 {
        return Err(cusparse_err("cusparseSpMV plan"));
    }
    let buffer = scratch(b, bytes as u64)?;
    let want: Vec<f64> = b.download(ours)?.iter().map(|v| v.to_f64()).collect();
    let run = |what: &str, s_plan: *mut c_void| -> Result<Timing> {
        let t = timer
            // SAFETY: the plan's buffers are alive; its stream is the timer's.
            .time(h, what, |_| unsafe {
                ffi::wk_bench_cusparse_spmv(s_plan, out(&buffer))
            })
            .map_err(|_| cusparse_err(what))?;
        let err = relative_error(&want, &b.download(&y)?);
        if err.is_nan() || err > 1e-4 {
            return Err(device_err(
                what,
                format!("y differs from wavekit's by {err:e} (relative)"),
            ));
        }
        Ok(t)
    };
    let plain = run("cusparseSpMV", plan.0)?;
    // SAFETY: as above.
    if unsafe { ffi::wk_bench_cusparse_spmv_preprocess(plan.0, out(&buffer)) } != 0 {
        return Err(cusparse_err("cusparseSpMV_preprocess"));
    }
    let pre = run("cusparseSpMV preprocessed", plan.0)?;
    // Both go to stderr; the row keeps the faster.
    eprintln!(
        "cuSPARSE SpMV rows={rows} nnz={nnz}: plain {:?}, preprocessed {:?}",
        plain.median(),
        pre.median()
    );
    Ok(Some(if pre.median() < plain.median() {
        Baseline {
            name: "cuSPARSE (preprocessed)",
            timing: pre,
        }
    } else {
        Baseline {
            name: "cuSPARSE",
            timing: plain,
        }
    }))
}
