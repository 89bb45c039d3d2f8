//! The partition job on CUDA: timed with device events around the public `partition_into`
//! (which only enqueues on the backend's stream), against CUB's `DevicePartition::If` (x > 0 on
//! `f32` and `f64`) in the same process on the same stream. CUB writes its rejected part in reverse
//! order: its selected part and count must equal ours, and its rejected part reversed ours,
//! bit for bit, before its time is used.

use super::timer::DeviceTimer;
use super::{Buf, cub, ffi, inp, mismatch, out, time_cub};
use crate::job::Job;
use crate::timing::{Baseline, Harness};
use wavekit::cuda::CudaBackend;
use wavekit::element::{ElemKind, Element};
use wavekit::error::Result;
use wavekit::{Backend, DeviceBuffer, Predicate};

/// The vendor baseline of a partition job (the caller timed ours through the public API),
/// checked against our result; `None` where no baseline applies.
pub(super) fn baseline<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    job: &mut Job<'_, CudaBackend, T>,
) -> Result<Option<Baseline>> {
    Ok(match job {
        Job::Partition {
            input,
            pred,
            out: ours,
            count,
        } if matches!(T::KIND, ElemKind::F32 | ElemKind::F64)
            && *pred == Predicate::Gt(T::default()) =>
        {
            cub_partition(b, timer, h, input, ours, count, false)?
        }
        Job::PartitionReversed {
            input,
            pred,
            second: None,
            out: ours,
            count,
        } if matches!(T::KIND, ElemKind::F32 | ElemKind::F64)
            && *pred == Predicate::Gt(T::default()) =>
        {
            cub_partition(b, timer, h, input, ours, count, true)?
        }
        Job::PartitionReversed {
            input,
            second: Some((_, middle)),
            out: ours,
            count,
            ..
        } if matches!(T::KIND, ElemKind::F32 | ElemKind::F64) => {
            cub_thirds(b, timer, h, input, ours, middle, count)?
        }
        _ => None,
    })
}

/// CUB's partition of the positive elements, checked against ours: its rest reversed against
/// the stable partition's, as it is against partition_reversed's (`reversed`).
fn cub_partition<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    input: &Buf<T>,
    ours: &Buf<T>,
    our_count: &Buf<u64>,
    reversed: bool,
) -> Result<Option<Baseline>> {
    let what = "cub partition";
    let n = input.len();
    let (po, count) = (b.alloc::<T>(n)?, b.alloc::<i64>(1)?);
    // SAFETY: a null `temp` is CUB's size query, where it writes only `*bytes`; otherwise live
    // buffers of n f32 or f64 (the caller checked the kind) in and out, one count and `*bytes`
    // bytes of scratch, on the timer's stream.
    let timing = time_cub(b, timer, h, what, |s, temp, bytes| unsafe {
        ffi::wk_bench_cub_partition_positive(
            s,
            T::KIND as u32,
            inp(input),
            out(&po),
            out(&count),
            n as u64,
            temp,
            bytes,
        )
    })?;
    let selected = b.download(our_count)?[0];
    if b.download(&count)?[0] as u64 != selected {
        return Err(mismatch(what, "CUB selected another number".into()));
    }
    let m = selected as usize;
    let (mine, theirs) = (b.download(ours)?, b.download(&po)?);
    let bits = |v: &[T]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    if bits(&mine[..m]) != bits(&theirs[..m]) {
        return Err(mismatch(what, "CUB's selected part differs".into()));
    }
    let mut rest = bits(&theirs[m..]);
    if !reversed {
        rest.reverse();
    }
    if bits(&mine[m..]) != rest {
        return Err(mismatch(what, "CUB's rejected part differs".into()));
    }
    Ok(cub(timing))
}

/// CUB's three-way partition (`x < -333`, then `x < 333`) with its unselected part written
/// through a reverse iterator into the first part's buffer, checked against ours: the counts,
/// the first part and the rest in `out`, the middle part.
fn cub_thirds<T: Element>(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    input: &Buf<T>,
    ours: &Buf<T>,
    our_middle: &Buf<T>,
    our_counts: &Buf<u64>,
) -> Result<Option<Baseline>> {
    let what = "cub three-way partition";
    let n = input.len();
    let (po, pm, counts) = (b.alloc::<T>(n)?, b.alloc::<T>(n)?, b.alloc::<i64>(2)?);
    // SAFETY: a null `temp` is CUB's size query, where it writes only `*bytes`; otherwise live
    // buffers of n f32 or f64 (the caller checked the kind) in and out (both outputs n long),
    // two counts and `*bytes` bytes of scratch, on the timer's stream.
    let timing = time_cub(b, timer, h, what, |s, temp, bytes| unsafe {
        ffi::wk_bench_cub_partition_thirds(
            s,
            T::KIND as u32,
            inp(input),
            out(&po),
            out(&pm),
            out(&counts),
            n as u64,
            temp,
            bytes,
        )
    })?;
    let ours_c = b.download(our_counts)?;
    let theirs_c = b.download(&counts)?;
    if theirs_c
        .iter()
        .map(|&c| c as u64)
        .ne(ours_c.iter().copied())
    {
        return Err(mismatch(what, "CUB's part sizes differ".into()));
    }
    let (one, two) = (ours_c[0] as usize, ours_c[1] as usize);
    let bits = |v: &[T]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let (mine, theirs) = (bits(&b.download(ours)?), bits(&b.download(&po)?));
    if mine[..one] != theirs[..one] || mine[one + two..] != theirs[one + two..] {
        return Err(mismatch(
            what,
            "CUB's first part or its reversed rest differs".into(),
        ));
    }
    if bits(&b.download(our_middle)?)[..two] != bits(&b.download(&pm)?)[..two] {
        return Err(mismatch(what, "CUB's middle part differs".into()));
    }
    Ok(cub(timing))
}
