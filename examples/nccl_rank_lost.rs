//! Launch mode 2 with a rank that leaves: the last rank joins the communicator and exits
//! without calling the collective. Every other rank must get `RankLost` once the timeout
//! (`--timeout-s`, default 5) has passed, not hang and not return a value. Exits non-zero if
//! a rank returns anything else or waits much longer than the timeout.
//!
//! ```sh
//! cargo build --release --features nccl --example nccl_rank_lost
//! NCCL_NVLS_ENABLE=0 bash scripts/launch-local.sh 2 target/release/examples/nccl_rank_lost
//! ```

use std::process::ExitCode;
use std::time::{Duration, Instant};
use wavekit::dist::nccl::{Launch, NcclTransport, Vendor};
use wavekit::dist::{Comm, Mode};
use wavekit::{Backend, ReduceOp, WavekitError};

fn main() -> wavekit::Result<ExitCode> {
    let a: Vec<String> = std::env::args().collect();
    let secs = a
        .iter()
        .position(|x| x == "--timeout-s")
        .and_then(|i| a.get(i + 1))
        .map_or(5, |v| v.parse().expect("--timeout-s N"));
    let timeout = Duration::from_secs(secs);
    let launch = Launch::from_env()?;
    let backend = wavekit::cuda::open(launch.local_rank)?;
    let t = NcclTransport::from_launch(Vendor::Nccl, backend, &launch, Duration::from_secs(60))?;
    let comm = Comm::new(t.with_timeout(timeout));
    if comm.rank() + 1 == comm.world() {
        println!("rank {}: leaving without calling", comm.rank());
        // Gone without a word, as a crashed rank would be.
        std::process::exit(0);
    }
    let shard = comm.backend().upload(&vec![1.0f32; 1 << 20])?;
    let start = Instant::now();
    let got = comm.all_reduce_value(&shard, ReduceOp::Sum, Mode::Reproducible);
    let waited = start.elapsed();
    match got {
        Err(WavekitError::RankLost { reason, .. }) if waited < timeout * 3 => {
            println!(
                "rank {}: RankLost after {:.1} s as expected: {reason}",
                comm.rank(),
                waited.as_secs_f64()
            );
            Ok(ExitCode::SUCCESS)
        }
        other => {
            eprintln!(
                "rank {}: expected RankLost within {secs} s, got {other:?} after {:.1} s",
                comm.rank(),
                waited.as_secs_f64()
            );
            Ok(ExitCode::FAILURE)
        }
    }
}
