//! The partition rows: a stable two-way partition of random `f32` and `f64` by `x > 0.0` (about half
//! selected), checked before and after timing against the conformance reference (the selected
//! in input order, then the rest in input order), bit for bit; the same in CUB's order
//! (partition_reversed: the rest reversed), and three ways in CUB's order (partition3_reversed:
//! `x < -333`, then `x < 333`, a third each of values in [-1000, 1000)).

use super::case::{Case, CaseResult, Measured, Refused, check_all, size_of, try_random};
use super::job::Job;
use super::timing::{BenchBackend, Harness};
use wavekit::Predicate;
use wavekit::element::Element;
use wavekit_conformance::reference;

pub fn cases<B: BenchBackend>() -> Vec<Case<B>> {
    vec![
        Case {
            collective: "partition",
            elem: "f32",
            run: |b, h, n| partition::<B, f32>(b, h, n),
        },
        Case {
            collective: "partition",
            elem: "f64",
            run: |b, h, n| partition::<B, f64>(b, h, n),
        },
        Case {
            collective: "partition_reversed",
            elem: "f32",
            run: |b, h, n| reversed::<B, f32>(b, h, n),
        },
        Case {
            collective: "partition_reversed",
            elem: "f64",
            run: |b, h, n| reversed::<B, f64>(b, h, n),
        },
        Case {
            collective: "partition3_reversed",
            elem: "f32",
            run: |b, h, n| {
                reversed3::<B, f32>(b, h, n, (Predicate::Lt(-333.0), Predicate::Lt(333.0)))
            },
        },
        Case {
            collective: "partition3_reversed",
            elem: "f64",
            run: |b, h, n| {
                reversed3::<B, f64>(b, h, n, (Predicate::Lt(-333.0), Predicate::Lt(333.0)))
            },
        },
    ]
}

fn partition<B: BenchBackend, T: Element>(b: &B, h: &Harness, n: usize) -> CaseResult {
    let pred = Predicate::Gt(T::default());
    let x: Vec<T> = try_random(n, 12)?;
    let (want, selected) = reference::partition(&x, &pred);
    let input = b.upload(&x)?;
    let mut out = b.alloc::<T>(n)?;
    let mut count = b.alloc::<u64>(1)?;
    let check = |b: &B, out: &B::Buffer<T>, count: &B::Buffer<u64>| {
        check_all(&[selected as u64], &b.download(count)?)?;
        check_all(&want, &b.download(out)?)?;
        Ok::<(), Refused>(())
    };
    job::<B, T>(&input, pred, &mut out, &mut count).call(b)?;
    check(b, &out, &count)?;
    b.write(&mut out, &try_random::<T>(n, 13)?)?;
    let timed = b.time_job(h, &mut job::<B, T>(&input, pred, &mut out, &mut count))?;
    check(b, &out, &count)?;
    Ok(Measured {
        timing: timed.timing,
        bytes: 2 * size_of::<T>(n),
        input_bytes: size_of::<T>(n),
        baseline: timed.baseline,
        read_only: false,
    })
}

fn reversed<B: BenchBackend, T: Element>(b: &B, h: &Harness, n: usize) -> CaseResult {
    let pred = Predicate::Gt(T::default());
    let x: Vec<T> = try_random(n, 12)?;
    let (want, selected) = reference::partition_reversed(&x, &pred);
    let input = b.upload(&x)?;
    let mut out = b.alloc::<T>(n)?;
    let mut count = b.alloc::<u64>(1)?;
    let check = |b: &B, out: &B::Buffer<T>, count: &B::Buffer<u64>| {
        check_all(&[selected as u64], &b.download(count)?)?;
        check_all(&want, &b.download(out)?)?;
        Ok::<(), Refused>(())
    };
    reversed_job::<B, T>(&input, pred, None, &mut out, &mut count).call(b)?;
    check(b, &out, &count)?;
    b.write(&mut out, &try_random::<T>(n, 13)?)?;
    let timed = b.time_job(
        h,
        &mut reversed_job::<B, T>(&input, pred, None, &mut out, &mut count),
    )?;
    check(b, &out, &count)?;
    Ok(Measured {
        timing: timed.timing,
        bytes: 2 * size_of::<T>(n),
        input_bytes: size_of::<T>(n),
        baseline: timed.baseline,
        read_only: false,
    })
}

/// The three-way rows: `first` and `second` are `x < -333` and `x < 333` (CUB's functors in
/// csrc/bench/cub_partition.cu).
fn reversed3<B: BenchBackend, T: Element>(
    b: &B,
    h: &Harness,
    n: usize,
    (first, second): (Predicate<T>, Predicate<T>),
) -> CaseResult {
    let x: Vec<T> = try_random(n, 12)?;
    let (one, two, rest) = reference::partition3_reversed(&x, &first, &second);
    let counts = [one.len() as u64, two.len() as u64];
    let input = b.upload(&x)?;
    // The checks compare the slots the parts reach: the others keep what the buffers held.
    let mut out = b.alloc::<T>(n)?;
    let mut middle = b.alloc::<T>(n)?;
    let mut count = b.alloc::<u64>(2)?;
    let check = |b: &B, out: &B::Buffer<T>, middle: &B::Buffer<T>, count: &B::Buffer<u64>| {
        check_all(&counts, &b.download(count)?)?;
        let (o, m) = (b.download(out)?, b.download(middle)?);
        check_all(&one, &o[..one.len()])?;
        check_all(&rest, &o[n - rest.len()..])?;
        check_all(&two, &m[..two.len()])?;
        Ok::<(), Refused>(())
    };
    let mid = Some((second, &mut middle));
    reversed_job::<B, T>(&input, first, mid, &mut out, &mut count).call(b)?;
    check(b, &out, &middle, &count)?;
    b.write(&mut out, &try_random::<T>(n, 13)?)?;
    b.write(&mut middle, &try_random::<T>(n, 14)?)?;
    let mid = Some((second, &mut middle));
    let timed = b.time_job(
        h,
        &mut reversed_job::<B, T>(&input, first, mid, &mut out, &mut count),
    )?;
    check(b, &out, &middle, &count)?;
    Ok(Measured {
        timing: timed.timing,
        bytes: 2 * size_of::<T>(n),
        input_bytes: size_of::<T>(n),
        baseline: timed.baseline,
        read_only: false,
    })
}

fn job<'a, B: BenchBackend, T: Element>(
    input: &'a B::Buffer<T>,
    pred: Predicate<T>,
    out: &'a mut B::Buffer<T>,
    count: &'a mut B::Buffer<u64>,
) -> Job<'a, B, T> {
    Job::Partition {
        input,
        pred,
        out,
        count,
    }
}

fn reversed_job<'a, B: BenchBackend, T: Element>(
    input: &'a B::Buffer<T>,
    pred: Predicate<T>,
    second: Option<(Predicate<T>, &'a mut B::Buffer<T>)>,
    out: &'a mut B::Buffer<T>,
    count: &'a mut B::Buffer<u64>,
) -> Job<'a, B, T> {
    Job::PartitionReversed {
        input,
        pred,
        second,
        out,
        count,
    }
}
