//! The argmin / argmax jobs on CUDA: timed with device events around the public `_into` call
//! (which only enqueues on the backend's stream), against CUB's DeviceReduce::ArgMin / ArgMax
//! of the same buffer (f32, f64, and f16 / bf16 as `__half` / `__nv_bfloat16`) in the same
//! process on the same stream. CUB's value and index are compared with ours before its time is
//! used.

use super::timer::DeviceTimer;
use super::{Buf, cub, ffi, inp, mismatch, out, time_cub};
use crate::job::Job;
use crate::timing::{Baseline, Harness};
use wavekit::ArgOp;
use wavekit::cuda::CudaBackend;
use wavekit::element::Element;
use wavekit::error::Result;
use wavekit::{Backend, DeviceBuffer};

/// The vendor baseline of an argmin / argmax job (the caller timed ours through the public API),
/// checked against our result; `None` where no baseline applies.
pub(super) fn baseline<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    job: &mut Job<'_, CudaBackend, T>,
) -> Result<Option<Baseline>> {
    Ok(match job {
        Job::ArgReduce {
            input,
            op,
            value,
            index,
        } if T::KIND.is_float() => cub_arg(b, timer, h, input, *op, value, index)?,
        _ => None,
    })
}

/// CUB's ArgMin / ArgMax of the input, checked against ours (`value`, `index`).
fn cub_arg<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    input: &Buf<T>,
    op: ArgOp,
    value: &Buf<T>,
    index: &Buf<u64>,
) -> Result<Option<Baseline>> {
    let n = input.len() as u64;
    let kind = T::KIND as u32;
    let code = op.reduce_op() as u32;
    let (their_value, their_index) = (b.alloc::<T>(1)?, b.alloc::<u64>(1)?);
    // SAFETY: a null `temp` is CUB's size query, where it writes only `*bytes`; otherwise live
    // buffers of n elements, one value, one index and `*bytes` bytes of scratch, on the timer's
    // stream.
    let timing = time_cub(b, timer, h, "cub arg_reduce", |s, temp, bytes| unsafe {
        ffi::wk_bench_cub_arg_reduce(
            s,
            kind,
            code,
            inp(input),
            n,
            out(&their_value),
            out(&their_index),
            temp,
            bytes,
        )
    })?;
    let ours = (b.download(value)?[0], b.download(index)?[0]);
    let theirs = (b.download(&their_value)?[0], b.download(&their_index)?[0]);
    if !ours.0.same(theirs.0) || ours.1 != theirs.1 {
        return Err(mismatch(
            "cub arg_reduce",
            format!(
                "{} of {}: CUB gives ({:?}, {}), wavekit ({:?}, {})",
                op.name(),
                T::KIND.name(),
                theirs.0,
                theirs.1,
                ours.0,
                ours.1
            ),
        ));
    }
    Ok(cub(timing))
}
