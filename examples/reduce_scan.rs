//! Reduce and scan of your own data on the CPU backend, each result checked against plain Rust.
//!
//! ```sh
//! cargo run --example reduce_scan
//! ```
//!
//! On the CPU backend a buffer can own your `Vec` without a copy (`CpuBuffer::from_vec`, and
//! `into_vec` to get it back); on a GPU backend `upload` copies it to the device instead. Integer
//! results are exact, so they must equal a plain left fold. Float sums use wavekit's canonical
//! combining order (docs/SEMANTICS.md), which is not the left fold's: they differ from it by
//! rounding only, and are the same bits at 32 and 64 lanes (and on CUDA and HIP).

use std::process::ExitCode;
use wavekit::prelude::*;

fn main() -> ExitCode {
    match run() {
        Ok(0) => {
            println!("reduce_scan: every result matches");
            ExitCode::SUCCESS
        }
        Ok(bad) => {
            eprintln!("reduce_scan: {bad} mismatches");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("reduce_scan: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Prints one result against what plain Rust computed; counts a mismatch.
fn check<T: PartialEq + std::fmt::Debug>(bad: &mut usize, what: &str, got: T, want: T) {
    let ok = got == want;
    println!("{:<4} {what:<32} {got:?}", if ok { "ok" } else { "FAIL" });
    if !ok {
        println!("     expected {want:?}");
        *bad += 1;
    }
}

fn run() -> Result<usize> {
    let mut bad = 0;
    let cpu = CpuBackend::new(WarpWidth::W32);

    // Your data: a day of sensor readings, say, 100 000 signed deltas.
    let readings: Vec<i64> = (0..100_000i64).map(|i| (i * 7919 % 1001) - 500).collect();
    let n = readings.len();

    // The buffer takes the Vec as it is: no copy on the CPU backend.
    let input = CpuBuffer::from_vec(readings);
    let data = input.as_slice();

    check(
        &mut bad,
        "reduce Sum",
        cpu.reduce(&input, ReduceOp::Sum)?,
        data.iter().sum::<i64>(),
    );
    check(
        &mut bad,
        "reduce Min",
        cpu.reduce(&input, ReduceOp::Min)?,
        *data.iter().min().expect("not empty"),
    );
    check(
        &mut bad,
        "reduce Max",
        cpu.reduce(&input, ReduceOp::Max)?,
        *data.iter().max().expect("not empty"),
    );
    check(
        &mut bad,
        "reduce BitXor",
        cpu.reduce(&input, ReduceOp::BitXor)?,
        data.iter().fold(0, |a, &x| a ^ x),
    );

    // Running totals: an inclusive and an exclusive prefix sum into one output buffer.
    let mut prefix = cpu.alloc::<i64>(n)?;
    cpu.scan(&input, &mut prefix, ReduceOp::Sum, ScanKind::Inclusive)?;
    let inclusive: Vec<i64> = data
        .iter()
        .scan(0i64, |acc, &x| {
            *acc += x;
            Some(*acc)
        })
        .collect();
    let got = prefix.as_slice();
    check(
        &mut bad,
        "scan Sum inclusive, first 5",
        &got[..5],
        &inclusive[..5],
    );
    check(
        &mut bad,
        "scan Sum inclusive, all equal",
        got == inclusive,
        true,
    );

    cpu.scan(&input, &mut prefix, ReduceOp::Sum, ScanKind::Exclusive)?;
    let exclusive: Vec<i64> = std::iter::once(0)
        .chain(inclusive[..n - 1].iter().copied())
        .collect();
    let got = prefix.as_slice();
    check(
        &mut bad,
        "scan Sum exclusive, first 5",
        &got[..5],
        &exclusive[..5],
    );
    check(
        &mut bad,
        "scan Sum exclusive, all equal",
        got == exclusive,
        true,
    );

    cpu.scan(&input, &mut prefix, ReduceOp::Max, ScanKind::Inclusive)?;
    let running_max: Vec<i64> = data
        .iter()
        .scan(i64::MIN, |acc, &x| {
            *acc = (*acc).max(x);
            Some(*acc)
        })
        .collect();
    check(
        &mut bad,
        "scan Max inclusive, all equal",
        prefix.as_slice() == running_max,
        true,
    );

    // The Vec comes back out of the buffer, again without a copy.
    let readings = input.into_vec();
    check(&mut bad, "the Vec back, same length", readings.len(), n);

    // Floats: the canonical order, the same bits at every warp width.
    let samples: Vec<f32> = readings.iter().map(|&r| r as f32 / 7.0).collect();
    let w64 = CpuBackend::new(WarpWidth::W64);
    let sum32 = cpu.reduce(&cpu.upload(&samples)?, ReduceOp::Sum)?;
    let sum64 = w64.reduce(&w64.upload(&samples)?, ReduceOp::Sum)?;
    let left_fold: f64 = samples.iter().map(|&x| f64::from(x)).sum();
    check(
        &mut bad,
        "f32 Sum, w32 and w64 same bits",
        sum32.to_bits() == sum64.to_bits(),
        true,
    );
    let magnitude: f64 = samples.iter().map(|x| f64::from(x.abs())).sum();
    // A tree of f32 adds over 2^17 elements: at most about 17 roundings of f32 epsilon each.
    let close = (f64::from(sum32) - left_fold).abs() <= 1e-6 * magnitude;
    println!("     f32 Sum = {sum32}, f64 left fold = {left_fold:.3}");
    check(&mut bad, "f32 Sum within rounding of f64", close, true);

    Ok(bad)
}
