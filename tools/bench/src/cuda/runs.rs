//! The runs jobs on CUDA: timed with device events around the public `_into` call (which only
//! enqueues on the backend's stream), against CUB in the same process on the same stream:
//! DeviceRunLengthEncode::Encode and DeviceSelect::Unique of the same `u32` keys. CUB's result
//! is compared with ours before its time is used.

use super::timer::DeviceTimer;
use super::{Buf, cub, ffi, inp, mismatch, out, time_cub};
use crate::job::Job;
use crate::timing::{Baseline, Harness};
use wavekit::cuda::CudaBackend;
use wavekit::element::{ElemKind, Element};
use wavekit::error::Result;
use wavekit::{Backend, DeviceBuffer};

/// The vendor baseline of a runs job (the caller timed ours through the public API),
/// checked against our result; `None` where no baseline applies.
pub(super) fn baseline<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    job: &mut Job<'_, CudaBackend, T>,
) -> Result<Option<Baseline>> {
    Ok(match job {
        Job::Runs {
            keys,
            keys_out,
            lengths,
            count,
        } if T::KIND == ElemKind::U32 => {
            let lengths = lengths.as_deref();
            cub_runs(b, timer, h, keys, keys_out, lengths, count)?
        }
        _ => None,
    })
}

/// CUB's run-length encode (with `lengths`) or unique of the keys, checked against ours.
fn cub_runs<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    keys: &Buf<T>,
    ours: &Buf<T>,
    our_lengths: Option<&Buf<u32>>,
    our_count: &Buf<u64>,
) -> Result<Option<Baseline>> {
    let n = keys.len();
    let (ko, lo, count) = (b.alloc::<T>(n)?, b.alloc::<u32>(n)?, b.alloc::<i64>(1)?);
    let rle = our_lengths.is_some();
    let what = if rle {
        "cub run-length encode"
    } else {
        "cub unique"
    };
    // SAFETY: a null `temp` is CUB's size query, where it writes only `*bytes`; otherwise live
    // buffers of n keys (u32: the caller checked the kind), n lengths, one count and `*bytes`
    // bytes of scratch, on the timer's stream.
    let timing = time_cub(b, timer, h, what, |s, temp, bytes| unsafe {
        if rle {
            ffi::wk_bench_cub_run_length_encode(
                s,
                inp(keys),
                out(&ko),
                out(&lo),
                out(&count),
                n as u64,
                temp,
                bytes,
            )
        } else {
            ffi::wk_bench_cub_unique(s, inp(keys), out(&ko), out(&count), n as u64, temp, bytes)
        }
    })?;
    let runs = b.download(our_count)?[0];
    if b.download(&count)?[0] as u64 != runs {
        return Err(mismatch(what, "CUB found another number of runs".into()));
    }
    let m = runs as usize;
    let same_keys = b.download(ours)?[..m]
        .iter()
        .zip(&b.download(&ko)?[..m])
        .all(|(x, y)| x.to_bits() == y.to_bits());
    let same_lengths = match our_lengths {
        Some(l) => b.download(l)?[..m] == b.download(&lo)?[..m],
        None => true,
    };
    if !same_keys || !same_lengths {
        return Err(mismatch(what, "CUB's result differs from wavekit's".into()));
    }
    Ok(cub(timing))
}
