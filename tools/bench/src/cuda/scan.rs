//! The scan rows' baseline: CUB's DeviceScan timed on the same input as wavekit's scan.

use super::timer::DeviceTimer;
use super::{Buf, cub, cub_temp, element, ffi, inp, mismatch, out};
use crate::timing::{Baseline, Harness};
use wavekit::cuda::CudaBackend;
use wavekit::element::{ElemKind, Element};
use wavekit::error::Result;
use wavekit::op::ReduceOp;
use wavekit::{Backend, DeviceBuffer, ScanKind};

/// CUB's inclusive or exclusive Sum, and its inclusive Max, on the signed and float types; none
/// for the unsigned ones and the 16-bit floats (CUB's scan of those would sum in 16 bits). Its
/// last element is checked against `ours` (the job's output) where they must agree bit for
/// bit: the integers.
pub(super) fn cub_scan<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    input: &Buf<T>,
    ours: &Buf<T>,
    op: ReduceOp,
    scan: ScanKind,
) -> Result<Option<Baseline>> {
    let supported = (op == ReduceOp::Sum || (op == ReduceOp::Max && scan == ScanKind::Inclusive))
        && T::KIND != ElemKind::U32
        && T::KIND != ElemKind::U64
        && !T::KIND.is_half();
    if !supported {
        return Ok(None);
    }
    let kind = T::KIND as u32;
    let exclusive = (scan == ScanKind::Exclusive) as u32;
    let n = input.len();
    let cub_out = b.alloc::<T>(n)?;
    // SAFETY: a size query: null stream and scratch, so CUB only writes the temp size to `tb`, a
    // live local.
    let (temp, tb) = cub_temp(b, "cub scan", |tb| unsafe {
        ffi::wk_bench_cub_scan(
            std::ptr::null_mut(),
            kind,
            op as u32,
            exclusive,
            inp(input),
            out(&cub_out),
            n as u64,
            std::ptr::null_mut(),
            tb,
        )
    })?;
    // SAFETY: `input` and `cub_out` hold n elements, `temp` at least `tb` bytes (cub_temp sized it
    // by the query above); CUB writes only `cub_out` and `temp`, which nothing else uses.
    let timing = timer.time(h, "cub scan", |s| unsafe {
        let mut tb = tb;
        ffi::wk_bench_cub_scan(
            s,
            kind,
            op as u32,
            exclusive,
            inp(input),
            out(&cub_out),
            n as u64,
            out(&temp),
            &mut tb,
        )
    })?;
    if !T::KIND.is_float() {
        let (a, o) = (element(b, &cub_out, n - 1)?, element(b, ours, n - 1)?);
        if !a.same(o) {
            return Err(mismatch(
                "cub scan",
                format!("CUB's last element {a:?}, ours {o:?}"),
            ));
        }
    }
    Ok(cub(timing))
}
