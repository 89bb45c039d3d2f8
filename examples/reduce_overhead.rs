//! The host time per call of a small reduce (2^10 f32, Sum): the synchronous `reduce`, which
//! waits for the device and reads the value back on every call, against `reduce_into`, which
//! enqueues the reduce into a device slot and returns (10 000 calls, then one `synchronize`).
//! Both in the same run, after checking their results.
//!
//! `cargo run --release --example reduce_overhead` runs on the CPU backend;
//! `cargo run --release --features cuda --example reduce_overhead` on CUDA device 0.

use std::time::Instant;
use wavekit::prelude::*;
use wavekit::{Result, WavekitError};

const N: usize = 1 << 10;
const CALLS: usize = 10_000;
const WARM_UP: usize = 100;

fn measure<B: Collectives>(b: &B) -> Result<()> {
    // Small integers: every summation order gives the exact sum.
    let host: Vec<f32> = (0..N).map(|i| (i % 8) as f32).collect();
    let want: f32 = host.iter().sum();
    let input = b.upload(&host)?;
    let mut out = b.alloc::<f32>(1)?;
    let wrong = |what: &str, got: f32| WavekitError::Device {
        backend: "example",
        call: what.to_string(),
        message: format!("{got} instead of {want}"),
    };
    for _ in 0..WARM_UP {
        b.reduce(&input, ReduceOp::Sum)?;
        b.reduce_into(&input, ReduceOp::Sum, &mut out)?;
    }
    b.synchronize()?;

    let start = Instant::now();
    let mut last = 0.0;
    for _ in 0..CALLS {
        last = b.reduce(&input, ReduceOp::Sum)?;
    }
    let sync = start.elapsed();
    if last != want {
        return Err(wrong("reduce", last));
    }

    let start = Instant::now();
    for _ in 0..CALLS {
        b.reduce_into(&input, ReduceOp::Sum, &mut out)?;
    }
    b.synchronize()?;
    let queued = start.elapsed();
    let got = b.download(&out)?[0];
    if got != want {
        return Err(wrong("reduce_into", got));
    }

    let per_call = |d: std::time::Duration| d.as_secs_f64() * 1e6 / CALLS as f64;
    println!("{}: sum of 2^10 f32 = {want}, {CALLS} calls each", b.name());
    println!(
        "  reduce (synchronous, value read back every call): {:8.2} us per call",
        per_call(sync)
    );
    println!(
        "  reduce_into (queued, one synchronize at the end): {:8.2} us per call",
        per_call(queued)
    );
    Ok(())
}

fn main() -> Result<()> {
    #[cfg(feature = "cuda")]
    if wavekit::cuda::device_count() > 0 {
        return measure(&wavekit::cuda::open(0)?);
    }
    measure(&CpuBackend::new(WarpWidth::W32))
}
