//! The sorting jobs on CUDA: each timed with device events around the public `_into` call
//! (which only enqueues on the backend's stream), against CUB in the same process on the same
//! stream: DeviceRadixSort for keys and pairs, DeviceSegmentedSort::StableSortKeys, for argsort
//! its ascending sort of (key, position) pairs, and for top-k its stable descending sort of
//! (value, index) pairs, whose first k are the answer.
//! Every CUB result is compared with ours before its time is used.

use super::timer::DeviceTimer;
use super::{Buf, cub, ffi, inp, mismatch, out, time_cub};
use crate::job::Job;
use crate::timing::{Baseline, Harness, Timing};
use wavekit::cuda::CudaBackend;
use wavekit::element::{ElemKind, Element};
use wavekit::error::Result;
use wavekit::{Backend, DeviceBuffer};

/// The vendor baseline of a sorting job (sort, argsort, segmented sort, top-k) (the caller timed ours through the public API),
/// checked against our result; `None` where no baseline applies.
pub(super) fn baseline<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    job: &mut Job<'_, CudaBackend, T>,
) -> Result<Option<Baseline>> {
    Ok(match job {
        Job::Sort {
            keys,
            keys_out,
            values: None,
        } => cub_keys(b, timer, h, keys, keys_out)?,
        Job::Sort {
            keys,
            keys_out,
            values: Some((values, values_out)),
        } => cub_pairs(b, timer, h, keys, keys_out, values, values_out)?,
        Job::Argsort { keys, indices } => cub_argsort(b, timer, h, keys, indices)?,
        Job::SegmentedSort {
            keys,
            baseline_offsets,
            count,
            out,
            ..
        } if T::KIND == ElemKind::U32 => {
            cub_segmented(b, timer, h, keys, baseline_offsets, *count, out)?
        }
        Job::TopK {
            input,
            k,
            values,
            indices,
        } => cub_top_k(b, timer, h, input, *k, values, indices)?,
        _ => None,
    })
}

fn same<T: Element>(
    b: &CudaBackend,
    what: &str,
    ours: &Buf<T>,
    theirs: &Buf<T>,
    len: usize,
) -> Result<()> {
    let (a, c) = (b.download(ours)?, b.download(theirs)?);
    if a[..len]
        .iter()
        .zip(&c[..len])
        .any(|(x, y)| x.to_bits() != y.to_bits())
    {
        return Err(mismatch(what, "CUB's result differs from wavekit's".into()));
    }
    Ok(())
}

fn cub_keys<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    keys: &Buf<T>,
    ours: &Buf<T>,
) -> Result<Option<crate::timing::Baseline>> {
    let n = keys.len() as u64;
    let theirs = b.alloc::<T>(keys.len())?;
    let kind = T::KIND as u32;
    // SAFETY: a null `temp` is CUB's size query, where it writes only `*bytes`; otherwise live
    // buffers of n keys and `*bytes` bytes of scratch, on the timer's stream.
    let timing = time_cub(b, timer, h, "cub sort keys", |s, temp, bytes| unsafe {
        ffi::wk_bench_cub_sort_keys(s, kind, inp(keys), out(&theirs), n, 0, temp, bytes)
    })?;
    same(b, "cub sort keys", ours, &theirs, keys.len())?;
    Ok(cub(timing))
}

fn cub_pairs<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    keys: &Buf<T>,
    keys_out: &Buf<T>,
    values: &Buf<u32>,
    values_out: &Buf<u32>,
) -> Result<Option<crate::timing::Baseline>> {
    let n = keys.len() as u64;
    let (tk, tv) = (b.alloc::<T>(keys.len())?, b.alloc::<u32>(keys.len())?);
    let kind = T::KIND as u32;
    // SAFETY: a null `temp` is CUB's size query, where it writes only `*bytes`; otherwise live
    // buffers of n keys and values and `*bytes` bytes of scratch, on the timer's stream.
    let timing = time_cub(b, timer, h, "cub sort pairs", |s, temp, bytes| unsafe {
        ffi::wk_bench_cub_sort_pairs(
            s,
            kind,
            inp(keys),
            out(&tk),
            inp(values),
            out(&tv),
            n,
            0,
            temp,
            bytes,
        )
    })?;
    same(b, "cub sort pairs (keys)", keys_out, &tk, keys.len())?;
    same(b, "cub sort pairs (values)", values_out, &tv, keys.len())?;
    Ok(cub(timing))
}

fn cub_segmented<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    keys: &Buf<T>,
    offsets: &Buf<u32>,
    count: usize,
    ours: &Buf<T>,
) -> Result<Option<crate::timing::Baseline>> {
    let n = keys.len() as u64;
    let theirs = b.alloc::<T>(keys.len())?;
    // SAFETY: a null `temp` is CUB's size query, where it writes only `*bytes`; otherwise n u32
    // keys in and out, `count + 1` offsets and `*bytes` bytes of scratch, on the timer's stream.
    let timing = time_cub(b, timer, h, "cub segmented sort", |s, temp, bytes| unsafe {
        ffi::wk_bench_cub_segmented_sort(
            s,
            inp(keys),
            out(&theirs),
            n,
            inp(offsets),
            count as u64,
            temp,
            bytes,
        )
    })?;
    same(b, "cub segmented sort", ours, &theirs, keys.len())?;
    Ok(cub(timing))
}

/// CUB's stable sort of the pairs (key, position 0..n), ascending or descending: its sorted
/// keys and positions with its time, for the caller to compare with ours.
fn cub_positions<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    input: &Buf<T>,
    descending: u32,
    what: &str,
) -> Result<(Timing, Buf<T>, Buf<u32>)> {
    let n = input.len();
    let iota: Vec<u32> = (0..n as u32).collect();
    let iota = b.upload(&iota)?;
    let (tk, tv) = (b.alloc::<T>(n)?, b.alloc::<u32>(n)?);
    let kind = T::KIND as u32;
    // SAFETY: a null `temp` is CUB's size query, where it writes only `*bytes`; otherwise live
    // buffers of n keys and positions and `*bytes` bytes of scratch, on the timer's stream.
    let timing = time_cub(b, timer, h, what, |s, temp, bytes| unsafe {
        ffi::wk_bench_cub_sort_pairs(
            s,
            kind,
            inp(input),
            out(&tk),
            inp(&iota),
            out(&tv),
            n as u64,
            descending,
            temp,
            bytes,
        )
    })?;
    Ok((timing, tk, tv))
}

fn cub_top_k<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    input: &Buf<T>,
    k: usize,
    values: &Buf<T>,
    indices: &Buf<u32>,
) -> Result<Option<crate::timing::Baseline>> {
    let (timing, tk, tv) = cub_positions(b, timer, h, input, 1, "cub top-k sort")?;
    same(b, "cub top-k (values)", values, &tk, k)?;
    same(b, "cub top-k (indices)", indices, &tv, k)?;
    Ok(cub(timing))
}

/// An argsort with CUB: its pairs sort of (key, position), the sorted keys a by-product it
/// cannot skip.
fn cub_argsort<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    keys: &Buf<T>,
    ours: &Buf<u32>,
) -> Result<Option<crate::timing::Baseline>> {
    let (timing, _, tv) = cub_positions(b, timer, h, keys, 0, "cub argsort")?;
    same(b, "cub argsort (positions)", ours, &tv, keys.len())?;
    Ok(cub(timing))
}
