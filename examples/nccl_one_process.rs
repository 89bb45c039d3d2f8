//! Launch mode 1: one process drives every GPU it sees (or `--gpus N`), one thread per rank.
//! Each rank holds a shard of one logical f32 array; the reproducible sum is the same bits as
//! the single-device sum, which rank 0 also computes on its own GPU to show it.
//!
//! ```sh
//! bash scripts/setup-cuda.sh
//! NCCL_NVLS_ENABLE=0 cargo run --release --features nccl --example nccl_one_process -- --gpus 2
//! ```

use wavekit::dist::nccl::{NcclTransport, Vendor};
use wavekit::dist::{Comm, Layout, Mode};
use wavekit::{Backend, Collectives, ReduceOp};

fn main() -> wavekit::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let gpus = args
        .iter()
        .position(|a| a == "--gpus")
        .and_then(|i| args.get(i + 1))
        .map_or_else(wavekit::cuda::device_count, |g| {
            g.parse().expect("--gpus N")
        });
    let n = 1 << 24;
    let data: Vec<f32> = (0..n).map(|i| ((i * 7919 % 1000) as f32).sin()).collect();
    let backends = (0..gpus)
        .map(wavekit::cuda::open)
        .collect::<wavekit::Result<Vec<_>>>()?;
    let ranks = NcclTransport::init_all(Vendor::Nccl, backends)?;
    let layout = Layout::even(n, gpus);
    let sums = std::thread::scope(|s| {
        let hs: Vec<_> = ranks
            .into_iter()
            .map(|t| {
                let (data, layout) = (&data, &layout);
                s.spawn(move || -> wavekit::Result<(f32, f32)> {
                    let comm = Comm::new(t);
                    let shard = comm.backend().upload(&data[layout.range(comm.rank())])?;
                    Ok((
                        comm.all_reduce_value(&shard, ReduceOp::Sum, Mode::Reproducible)?,
                        comm.all_reduce_value(&shard, ReduceOp::Sum, Mode::Fast)?,
                    ))
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("rank thread"))
            .collect::<wavekit::Result<Vec<_>>>()
    })?;
    let one = wavekit::cuda::open(0)?;
    let single = one.reduce(&one.upload(&data)?, ReduceOp::Sum)?;
    for (rank, (repro, fast)) in sums.iter().enumerate() {
        println!(
            "rank {rank}: reproducible {repro} ({:#010x}), fast {fast} ({:#010x})",
            repro.to_bits(),
            fast.to_bits()
        );
    }
    let same = sums.iter().all(|(r, _)| r.to_bits() == single.to_bits());
    println!(
        "single device {single} ({:#010x}); reproducible equal: {same}",
        single.to_bits()
    );
    if !same {
        std::process::exit(1);
    }
    Ok(())
}
