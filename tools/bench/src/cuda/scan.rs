//! The scan rows' baseline: CUB's DeviceScan timed on the same input as wavekit's scan.

use super::timer::DeviceTimer;
use super::{Buf, cub, element, ffi, inp, mismatch, out, time_cub};
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
    // SAFETY: a null `temp` is CUB's size query, where it writes only `*bytes`; otherwise
    // `input` and `cub_out` hold n elements and `temp` `*bytes` bytes of scratch, on the timer's
    // stream; CUB writes only `cub_out` and `temp`, which nothing else uses.
    let timing = time_cub(b, timer, h, "cub scan", |s, temp, bytes| unsafe {
        ffi::wk_bench_cub_scan(
            s,
            kind,
            op as u32,
            exclusive,
            inp(input),
            out(&cub_out),
            n as u64,
            temp,
            bytes,
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
