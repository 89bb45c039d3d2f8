//! The sorting rows: keys (u32, f32, u64, f16, bf16), pairs (u32 keys with their positions),
//! argsort (u32 and f32 keys), segmented sorts of short, warp-sized, long and power-law segments, and top-k. Every expected result is
//! a stable sort by the conformance suite's rank (`reference::sort_rank`, docs/SEMANTICS.md),
//! computed with rayon's stable parallel sort (independent of every wavekit backend, and fast
//! enough at 2^28), and compared bit for bit before and after timing.

use super::case::{Case, CaseResult, Measured, Refused, check_all, size_of, try_random};
use super::job::Job;
use super::timing::{BenchBackend, Harness};
use rayon::prelude::*;
use wavekit::api::{Segments, VectorSize};
use wavekit::element::{Element, bf16, f16, splitmix};
use wavekit::{SegmentedSort, Sort, SortOrder, TopK};
use wavekit_conformance::reference;

macro_rules! case {
    ($name:expr, $elem:ident, $f:expr) => {
        Case {
            collective: $name,
            elem: stringify!($elem),
            run: $f,
        }
    };
}

pub fn cases<B: BenchBackend>() -> Vec<Case<B>> {
    vec![
        case!("sort keys", u32, sort_keys::<B, u32>),
        case!("sort keys", f32, sort_keys::<B, f32>),
        case!("sort keys", u64, sort_keys::<B, u64>),
        case!("sort keys", f16, sort_keys::<B, f16>),
        case!("sort keys", bf16, sort_keys::<B, bf16>),
        case!(
            "sort keys low-entropy",
            u32,
            |b, h, n| sort_keys_of::<B, u32>(b, h, low_entropy(n)?)
        ),
        case!("sort keys skewed", u32, |b, h, n| sort_keys_of::<B, u32>(
            b,
            h,
            super::cases::keys_for(n, true, u32::MAX / 2)
        )),
        case!("sort pairs", u32, sort_pairs::<B>),
        case!("argsort", u32, argsort::<B, u32>),
        case!("argsort", f32, argsort::<B, f32>),
        case!("segmented sort 8", u32, |b, h, n| segmented::<B>(
            b,
            h,
            n,
            Some(8)
        )),
        case!("segmented sort 128", u32, |b, h, n| segmented::<B>(
            b,
            h,
            n,
            Some(128)
        )),
        case!("segmented sort 4096", u32, |b, h, n| segmented::<B>(
            b,
            h,
            n,
            Some(4096)
        )),
        case!("segmented sort power-law", u32, |b, h, n| segmented::<B>(
            b, h, n, None
        )),
        case!("top_k 1", f32, |b, h, n| top_k::<B>(b, h, n, 1)),
        case!("top_k 32", f32, |b, h, n| top_k::<B>(b, h, n, 32)),
        case!("top_k 1024", f32, |b, h, n| top_k::<B>(b, h, n, 1024)),
        case!("top_k n/2", f32, |b, h, n| top_k::<B>(b, h, n, n / 2)),
    ]
}

/// The positions of the stable ascending (or descending) sort of `keys`.
fn order_of<T: Element>(keys: &[T], order: SortOrder) -> Vec<u32> {
    let mut pos: Vec<u32> = (0..keys.len() as u32).collect();
    pos.par_sort_by_key(|&i| reference::sort_rank(keys[i as usize], order));
    pos
}

fn gather<T: Element>(keys: &[T], pos: &[u32]) -> Vec<T> {
    pos.par_iter().map(|&i| keys[i as usize]).collect()
}

fn sort_keys<B: BenchBackend, T: Element>(b: &B, h: &Harness, n: usize) -> CaseResult {
    sort_keys_of(b, h, try_random::<T>(n, 20)?)
}

/// CUB's low-entropy keys (its benchmarks' `entropy` axis at 0.544 bits a bit): the AND of three
/// uniform words, so each bit is set one time in eight and a third of a radix pass's 8-bit digits
/// are zero. Many lanes of a warp share a digit, which is where ranking by shared-memory atomics
/// and the look-back's hot bins are slowest.
fn low_entropy(n: usize) -> Result<Vec<u32>, Refused> {
    let [a, b, c] = [30, 31, 32].map(|s| try_random::<u32>(n, s));
    let (mut a, b, c) = (a?, b?, c?);
    a.par_iter_mut()
        .zip(b.par_iter().zip(&c))
        .for_each(|(x, (y, z))| *x &= y & z);
    Ok(a)
}

/// Sorts `keys` ascending, checked against the reference before and after timing.
fn sort_keys_of<B: BenchBackend, T: Element>(b: &B, h: &Harness, keys: Vec<T>) -> CaseResult {
    let n = keys.len();
    let want = gather(&keys, &order_of(&keys, SortOrder::ASCENDING));
    let kb = b.upload(&keys)?;
    let mut out = b.upload(&try_random::<T>(n, 21)?)?;
    b.sort_keys_into(&kb, &mut out, SortOrder::ASCENDING)?;
    check_all(&want, &b.download(&out)?)?;
    b.write(&mut out, &try_random::<T>(n, 21)?)?;
    let timed = b.time_job(
        h,
        &mut Job::Sort {
            keys: &kb,
            keys_out: &mut out,
            values: None,
        },
    )?;
    check_all(&want, &b.download(&out)?)?;
    Ok(Measured {
        timing: timed.timing,
        bytes: 2 * size_of::<T>(n),
        input_bytes: size_of::<T>(n),
        baseline: timed.baseline,
        read_only: false,
    })
}

fn sort_pairs<B: BenchBackend>(b: &B, h: &Harness, n: usize) -> CaseResult {
    let keys: Vec<u32> = try_random(n, 22)?;
    let values: Vec<u32> = (0..n as u32).collect();
    let pos = order_of(&keys, SortOrder::ASCENDING);
    let want_keys = gather(&keys, &pos);
    let (kb, vb) = (b.upload(&keys)?, b.upload(&values)?);
    let mut ko = b.alloc::<u32>(n)?;
    let mut vo = b.alloc::<u32>(n)?;
    b.sort_pairs_into(&kb, &vb, &mut ko, &mut vo, SortOrder::ASCENDING)?;
    let check = |b: &B, ko: &B::Buffer<u32>, vo: &B::Buffer<u32>| -> Result<(), Refused> {
        check_all(&want_keys, &b.download(ko)?)?;
        check_all(&pos, &b.download(vo)?)
    };
    check(b, &ko, &vo)?;
    let timed = b.time_job(
        h,
        &mut Job::Sort {
            keys: &kb,
            keys_out: &mut ko,
            values: Some((&vb, &mut vo)),
        },
    )?;
    check(b, &ko, &vo)?;
    Ok(Measured {
        timing: timed.timing,
        bytes: 4 * size_of::<u32>(n),
        input_bytes: 2 * size_of::<u32>(n),
        baseline: timed.baseline,
        read_only: false,
    })
}

/// The positions alone: what a caller who gathers several arrays by one key needs. The stable
/// sort's positions are unique, so they are checked bit for bit as the keys are.
fn argsort<B: BenchBackend, T: Element>(b: &B, h: &Harness, n: usize) -> CaseResult {
    let keys: Vec<T> = try_random(n, 28)?;
    let want = order_of(&keys, SortOrder::ASCENDING);
    let kb = b.upload(&keys)?;
    // Stale positions in the output, so a call that writes nothing fails the check.
    let stale = try_random::<u32>(n, 29)?;
    let mut out = b.upload(&stale)?;
    b.argsort_into(&kb, &mut out, SortOrder::ASCENDING)?;
    check_all(&want, &b.download(&out)?)?;
    b.write(&mut out, &stale)?;
    let timed = b.time_job(
        h,
        &mut Job::Argsort {
            keys: &kb,
            indices: &mut out,
        },
    )?;
    check_all(&want, &b.download(&out)?)?;
    Ok(Measured {
        timing: timed.timing,
        bytes: size_of::<T>(n) + size_of::<u32>(n),
        input_bytes: size_of::<T>(n),
        baseline: timed.baseline,
        read_only: false,
    })
}

/// Offsets of segments of `size` keys, or of power-law lengths (most a few keys, some
/// thousands) when `size` is None.
fn segment_offsets(n: usize, size: Option<usize>) -> Vec<u32> {
    let mut offsets = vec![0u32];
    let mut end = 0usize;
    let mut i = 0u64;
    while end < n {
        let len = match size {
            Some(s) => s,
            None => {
                let u = ((splitmix(23 << 40 | i) >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
                ((2.0 / u.powf(1.0 / 1.1)) as usize).clamp(1, 1 << 16)
            }
        };
        end = (end + len).min(n);
        offsets.push(end as u32);
        i += 1;
    }
    offsets
}

fn segmented<B: BenchBackend>(b: &B, h: &Harness, n: usize, size: Option<usize>) -> CaseResult {
    let keys: Vec<u32> = try_random(n, 24)?;
    let offsets = segment_offsets(n, size);
    let want: Vec<u32> = offsets
        .par_windows(2)
        .flat_map_iter(|w| {
            let mut seg = keys[w[0] as usize..w[1] as usize].to_vec();
            seg.sort();
            seg
        })
        .collect();
    let segments = match size {
        Some(s) => Segments::fixed(s, VectorSize::Auto)?,
        None => Segments::from_offsets(b, &offsets, n, VectorSize::Auto)?,
    };
    let kb = b.upload(&keys)?;
    let raw_offsets = b.upload(&offsets)?;
    let mut out = b.alloc::<u32>(n)?;
    b.segmented_sort_keys_into(&kb, &segments, &mut out, SortOrder::ASCENDING)?;
    check_all(&want, &b.download(&out)?)?;
    b.write(&mut out, &try_random::<u32>(n, 25)?)?;
    let timed = b.time_job(
        h,
        &mut Job::SegmentedSort {
            keys: &kb,
            segments: &segments,
            baseline_offsets: &raw_offsets,
            count: offsets.len() - 1,
            out: &mut out,
        },
    )?;
    check_all(&want, &b.download(&out)?)?;
    Ok(Measured {
        timing: timed.timing,
        bytes: 2 * size_of::<u32>(n),
        input_bytes: size_of::<u32>(n),
        baseline: timed.baseline,
        read_only: false,
    })
}

fn top_k<B: BenchBackend>(b: &B, h: &Harness, n: usize, k: usize) -> CaseResult {
    let k = k.clamp(1, n);
    let x: Vec<f32> = try_random(n, 26)?;
    let pos = order_of(&x, SortOrder::DESCENDING);
    let (want_i, want_v) = (pos[..k].to_vec(), gather(&x, &pos[..k]));
    let xb = b.upload(&x)?;
    let (mut vo, mut io) = (b.alloc::<f32>(k)?, b.alloc::<u32>(k)?);
    let check = |b: &B, vo: &B::Buffer<f32>, io: &B::Buffer<u32>| -> Result<(), Refused> {
        check_all(&want_v, &b.download(vo)?)?;
        check_all(&want_i, &b.download(io)?)
    };
    b.top_k_with_indices_into(&xb, k, SortOrder::DESCENDING, &mut vo, &mut io)?;
    check(b, &vo, &io)?;
    let timed = b.time_job(
        h,
        &mut Job::TopK {
            input: &xb,
            k,
            values: &mut vo,
            indices: &mut io,
        },
    )?;
    check(b, &vo, &io)?;
    Ok(Measured {
        timing: timed.timing,
        bytes: size_of::<f32>(n) + 2 * size_of::<u32>(k),
        input_bytes: size_of::<f32>(n),
        baseline: timed.baseline,
        read_only: true,
    })
}
