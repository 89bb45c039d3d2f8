//! The measurements of docs/dist.md, in either launch mode:
//! - reproducibility: the reproducible sum of 2^k random f32 (default 2^30) sharded evenly,
//!   `--reps` times: the distinct results, and whether they equal the single-device sum
//!   (computed by rank 0 on its own GPU over the whole array);
//! - bandwidth (`--bw`): NCCL's allreduce against wavekit's reproducible elementwise allreduce,
//!   f32, 1 MiB .. 1 GiB, as bus bandwidth (bytes × 2(R-1)/R per second, nccl-tests' rule);
//! - scaling (`--scale-log2 K`): the reproducible sum of 2^K f32 sharded evenly over the ranks,
//!   `--scale-reps` times (default 10, after 2 warm-ups): the median time and the bits, to set
//!   beside the same command on fewer GPUs; then the same sum planned once (`plan_reduce`) and
//!   run as `reduce_into` plus a wait for the stream, timed the same way; then the inclusive
//!   sum scan and max scan of the same array through one `plan_scan` each (`scan_into` plus a
//!   wait, each call after a barrier, the slowest rank's time), with a hash of the outputs at
//!   fixed positions.
//! - parts (`--parts`): the reproducible allreduce's steps timed alone (examples/nccl_bench/
//!   parts.rs), and with `--sort-log2` the sort's local sort and all-to-all;
//! - sort (`--sort-log2 K`): the distributed stable sort of 2^K random u32 keys, then of 2^K
//!   pairs (u32 keys, their global index as the value), sharded evenly: the median host time of
//!   `--scale-reps` calls (after one warm-up), keys/s, and whether every rank's part equals its
//!   stretch of rank 0's single-device sort of the whole array (a hash of each part).
//!
//! ```sh
//! # one process, all GPUs (or --gpus N):
//! NCCL_NVLS_ENABLE=0 target/release/examples/nccl_bench --log2 30 --reps 100 --bw
//! # one process per GPU:
//! bash scripts/launch-local.sh 2 target/release/examples/nccl_bench --log2 30 --reps 100
//! ```
//! Rank 0 prints `key=value` lines. `NO_MEM_CACHE=1` frees every buffer's memory when it is
//! dropped (`set_memory_cache_limit(0)`), as the backend did before it kept freed memory.

#[path = "nccl_bench/parts.rs"]
mod parts;
#[path = "nccl_bench/sort.rs"]
mod sort;

use std::time::{Duration, Instant};
use wavekit::dist::nccl::{Launch, NcclTransport, Vendor};
use wavekit::dist::{Comm, Layout, Mode, Transport};
use wavekit::element::splitmix;
use wavekit::{Backend, Collectives, DeviceBuffer, ReduceOp};

type Cuda = wavekit::cuda::CudaBackend;
type Rank = Comm<NcclTransport<wavekit::cuda::CudaRuntime>>;
type Buf = wavekit::dist::Buf<NcclTransport<wavekit::cuda::CudaRuntime>, f32>;

struct Args {
    log2: u32,
    reps: usize,
    bw: bool,
    gpus: Option<usize>,
    scale_log2: Option<u32>,
    scale_reps: usize,
    sort_log2: Option<u32>,
    parts: bool,
    /// `--no-peer`: the ranks compose the allreduce from NCCL calls.
    peer: bool,
    /// `--one-shot-max BYTES`: the peer kernel's one-shot limit.
    one_shot_max: Option<usize>,
    /// `--peer-max BYTES`: the largest vector the peer kernel takes.
    peer_max: Option<usize>,
}

fn args() -> Args {
    let a: Vec<String> = std::env::args().collect();
    let val = |k: &str| a.iter().position(|x| x == k).and_then(|i| a.get(i + 1));
    Args {
        log2: val("--log2").map_or(30, |v| v.parse().expect("--log2 K")),
        reps: val("--reps").map_or(100, |v| v.parse().expect("--reps N")),
        bw: a.iter().any(|x| x == "--bw"),
        peer: !a.iter().any(|x| x == "--no-peer"),
        one_shot_max: val("--one-shot-max").map(|v| v.parse().expect("--one-shot-max BYTES")),
        peer_max: val("--peer-max").map(|v| v.parse().expect("--peer-max BYTES")),
        gpus: val("--gpus").map(|v| v.parse().expect("--gpus N")),
        scale_log2: val("--scale-log2").map(|v| v.parse().expect("--scale-log2 K")),
        scale_reps: val("--scale-reps").map_or(10, |v| v.parse().expect("--scale-reps N")),
        sort_log2: val("--sort-log2").map(|v| v.parse().expect("--sort-log2 K")),
        parts: a.iter().any(|x| x == "--parts"),
    }
}

/// Element i of the logical array, the same on every rank and in every mode: uniform in
/// [-1, 1) with a spread of exponents, so that the order of additions shows in the bits.
fn element(i: usize) -> f32 {
    let r = splitmix(i as u64 ^ 0x5eed);
    let unit = (r >> 40) as f32 / (1u64 << 24) as f32;
    (2.0 * unit - 1.0) * ((r & 7) as f32).exp2()
}

fn fill(range: std::ops::Range<usize>) -> Vec<f32> {
    fill_with(range, element)
}

/// `f(i)` for every i of `range`, on all cores (2^30 elements take a while on one).
fn fill_with<T: Copy + Default + Send>(
    range: std::ops::Range<usize>,
    f: impl Fn(usize) -> T + Sync,
) -> Vec<T> {
    let mut v = vec![T::default(); range.len()];
    let threads = std::thread::available_parallelism().map_or(4, |n| n.get());
    let chunk = v.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        for (k, part) in v.chunks_mut(chunk).enumerate() {
            let base = range.start + k * chunk;
            let f = &f;
            s.spawn(move || {
                for (j, x) in part.iter_mut().enumerate() {
                    *x = f(base + j);
                }
            });
        }
    });
    v
}

fn rank_body(comm: Rank, a: &Args) -> wavekit::Result<()> {
    let (rank, world) = (comm.rank(), comm.world());
    let n = 1usize << a.log2;
    let layout = Layout::even(n, world);
    let b = comm.backend();
    if std::env::var_os("NO_MEM_CACHE").is_some() {
        // Every buffer's memory freed when dropped, as before the backend kept it: an A/B.
        b.set_memory_cache_limit(0);
    }
    let shard = b.upload(&fill(layout.range(rank)))?;
    let say = |line: String| {
        if rank == 0 {
            println!("{line}");
        }
    };
    say(format!(
        "world={world} n=2^{} library={}",
        a.log2,
        comm.transport().library()?
    ));
    let fast = comm.all_reduce_value(&shard, ReduceOp::Sum, Mode::Fast)?;
    let (median_s, distinct) = repeated_sums(&comm, &shard, 0, a.reps)?;
    say(format!(
        "repro_sum_bits={:?} distinct={} median_ms={:.3} fast_sum_bits={:#010x}",
        hex(&distinct),
        distinct.len(),
        median_s * 1e3,
        fast.to_bits()
    ));
    drop(shard);
    if rank == 0 {
        // The single-device canonical sum of the whole array, on this rank's GPU.
        let whole = b.upload(&fill(0..n))?;
        let single = b.reduce(&whole, ReduceOp::Sum)?;
        println!(
            "single_sum_bits={:#010x} equal={}",
            single.to_bits(),
            distinct == [single.to_bits()]
        );
    }
    if let Some(k) = a.scale_log2 {
        scaling(&comm, k, a.scale_reps, &say)?;
    }
    if a.bw {
        bandwidth(&comm, world, &say)?;
    }
    let sort_only = std::env::var_os("PARTS_SORT_ONLY").is_some();
    if a.parts && world > 1 && !sort_only {
        parts::allreduce(&comm, &say)?;
    }
    if let Some(k) = a.sort_log2 {
        if a.parts {
            parts::sort(&comm, k, &say)?;
            if sort_only {
                return Ok(());
            }
        }
        sort::run(&comm, k, a.scale_reps, &say)?;
    }
    Ok(())
}

/// The reproducible sum of 2^k f32 sharded evenly: median time over `reps` calls (after two
/// warm-ups), each timed on the host from the call to the value on every rank.
fn scaling(comm: &Rank, k: u32, reps: usize, say: &impl Fn(String)) -> wavekit::Result<()> {
    let n = 1usize << k;
    let layout = Layout::even(n, comm.world());
    let shard = comm.backend().upload(&fill(layout.range(comm.rank())))?;
    let (median_s, distinct) = repeated_sums(comm, &shard, 2, reps)?;
    let ms = median_s * 1e3;
    // The same sum planned once (`plan_reduce`), each call `reduce_into` a device value and a
    // wait for the stream: no handshake, no host round trip inside, no allocation.
    let b = comm.backend();
    let mut plan = comm.plan_reduce::<f32>(shard.len(), ReduceOp::Sum, Mode::Reproducible)?;
    let mut out = b.alloc::<f32>(1)?;
    let mut times = Vec::with_capacity(reps);
    let mut planned_bits: Vec<u32> = Vec::new();
    for i in 0..2 + reps {
        let t = Instant::now();
        comm.reduce_into(&mut plan, &shard, &mut out)?;
        comm.synchronize()?;
        if i >= 2 {
            times.push(t.elapsed());
        }
        let v = b.download(&out)?[0].to_bits();
        if !planned_bits.contains(&v) {
            planned_bits.push(v);
        }
    }
    let planned_ms = median(times) * 1e3;
    drop(out);
    let start = layout.range(comm.rank()).start;
    let (scan_ms, scan_hash) = planned_scan(comm, &shard, start, ReduceOp::Sum, reps)?;
    // Max folds the earlier tiles' aggregates in any order (the whole block), Sum in a chain.
    let (max_ms, max_hash) = planned_scan(comm, &shard, start, ReduceOp::Max, reps)?;
    say(format!(
        "scale_log2={k} world={} median_ms={ms:.3} read_GBs={:.1} bits={:?} planned_ms={planned_ms:.3} planned_bits={:?} scan_ms={scan_ms:.3} scan_hash={scan_hash:#018x} scan_max_ms={max_ms:.3} scan_max_hash={max_hash:#018x}",
        comm.world(),
        (n * 4) as f64 / ms / 1e6,
        hex(&distinct),
        hex(&planned_bits)
    ));
    Ok(())
}

/// The inclusive `op` scan of the sharded array through one `plan_scan` (shards even, on tile
/// multiples: the device path), each call `scan_into` and a wait after a barrier: the slowest
/// rank's median time of `reps` after two warm-ups, and a hash of the outputs at fixed
/// positions (the last 4096 of each quarter of the array), each rank hashing those it holds,
/// xored over the ranks: the same for any GPU count exactly when those outputs are.
fn planned_scan(
    comm: &Rank,
    shard: &Buf,
    start: usize,
    op: ReduceOp,
    reps: usize,
) -> wavekit::Result<(f64, u64)> {
    let b = comm.backend();
    let mut plan = comm.plan_scan::<f32>(shard.len(), op, wavekit::ScanKind::Inclusive)?;
    let mut out = b.alloc::<f32>(shard.len())?;
    let mut times = Vec::with_capacity(reps);
    // The ranks' work differs (the last computes no aggregates, the later ones fold more), so
    // back-to-back calls would overlap one call's fold with the next call's aggregates: each
    // call starts after a barrier, and the time is the slowest rank's.
    let token = b.upload(&[0u32])?;
    for i in 0..2 + reps {
        comm.all_reduce_value(&token, ReduceOp::Max, Mode::Fast)?;
        let t = Instant::now();
        comm.scan_into(&mut plan, shard, &mut out)?;
        comm.synchronize()?;
        if i >= 2 {
            times.push(t.elapsed());
        }
    }
    let mine_ns = (median(times) * 1e9) as u64;
    let slowest_ns = comm.all_reduce_value(&b.upload(&[mine_ns])?, ReduceOp::Max, Mode::Fast)?;
    let total =
        comm.all_reduce_value(&b.upload(&[shard.len() as u64])?, ReduceOp::Sum, Mode::Fast)?
            as usize;
    let mine = start..start + shard.len();
    let mut h = 0u64;
    for q in 1..=4 {
        let end = total * q / 4;
        let (lo, hi) = (end.saturating_sub(4096).max(mine.start), end.min(mine.end));
        if lo < hi {
            let part = b.download(&*b.slice(&out, lo - start..hi - start)?)?;
            for (i, v) in part.iter().enumerate() {
                h ^= splitmix((((lo + i) as u64) << 32) | u64::from(v.to_bits()));
            }
        }
    }
    let all = comm.all_reduce_value(&b.upload(&[h])?, ReduceOp::BitXor, Mode::Reproducible)?;
    Ok((slowest_ns as f64 / 1e6, all))
}

/// `warm + reps` reproducible sums of `shard`: the median host time of the last `reps` (from the
/// call to the value on every rank) and the distinct bit patterns of all of them.
fn repeated_sums(
    comm: &Rank,
    shard: &Buf,
    warm: usize,
    reps: usize,
) -> wavekit::Result<(f64, Vec<u32>)> {
    let mut times = Vec::with_capacity(reps);
    let mut distinct: Vec<u32> = Vec::new();
    for i in 0..warm + reps {
        let t = Instant::now();
        let v = comm.all_reduce_value(shard, ReduceOp::Sum, Mode::Reproducible)?;
        let e = t.elapsed();
        if i >= warm {
            times.push(e);
        }
        if !distinct.contains(&v.to_bits()) {
            distinct.push(v.to_bits());
        }
    }
    Ok((median(times), distinct))
}

fn hex(bits: &[u32]) -> Vec<String> {
    bits.iter().map(|d| format!("{d:#010x}")).collect()
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64()
}

fn bandwidth(comm: &Rank, world: usize, say: &impl Fn(String)) -> wavekit::Result<()> {
    let b = comm.backend();
    let factor = 2.0 * (world as f64 - 1.0) / world as f64;
    say("bytes nccl_busbw_GBs repro_busbw_GBs ratio".into());
    for log in [20u32, 22, 24, 26, 28, 30] {
        let bytes = 1usize << log;
        let n = bytes / 4;
        // Whole numbers below 2^10, different on every rank: every order of the sum is exact,
        // so NCCL's result and ours must agree bit for bit (checked after timing).
        let rank = comm.rank();
        let send = b.upload(&fill_with(0..n, |i| {
            ((i.wrapping_mul(7) + rank * 13) % 1024) as f32
        }))?;
        let mut recv = b.alloc::<f32>(n)?;
        let mut nccl_out = b.alloc::<f32>(n)?;
        let reps = if log >= 28 { 5 } else { 20 };
        let mut nccl = Vec::new();
        let mut ours = Vec::new();
        for i in 0..reps + 2 {
            let t = Instant::now();
            comm.transport()
                .all_reduce_native(&send, &mut nccl_out, ReduceOp::Sum)?;
            let e = t.elapsed();
            if i >= 2 {
                nccl.push(e);
            }
        }
        for i in 0..reps + 2 {
            let t = Instant::now();
            comm.all_reduce(&send, &mut recv, ReduceOp::Sum, Mode::Reproducible)?;
            let e = t.elapsed();
            if i >= 2 {
                ours.push(e);
            }
        }
        let (want, got) = (b.download(&nccl_out)?, b.download(&recv)?);
        if let Some(i) = (0..n).find(|&i| want[i].to_bits() != got[i].to_bits()) {
            return Err(wavekit::WavekitError::RankMismatch {
                what: "allreduce result against NCCL's",
                detail: format!("{bytes} bytes, element {i}: {} vs {}", got[i], want[i]),
            });
        }
        let (tn, to) = (median(nccl), median(ours));
        let bus = |t: f64| bytes as f64 * factor / t / 1e9;
        say(format!(
            "{bytes} {:.1} {:.1} {:.2}",
            bus(tn),
            bus(to),
            tn / to
        ));
    }
    say(format!(
        "peer_kernel_on={}",
        comm.transport().peer_kernels_on()
    ));
    Ok(())
}

/// The peer kernel's settings from the command line.
fn configure(
    t: NcclTransport<wavekit::cuda::CudaRuntime>,
    a: &Args,
) -> NcclTransport<wavekit::cuda::CudaRuntime> {
    let t = t.with_peer_kernels(a.peer);
    let t = match a.one_shot_max {
        Some(b) => t.with_one_shot_max(b),
        None => t,
    };
    match a.peer_max {
        Some(b) => t.with_peer_max(b),
        None => t,
    }
}

fn main() -> wavekit::Result<()> {
    let a = args();
    if std::env::var_os("RANK").is_some() || std::env::var_os("OMPI_COMM_WORLD_RANK").is_some() {
        let launch = Launch::from_env()?;
        let backend: Cuda = wavekit::cuda::open(launch.local_rank)?;
        let t =
            NcclTransport::from_launch(Vendor::Nccl, backend, &launch, Duration::from_secs(120))?;
        println!("mode=per-process rank={}", launch.rank);
        return rank_body(Comm::new(configure(t, &a)), &a);
    }
    let gpus = a.gpus.unwrap_or_else(wavekit::cuda::device_count);
    println!("mode=one-process gpus={gpus}");
    let backends = (0..gpus)
        .map(wavekit::cuda::open)
        .collect::<wavekit::Result<Vec<Cuda>>>()?;
    let ranks = NcclTransport::init_all(Vendor::Nccl, backends)?;
    println!(
        "peer_kernels={} one_shot_max={:?} peer_max={:?}",
        a.peer, a.one_shot_max, a.peer_max
    );
    std::thread::scope(|s| {
        let hs: Vec<_> = ranks
            .into_iter()
            .map(|t| {
                let (t, a) = (configure(t, &a), &a);
                s.spawn(move || rank_body(Comm::new(t), a))
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("rank thread"))
            .collect::<wavekit::Result<Vec<()>>>()
    })?;
    Ok(())
}
