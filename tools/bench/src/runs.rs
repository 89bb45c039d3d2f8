//! The runs rows: run-length encode and unique of `u32` keys in runs of 8 (CUB's and torch's
//! measured case). The expected runs come from the conformance suite's sequential reference and
//! are compared before and after timing.

use super::case::{Case, CaseResult, Measured, Refused, check_all, random, size_of, try_random};
use super::job::Job;
use super::timing::{BenchBackend, Harness};
use wavekit_conformance::reference;

/// Keys in runs of `len`: run r holds a random key (neighbouring runs differ).
pub(crate) fn run_keys(n: usize, len: usize) -> Vec<u32> {
    let pool: Vec<u32> = random(n.div_ceil(len), 30);
    (0..n)
        .map(|i| {
            let r = i / len;
            // Neighbouring runs must differ, or they merge into one.
            pool[r] ^ (r as u32 & 1) << 31
        })
        .collect()
}

pub fn cases<B: BenchBackend>() -> Vec<Case<B>> {
    vec![
        Case {
            collective: "run_length_encode runs of 8",
            elem: "u32",
            run: |b, h, n| runs::<B>(b, h, n, true),
        },
        Case {
            collective: "unique runs of 8",
            elem: "u32",
            run: |b, h, n| runs::<B>(b, h, n, false),
        },
    ]
}

fn runs<B: BenchBackend>(b: &B, h: &Harness, n: usize, lengths: bool) -> CaseResult {
    let keys = run_keys(n, 8);
    let want = reference::runs(&keys);
    let want_keys: Vec<u32> = want.iter().map(|r| keys[r.0]).collect();
    let want_lens: Vec<u32> = want.iter().map(|r| r.1 as u32).collect();
    let kb = b.upload(&keys)?;
    let mut ko = b.alloc::<u32>(n)?;
    let mut lo = b.alloc::<u32>(n)?;
    let mut count = b.alloc::<u64>(1)?;
    let check = |b: &B, ko: &B::Buffer<u32>, lo: &B::Buffer<u32>, c: &B::Buffer<u64>| {
        check_all(&[want.len() as u64], &b.download(c)?)?;
        check_all(&want_keys, &b.download(ko)?[..want.len()])?;
        if lengths {
            check_all(&want_lens, &b.download(lo)?[..want.len()])?;
        }
        Ok::<(), Refused>(())
    };
    Job::Runs {
        keys: &kb,
        keys_out: &mut ko,
        lengths: lengths.then_some(&mut lo),
        count: &mut count,
    }
    .call(b)?;
    check(b, &ko, &lo, &count)?;
    b.write(&mut ko, &try_random::<u32>(n, 31)?)?;
    let timed = b.time_job(
        h,
        &mut Job::Runs {
            keys: &kb,
            keys_out: &mut ko,
            lengths: lengths.then_some(&mut lo),
            count: &mut count,
        },
    )?;
    check(b, &ko, &lo, &count)?;
    let out_bytes = size_of::<u32>(want.len()) * if lengths { 2 } else { 1 };
    Ok(Measured {
        timing: timed.timing,
        bytes: size_of::<u32>(n) + out_bytes,
        input_bytes: size_of::<u32>(n),
        baseline: timed.baseline,
        read_only: false,
    })
}
