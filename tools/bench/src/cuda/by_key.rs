//! The by-key jobs on CUDA: timed with device events around the public `_into` call (which only
//! enqueues on the backend's stream), against CUB in the same process on the same stream:
//! DeviceReduce::ReduceByKey and DeviceScan::InclusiveScanByKey of the same `u32` keys and
//! `f32` values (Sum). CUB's result is compared with ours bit for bit before its time is used
//! (the bench's values are whole numbers, so every order gives the same sums).

use super::timer::DeviceTimer;
use super::{Buf, cub, ffi, inp, mismatch, out, time_cub};
use crate::job::Job;
use crate::timing::{Baseline, Harness};
use wavekit::cuda::CudaBackend;
use wavekit::element::{ElemKind, Element};
use wavekit::error::Result;
use wavekit::{Backend, DeviceBuffer};

/// The vendor baseline of a by-key job (the caller timed ours through the public API),
/// checked against our result; `None` where no baseline applies.
pub(super) fn baseline<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    job: &mut Job<'_, CudaBackend, T>,
) -> Result<Option<Baseline>> {
    Ok(match job {
        Job::ByKey {
            keys,
            values,
            out: ours,
            reduce,
        } if T::KIND == ElemKind::F32 => {
            let reduce = reduce.as_ref().map(|(k, c)| (&**k, &**c));
            cub_by_key(b, timer, h, keys, values, ours, reduce)?
        }
        _ => None,
    })
}

/// CUB's reduce by key (with `reduce`: our run keys and count) or inclusive scan by key,
/// checked against ours.
fn cub_by_key<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    keys: &Buf<u32>,
    values: &Buf<T>,
    ours: &Buf<T>,
    reduce: Option<(&Buf<u32>, &Buf<u64>)>,
) -> Result<Option<Baseline>> {
    let n = keys.len();
    let (ko, vo, count) = (b.alloc::<u32>(n)?, b.alloc::<T>(n)?, b.alloc::<i64>(1)?);
    let what = if reduce.is_some() {
        "cub reduce by key"
    } else {
        "cub scan by key"
    };
    // SAFETY: a null `temp` is CUB's size query, where it writes only `*bytes`; otherwise live
    // buffers of n keys, n f32 values (the caller checked the kind), n run keys and values, one
    // count and `*bytes` bytes of scratch, on the timer's stream.
    let timing = time_cub(b, timer, h, what, |s, temp, bytes| unsafe {
        if reduce.is_some() {
            ffi::wk_bench_cub_reduce_by_key(
                s,
                inp(keys),
                inp(values),
                out(&ko),
                out(&vo),
                out(&count),
                n as u64,
                temp,
                bytes,
            )
        } else {
            ffi::wk_bench_cub_scan_by_key(
                s,
                inp(keys),
                inp(values),
                out(&vo),
                n as u64,
                temp,
                bytes,
            )
        }
    })?;
    let m = match reduce {
        Some((our_keys, our_count)) => {
            let runs = b.download(our_count)?[0];
            if b.download(&count)?[0] as u64 != runs {
                return Err(mismatch(what, "CUB found another number of runs".into()));
            }
            let m = runs as usize;
            if b.download(our_keys)?[..m] != b.download(&ko)?[..m] {
                return Err(mismatch(
                    what,
                    "CUB's run keys differ from wavekit's".into(),
                ));
            }
            m
        }
        None => n,
    };
    let same = b.download(ours)?[..m]
        .iter()
        .zip(&b.download(&vo)?[..m])
        .all(|(x, y)| x.to_bits() == y.to_bits());
    if !same {
        return Err(mismatch(what, "CUB's values differ from wavekit's".into()));
    }
    Ok(cub(timing))
}
