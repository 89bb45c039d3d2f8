//! The partition rows: a stable two-way partition of random `f32` and `f64` by `x > 0.0` (about half
//! selected), checked before and after timing against the conformance reference (the selected
//! in input order, then the rest in input order), bit for bit.

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
