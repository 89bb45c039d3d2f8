//! wavekit-dist over NCCL with one process per GPU (launch mode 2) on this host: the test
//! starts its own binary once per rank, as `scripts/launch-local.sh` starts a program, and each
//! rank checks its reproducible allreduce against the conformance reference's butterfly over
//! every rank's data, bit for bit, at the sizes of the peer kernel's one-shot and two-shot forms
//! (which ranks in separate processes run through staging buffers mapped over CUDA IPC) and
//! past its size limit (the NCCL composition).

#![cfg(feature = "nccl")]

use std::process::{Child, Command};
use std::time::{Duration, Instant};
use wavekit::dist::nccl::{Launch, NcclTransport, PEER_MAX_BYTES, Vendor};
use wavekit::dist::{Comm, Mode, Transport};
use wavekit::element::splitmix;
use wavekit::prelude::*;
use wavekit_conformance::reference;

/// Set in the ranks' environment: the test body runs as one rank.
const CHILD: &str = "WAVEKIT_TEST_RANK_PROCESS";
const NAME: &str = "nccl_processes_allreduce_is_the_reference_butterfly";

/// Rank k's send for one call: every rank can make every rank's.
fn send<T: Element>(k: usize, n: usize, call: u64) -> Vec<T> {
    (0..n as u64)
        .map(|i| T::from_seed(splitmix((call * 100 + k as u64) ^ (i << 8))))
        .collect()
}

fn check<T: Element, X: Transport>(
    c: &Comm<X>,
    n: usize,
    call: u64,
    op: ReduceOp,
) -> Result<(), String> {
    let all: Vec<Vec<T>> = (0..c.world()).map(|k| send(k, n, call)).collect();
    let b = c.backend();
    let mine = b.upload(&all[c.rank()]).map_err(|e| e.to_string())?;
    let mut out = b.alloc::<T>(n).map_err(|e| e.to_string())?;
    c.all_reduce(&mine, &mut out, op, Mode::Reproducible)
        .map_err(|e| e.to_string())?;
    let got = b.download(&out).map_err(|e| e.to_string())?;
    let what = format!("{} {op:?} n={n} rank {}", T::KIND.name(), c.rank());
    for (i, g) in got.iter().enumerate() {
        let column: Vec<T> = all.iter().map(|s| s[i]).collect();
        let want = reference::bfly_pow2(op, &column);
        if !g.same(want) {
            return Err(format!("{what}: element {i}: got {g:?}, want {want:?}"));
        }
    }
    Ok(())
}

/// One rank: every call runs (a rank that stopped early would leave the others waiting), and
/// the mismatches are reported together.
fn rank() {
    let launch = Launch::from_env().expect("the launch variables");
    let backend = wavekit::cuda::open(launch.local_rank).expect("this rank's GPU");
    let t = NcclTransport::from_launch(Vendor::Nccl, backend, &launch, Duration::from_secs(60))
        .expect("the communicator");
    let c = Comm::new(t);
    let mut errors = Vec::new();
    // One-shot (up to 256 KiB), two-shot with tails and unaligned remainders, then past the
    // staging buffers' size (the NCCL composition).
    let past = PEER_MAX_BYTES / 4 + 1;
    for (i, n) in [1usize, 5, 4099, 20_011, (1 << 20) + 3, past]
        .into_iter()
        .enumerate()
    {
        let call = i as u64;
        errors.extend(check::<f32, _>(&c, n, call, ReduceOp::Sum).err());
        if i == 0 && !c.transport().peer_kernels_on() {
            errors.push(format!("rank {}: the peer kernel is off", c.rank()));
        }
        errors.extend(check::<i64, _>(&c, n, call, ReduceOp::Max).err());
    }
    errors.extend(check::<f64, _>(&c, 777, 9, ReduceOp::Product).err());
    errors.extend(check::<u32, _>(&c, 300, 10, ReduceOp::BitXor).err());
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// `world` processes of this test binary, one a GPU; fails on any rank's failure, and after
/// three minutes instead of hanging.
fn run_world(world: usize) {
    let exe = std::env::current_exe().unwrap();
    let id = std::env::temp_dir().join(format!("wavekit-test-id-{}-{world}", std::process::id()));
    let _ = std::fs::remove_file(&id);
    let mut ranks: Vec<Child> = (0..world)
        .map(|r| {
            Command::new(&exe)
                .args([NAME, "--exact", "--include-ignored", "--nocapture"])
                .env(CHILD, "1")
                .env("RANK", r.to_string())
                .env("LOCAL_RANK", r.to_string())
                .env("WORLD_SIZE", world.to_string())
                .env("WAVEKIT_NCCL_ID_FILE", &id)
                .env("NCCL_NVLS_ENABLE", "0")
                .spawn()
                .expect("a rank process")
        })
        .collect();
    let start = Instant::now();
    let mut failed = Vec::new();
    for (r, child) in ranks.iter_mut().enumerate() {
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                if !status.success() {
                    failed.push(format!("rank {r}: {status}"));
                }
                break;
            }
            if start.elapsed() > Duration::from_secs(180) {
                let _ = child.kill();
                failed.push(format!("rank {r}: still running after three minutes"));
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let _ = std::fs::remove_file(&id);
    assert!(
        failed.is_empty(),
        "{world} processes: {}",
        failed.join("; ")
    );
}

/// 2 processes, and one a GPU up to every GPU (at most 8).
#[test]
#[ignore = "needs several CUDA devices and the NCCL wheel"]
fn nccl_processes_allreduce_is_the_reference_butterfly() {
    if std::env::var_os(CHILD).is_some() {
        rank();
        return;
    }
    let gpus = wavekit::cuda::device_count().min(8);
    assert!(gpus >= 2, "{gpus} CUDA device(s): this test needs several");
    let mut worlds = vec![2, gpus];
    worlds.dedup();
    for world in worlds {
        run_world(world);
    }
}
