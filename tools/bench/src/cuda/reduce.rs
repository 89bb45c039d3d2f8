//! The reduce rows' baseline: CUB's DeviceReduce timed on the same buffers as wavekit's reduce.

use super::timer::DeviceTimer;
use super::{Buf, cub, ffi, inp, mismatch, out, time_cub};
use crate::timing::{Baseline, Harness};
use wavekit::cuda::CudaBackend;
use wavekit::element::{ElemKind, Element};
use wavekit::error::Result;
use wavekit::op::ReduceOp;
use wavekit::{Backend, DeviceBuffer};

/// CUB's DeviceReduce for Sum/Min/Max on i32, f32, f64; its result is checked where it must
/// equal ours bit for bit (integers, Min, Max) and for being finite otherwise.
pub(super) fn cub_reduce<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    input: &Buf<T>,
    op: ReduceOp,
    ours: T,
) -> Result<Option<Baseline>> {
    let supported = matches!(T::KIND, ElemKind::I32 | ElemKind::F32 | ElemKind::F64)
        && matches!(op, ReduceOp::Sum | ReduceOp::Min | ReduceOp::Max);
    if !supported {
        return Ok(None);
    }
    let kind = T::KIND as u32;
    let n = input.len() as u64;
    let res = b.alloc::<T>(1)?;
    // SAFETY: a null `temp` is CUB's size query, where it writes only `*bytes`; otherwise
    // `input` holds n elements, `res` one and `temp` `*bytes` bytes of scratch, on the timer's
    // stream; CUB writes only `res` and `temp`, which nothing else uses.
    let timing = time_cub(b, timer, h, "cub reduce", |s, temp, bytes| unsafe {
        ffi::wk_bench_cub_reduce(s, kind, op as u32, inp(input), n, out(&res), temp, bytes)
    })?;
    let got = b.download(&res)?[0];
    let exact = !T::KIND.is_float() || op != ReduceOp::Sum;
    if (exact && !got.same(ours)) || (!exact && !got.to_f64().is_finite()) {
        return Err(mismatch(
            "cub reduce",
            format!("CUB gave {got:?}, wavekit {ours:?}"),
        ));
    }
    Ok(cub(timing))
}

/// CUB's DeviceSegmentedReduce::Sum over the same f32 segments (`offsets`: `count + 1` of them
/// into the input); none for the other types and ops.
pub(super) fn cub_segmented_reduce<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    input: &Buf<T>,
    offsets: &Buf<u32>,
    count: usize,
    op: ReduceOp,
) -> Result<Option<Baseline>> {
    if T::KIND != ElemKind::F32 || op != ReduceOp::Sum {
        return Ok(None);
    }
    let what = "cub segmented reduce";
    let cub_out = b.alloc::<f32>(count)?;
    let off = inp::<_, u32>(offsets);
    // SAFETY: a null `temp` is CUB's size query, where it writes only `*bytes`; otherwise `off`
    // holds `count + 1` offsets into the n-element `input`, `cub_out` `count` values and `temp`
    // `*bytes` bytes of scratch, on the timer's stream; CUB writes only the latter two.
    let timing = time_cub(b, timer, h, what, |s, temp, bytes| unsafe {
        ffi::wk_bench_cub_segreduce(s, inp(input), out(&cub_out), off, count as u64, temp, bytes)
    })?;
    Ok(cub(timing))
}
