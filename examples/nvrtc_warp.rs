//! A cudarc user's kernel, compiled at run time, with wavekit's device API in it: the three steps
//! of docs/DEVICE_API.md ("Kernels you compile at run time").
//!
//! 1. Check the source on the SIMT executor at 32 and 64 lanes (`check_source`): the wave64
//!    bugs a CUDA kernel carries to AMD show here, on the CPU, with their line.
//! 2. Compile it with NVRTC for this device (`wavekit::cuda::rtc::compile`): `#include
//!    <wavekit.h>` needs no file on disk, and `warp_reduce`/`ballot_sync` are the device's width.
//! 3. Launch it yourself, with cudarc, on your stream and your `CudaSlice`s, and compare with
//!    the CPU backend, bit for bit.
//!
//! ```sh
//! bash scripts/setup-cuda.sh
//! cargo run --release --features cuda,simt --example nvrtc_warp
//! ```
//! Without a CUDA device it runs step 1, says why it stops, and exits with code 2.

use wavekit::cuda::cudarc::driver::{CudaContext, PushKernelArg};
use wavekit::cuda::{self, rtc};
use wavekit::prelude::*;
use wavekit::simt::user::{Arg, LaunchShape, Value, Values, check_source};

/// The kernel, as the program holds it: a string (here read from the file beside this one).
const SOURCE: &str = include_str!("nvrtc_warp.cu");

fn input(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7919) % 613) as f32 * 0.37 - 100.0 + 1.0 / (i as f32 + 3.0))
        .collect()
}

fn main() {
    if let Err(e) = check() {
        eprintln!("nvrtc_warp: {e}");
        std::process::exit(1);
    }
    if cuda::device_count() == 0 {
        eprintln!("nvrtc_warp: no CUDA device (or no driver): steps 2 and 3 not run");
        std::process::exit(2);
    }
    if let Err(e) = run() {
        eprintln!("nvrtc_warp: {e}");
        std::process::exit(1);
    }
}

/// Step 1: the source on the executor at both widths.
fn check() -> Result<(), Box<dyn std::error::Error>> {
    let n = 300;
    let args = [
        Arg::Buffer(Values::F32(input(n))),
        Arg::Buffer(Values::F32(vec![0.0; n.div_ceil(32)])),
        Arg::Buffer(Values::U32(vec![0; n.div_ceil(32)])),
        Arg::Scalar(Value::U32(n as u32)),
    ];
    let shape = LaunchShape::linear(n.div_ceil(128) as u32, 128);
    // SAFETY: SOURCE is this example's own kernel: no global initialisers, and it indexes
    // `in` below `n` and the two outputs below `n / 32` (rounded up), the lengths given here.
    let runs = unsafe { check_source("nvrtc_warp.cu", SOURCE, "warp_sums", shape, &args)? };
    for run in runs {
        println!(
            "executor, {} lanes: {} hazard(s)",
            run.width.lanes(),
            run.reports.len()
        );
        for r in &run.reports {
            println!("  {r}");
        }
        if !run.is_clean() {
            return Err(format!("the kernel is not clean at {} lanes", run.width.lanes()).into());
        }
    }
    Ok(())
}

/// Steps 2 and 3: NVRTC, then the user's own launch.
fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let module = rtc::compile(&ctx, "nvrtc_warp.cu", SOURCE, &[])?;
    let f = module.function("warp_sums")?;
    let (major, minor) = ctx.compute_capability()?;
    println!(
        "nvrtc: compiled for compute_{major}{minor}, kernels {:?}",
        module.kernels().collect::<Vec<_>>()
    );

    let width = 32usize; // NVIDIA's warp; the kernel itself spells WK_WARP_SIZE
    let n = 1 << 20;
    let x = input(n);
    let warps = n.div_ceil(width);
    let data = stream.clone_htod(&x)?;
    let mut sums = stream.alloc_zeros::<f32>(warps)?;
    let mut positive = stream.alloc_zeros::<u32>(warps)?;
    let n32 = n as u32;
    let cfg = f.launch_config([n.div_ceil(256) as u32, 1, 1], [256, 1, 1], 0)?;
    let mut launch = stream.launch_builder(f.cuda_function());
    launch
        .arg(&data)
        .arg(&mut sums)
        .arg(&mut positive)
        .arg(&n32);
    // SAFETY: the kernel reads n floats of `data` and writes ceil(n / 32) of each output.
    f.check(unsafe { launch.launch(cfg) })?;
    let (sums, positive) = (stream.clone_dtoh(&sums)?, stream.clone_dtoh(&positive)?);

    let cpu = CpuBackend::new(WarpWidth::W32);
    let want = cpu.warp_reduce(&x, width as u32, ReduceOp::Sum)?;
    let want_pos: Vec<u32> = x
        .chunks(width)
        .map(|c| c.iter().filter(|&&v| v > 0.0).count() as u32)
        .collect();
    let same_bits = sums
        .iter()
        .zip(&want)
        .all(|(a, b)| a.to_bits() == b.to_bits());
    println!("n           : {n} ({warps} warps)");
    println!(
        "sums[0..3]  : {:?} (CPU backend {:?})",
        &sums[..3],
        &want[..3]
    );
    println!("positive[0] : {} (expected {})", positive[0], want_pos[0]);
    if !same_bits || positive != want_pos {
        return Err("the GPU's warp sums or counts differ from the CPU backend's".into());
    }
    println!("ok: the runtime-compiled kernel matches the CPU backend bit for bit");
    Ok(())
}
