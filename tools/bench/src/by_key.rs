//! The by-key rows: reduce_by_key and inclusive scan_by_key (Sum) of `f32` values over `u32`
//! keys in runs of 8 (CUB's and torch's measured case). The values are whole numbers below
//! 2^10, so every run's sums are exact in any order and CUB's result can be compared with ours
//! bit for bit; the expected sums are added up here in f64 over the conformance reference's
//! runs and compared before and after timing.

use super::case::{Case, CaseResult, Measured, Refused, check_all, random, size_of, try_random};
use super::job::Job;
use super::runs::run_keys;
use super::timing::{BenchBackend, Harness};
use wavekit_conformance::reference;

pub fn cases<B: BenchBackend>() -> Vec<Case<B>> {
    vec![
        Case {
            collective: "reduce_by_key runs of 8",
            elem: "f32",
            run: |b, h, n| by_key::<B>(b, h, n, true),
        },
        Case {
            collective: "scan_by_key runs of 8",
            elem: "f32",
            run: |b, h, n| by_key::<B>(b, h, n, false),
        },
    ]
}

/// The by-key rows' input: `u32` keys in runs of 8 and `f32` values that are whole numbers below
/// 2^10 (exact sums in any order).
pub(crate) fn by_key_input(n: usize) -> (Vec<u32>, Vec<f32>) {
    let vals = random::<u32>(n, 32)
        .iter()
        .map(|&v| (v % 1024) as f32)
        .collect();
    (run_keys(n, 8), vals)
}

fn by_key<B: BenchBackend>(b: &B, h: &Harness, n: usize, reduce: bool) -> CaseResult {
    let (keys, vals) = by_key_input(n);
    let runs = reference::runs(&keys);
    let want_keys: Vec<u32> = runs.iter().map(|r| keys[r.0]).collect();
    let mut want_sums = Vec::with_capacity(runs.len());
    let mut want_scan = Vec::with_capacity(n);
    for &(start, len) in &runs {
        let mut acc = 0f64;
        for &v in &vals[start..start + len] {
            acc += v as f64;
            want_scan.push(acc as f32);
        }
        want_sums.push(acc as f32);
    }
    let kb = b.upload(&keys)?;
    let vb = b.upload(&vals)?;
    let mut out = b.alloc::<f32>(n)?;
    let mut ko = b.alloc::<u32>(n)?;
    let mut count = b.alloc::<u64>(1)?;
    let m = runs.len();
    let check = |b: &B, out: &B::Buffer<f32>, ko: &B::Buffer<u32>, c: &B::Buffer<u64>| {
        if reduce {
            check_all(&[m as u64], &b.download(c)?)?;
            check_all(&want_keys, &b.download(ko)?[..m])?;
            check_all(&want_sums, &b.download(out)?[..m])?;
        } else {
            check_all(&want_scan, &b.download(out)?)?;
        }
        Ok::<(), Refused>(())
    };
    job::<B>(&kb, &vb, &mut out, &mut ko, &mut count, reduce).call(b)?;
    check(b, &out, &ko, &count)?;
    b.write(&mut out, &try_random::<f32>(n, 33)?)?;
    let timed = b.time_job(
        h,
        &mut job::<B>(&kb, &vb, &mut out, &mut ko, &mut count, reduce),
    )?;
    check(b, &out, &ko, &count)?;
    let (input, written) = if reduce {
        (size_of::<u32>(n) + size_of::<f32>(n), 2 * size_of::<u32>(m))
    } else {
        (size_of::<u32>(n) + size_of::<f32>(n), size_of::<f32>(n))
    };
    Ok(Measured {
        timing: timed.timing,
        bytes: input + written,
        input_bytes: input,
        baseline: timed.baseline,
        read_only: false,
    })
}

fn job<'a, B: BenchBackend>(
    keys: &'a B::Buffer<u32>,
    values: &'a B::Buffer<f32>,
    out: &'a mut B::Buffer<f32>,
    keys_out: &'a mut B::Buffer<u32>,
    count: &'a mut B::Buffer<u64>,
    reduce: bool,
) -> Job<'a, B, f32> {
    Job::ByKey {
        keys,
        values,
        out,
        reduce: reduce.then_some((keys_out, count)),
    }
}
