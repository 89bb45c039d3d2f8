//! wavekit inside a cudarc program: the caller's context, stream and device memory; wavekit
//! reduces and scans the caller's `CudaSlice` in place, on the caller's stream, and writes the
//! scan into another of the caller's slices, which cudarc reads back.
//!
//! ```sh
//! bash scripts/setup-cuda.sh
//! cargo run --release --features cuda --example cuda_stream
//! ```
//! Without a CUDA device it says why and exits with code 2.

use wavekit::cuda::cudarc::driver::CudaContext;
use wavekit::cuda::{self, AsWavekit, AsWavekitMut};
use wavekit::gpu::GpuRuntime;
use wavekit::{Collectives, ReduceOp, ScanKind};

fn main() {
    if cuda::device_count() == 0 {
        eprintln!("cuda_stream: no CUDA device (or no driver): nothing to run");
        std::process::exit(2);
    }
    if let Err(e) = run() {
        eprintln!("cuda_stream: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    // The user's program: a context, a stream, data in device memory.
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let n = 1usize << 20;
    let host: Vec<u32> = (0..n as u32).map(|i| i % 1000).collect();
    let data = stream.clone_htod(&host)?;
    let mut prefix = stream.alloc_zeros::<u32>(n)?;

    // wavekit on the same stream, on the same memory: no copies.
    let wk = cuda::open_on_stream(stream.clone())?;
    {
        // Views of the caller's slices: ordered on the stream, dropped before cudarc reads.
        let input = data.as_wavekit(&wk)?;
        let mut output = prefix.as_wavekit_mut(&wk)?;
        wk.scan(&input, &mut output, ReduceOp::Sum, ScanKind::Exclusive)?;
    }
    let total = wk.reduce(&*data.as_wavekit(&wk)?, ReduceOp::Sum)?;

    // Back in cudarc, on the stream.
    let back = stream.clone_dtoh(&prefix)?;
    let want_total: u32 = host.iter().sum();
    let mut acc = 0u32;
    let scan_ok = host.iter().zip(&back).all(|(&x, &p)| {
        let ok = p == acc;
        acc += x;
        ok
    });
    println!("device      : {}", wk.runtime().device_name());
    println!("n           : {n}");
    println!("reduce(sum) : {total} (expected {want_total})");
    println!(
        "scan[n-1]   : {} (expected {})",
        back[n - 1],
        want_total - host[n - 1]
    );
    if total != want_total || !scan_ok {
        return Err("wavekit's results differ from the host's".into());
    }
    println!("ok: reduce and exclusive scan on the caller's CudaSlice match the host");
    Ok(())
}
