//! Launch mode 2: one process per GPU, rank and world from the environment (torchrun's RANK,
//! WORLD_SIZE, LOCAL_RANK, MASTER_ADDR/MASTER_PORT, or Open MPI's OMPI_COMM_WORLD_*), the NCCL
//! unique id shared over TCP (MASTER_PORT + 1) or a file (WAVEKIT_NCCL_ID_FILE).
//!
//! ```sh
//! cargo build --release --features nccl --example nccl_per_process
//! NCCL_NVLS_ENABLE=0 bash scripts/launch-local.sh 2 target/release/examples/nccl_per_process
//! ```

use std::time::Duration;
use wavekit::dist::nccl::{Launch, NcclTransport, Vendor};
use wavekit::dist::{Comm, Layout, Mode};
use wavekit::{Backend, ReduceOp};

fn main() -> wavekit::Result<()> {
    let launch = Launch::from_env()?;
    let backend = wavekit::cuda::open(launch.local_rank)?;
    let t = NcclTransport::from_launch(Vendor::Nccl, backend, &launch, Duration::from_secs(60))?;
    let comm = Comm::new(t);
    let n = 1 << 24;
    let layout = Layout::even(n, comm.world());
    // Each rank makes only its own shard of the logical array.
    let shard: Vec<f32> = layout
        .range(comm.rank())
        .map(|i| ((i * 7919 % 1000) as f32).sin())
        .collect();
    let shard = comm.backend().upload(&shard)?;
    let sum = comm.all_reduce_value(&shard, ReduceOp::Sum, Mode::Reproducible)?;
    println!(
        "rank {} of {}: reproducible sum {sum} ({:#010x})",
        comm.rank(),
        comm.world(),
        sum.to_bits()
    );
    Ok(())
}
