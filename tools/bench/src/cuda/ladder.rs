//! The seed ladder (seed 003 and seed 002's reductions, csrc/bench/ladder.cu) on this GPU: the
//! seed's input (10^8 floats of 1.23), each step timed twice (GPU time between events around
//! the step's launches, and host time of the whole call including reading the result back, as
//! the seed measured), its result compared with a float64 reference, and wavekit's canonical
//! device reduce on the same input as the last row.

use super::ffi;
use super::timer::{DeviceTimer, check};
use super::{inp, out, scratch, stream};
use crate::timing::{Harness, Timing};
use std::ffi::CStr;
use std::fmt::Write as _;
use std::time::{Duration, Instant};
use wavekit::api::Collectives;
use wavekit::backend::Backend;
use wavekit::cuda::CudaBackend;
use wavekit::error::Result;
use wavekit::gpu::GpuRuntime;
use wavekit::gpu::ffi as wk;
use wavekit::op::ReduceOp;
use wavekit_conformance::reference;

/// The seed's N and value.
pub const SEED_N: usize = 100_000_000;
pub const SEED_VALUE: f32 = 1.23;

/// One rung of the seed's reduction ladder: its device and host timings and results.
#[derive(Debug)]
pub struct Step {
    pub step: u32,
    pub name: String,
    pub device: Timing,
    pub host: Timing,
    /// The result of the last host-timed run.
    pub result: f32,
    /// Distinct results over the host-timed runs (1 = deterministic here).
    pub distinct: usize,
}

/// The whole ladder at one size, with the f64 reference sum.
#[derive(Debug)]
pub struct Ladder {
    pub n: usize,
    pub reference: f64,
    pub steps: Vec<Step>,
}

pub fn run(b: &CudaBackend, h: &Harness) -> Result<Ladder> {
    let n = SEED_N;
    let x = vec![SEED_VALUE; n];
    let reference = f64::from(SEED_VALUE) * n as f64;
    let input = b.upload(&x)?;
    let d_y = b.alloc::<f32>(1)?;
    let timer = DeviceTimer::new(b)?;
    // SAFETY: takes nothing, returns the number of ladder steps.
    let steps_total = unsafe { ffi::wk_bench_ladder_steps() };
    let mut steps = Vec::new();
    for step in 1..=steps_total {
        // SAFETY: a step in 1..=steps_total has a static NUL-terminated name.
        let name = unsafe { CStr::from_ptr(ffi::wk_bench_ladder_name(step)) }
            .to_string_lossy()
            .into_owned();
        let mut result = 0.0f32;
        let mut host = Vec::new();
        let mut seen = Vec::new();
        for rep in 0..h.warmup + h.reps.max(1) {
            let s = stream(b)?;
            let start = Instant::now();
            // SAFETY: `input` holds n floats and `d_y` one, used by nothing else; the step
            // writes its host result to `result`, a live local, before it returns.
            let rc = unsafe {
                ffi::wk_bench_ladder(s, step, inp(&input), n as u64, out(&d_y), &mut result)
            };
            let took = start.elapsed();
            check(b, rc, "ladder step")?;
            if rep >= h.warmup {
                host.push(took);
                if !seen.contains(&result.to_bits()) {
                    seen.push(result.to_bits());
                }
            }
        }
        // SAFETY: as above, with no host result (null).
        let device = timer.time(h, "ladder step", |s| unsafe {
            ffi::wk_bench_ladder(
                s,
                step,
                inp(&input),
                n as u64,
                out(&d_y),
                std::ptr::null_mut(),
            )
        })?;
        steps.push(Step {
            step,
            name,
            device,
            host: Timing::new(host),
            result,
            distinct: seen.len(),
        });
    }
    steps.push(wavekit_row(b, h, &timer, &x, &input)?);
    Ok(Ladder {
        n,
        reference,
        steps,
    })
}

/// wavekit's canonical device reduce of the same input: one launch, deterministic.
fn wavekit_row(
    b: &CudaBackend,
    h: &Harness,
    timer: &DeviceTimer<'_>,
    x: &[f32],
    input: &wavekit::gpu::GpuBuffer<f32, wavekit::cuda::CudaRuntime>,
) -> Result<Step> {
    let expected = reference::device_reduce(x, ReduceOp::Sum);
    let mut host = Vec::new();
    let mut seen = Vec::new();
    let mut result = 0.0f32;
    for rep in 0..h.warmup + h.reps.max(1) {
        let start = Instant::now();
        result = b.reduce(input, ReduceOp::Sum)?;
        let took = start.elapsed();
        if rep >= h.warmup {
            host.push(took);
            if !seen.contains(&result.to_bits()) {
                seen.push(result.to_bits());
            }
        }
    }
    if result.to_bits() != expected.to_bits() {
        return Err(wavekit::error::WavekitError::Device {
            backend: "cuda",
            call: "ladder: wavekit reduce".into(),
            message: format!("gave {result}, the canonical order gives {expected}"),
        });
    }
    let t = b.runtime().launchers();
    let kind = wavekit::element::ElemKind::F32 as u32;
    // SAFETY: a pure size computation: integers in, one integer out.
    let bytes = unsafe { (t.scratch_bytes)(wk::ALGO_DEVICE_REDUCE, kind, x.len() as u64) };
    let sc = scratch(b, bytes)?;
    let res = b.alloc::<f32>(1)?;
    let status = b.upload(&[0u64, u64::MAX])?;
    let st = out::<_, wk::Status>(&status);
    // SAFETY: `input` holds `x.len()` floats, `sc` at least `bytes` bytes, `res` one float and
    // `st` the cleared status word in `status`: live buffers nothing else uses meanwhile.
    let device = timer.time(h, "device_reduce", |s| unsafe {
        (t.device_reduce)(
            s,
            st,
            kind,
            ReduceOp::Sum as u32,
            inp(input),
            x.len() as u64,
            out(&sc),
            bytes,
            out(&res),
        )
    })?;
    Ok(Step {
        step: 0,
        name: "wavekit canonical device reduce (1 launch)".into(),
        device,
        host: Timing::new(host),
        result,
        distinct: seen.len(),
    })
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The ladder as a text table (also valid Markdown).
pub fn table(l: &Ladder) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "seed ladder: sum of {} floats of {SEED_VALUE} (float64 reference {:.1}); medians",
        l.n, l.reference
    );
    let _ = writeln!(
        s,
        "| step | kernel | device ms | vs previous | host ms (with readback) | result | error | distinct results |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
    let mut prev: Option<f64> = None;
    for st in &l.steps {
        let dev = ms(st.device.median());
        let vs = prev.map_or("-".to_string(), |p| {
            format!("{:+.0}%", (p / dev - 1.0) * 100.0)
        });
        let label = if st.step == 0 {
            "-".to_string()
        } else {
            st.step.to_string()
        };
        let _ = writeln!(
            s,
            "| {label} | {} | {dev:.3} | {vs} | {:.3} | {:.1} | {:+.1} | {} |",
            st.name,
            ms(st.host.median()),
            st.result,
            f64::from(st.result) - l.reference,
            st.distinct
        );
        if st.step != 0 {
            prev = Some(dev);
        }
    }
    s
}

/// The ladder as CSV rows.
pub fn csv(l: &Ladder) -> String {
    let mut s = String::from(
        "step,kernel,device_median_s,host_median_s,result,reference,error,distinct_results\n",
    );
    for st in &l.steps {
        let _ = writeln!(
            s,
            "{},{},{:e},{:e},{},{},{},{}",
            st.step,
            st.name.replace(',', ";"),
            st.device.median().as_secs_f64(),
            st.host.median().as_secs_f64(),
            st.result,
            l.reference,
            f64::from(st.result) - l.reference,
            st.distinct
        );
    }
    s
}
