//! Helpers of the oracle tests: inputs, random shard splits, ranks as threads.

#![allow(dead_code)]

use wavekit_core::element::splitmix;
use wavekit_core::{Backend, Element, Result};
use wavekit_dist::{Buf, Comm, Layout};

/// The thread transport's oracle: ranks on the CPU backend.
pub type ThreadRank = wavekit_dist::ThreadRank<wavekit_cpu::CpuBackend>;
type ThreadWorld = wavekit_dist::ThreadWorld<wavekit_cpu::CpuBackend>;

/// Rank counts the issue asks for, and the rest up to 8.
pub const WORLDS: [usize; 8] = [1, 2, 3, 4, 5, 6, 7, 8];

pub fn data<T: Element>(n: usize, seed: u64) -> Vec<T> {
    (0..n as u64)
        .map(|i| T::from_seed(splitmix(seed ^ (i << 8))))
        .collect()
}

/// A random split of `n` elements over `world` ranks: empty shards, shards shorter than a
/// tile and shards that straddle several tiles all occur.
pub fn split(n: usize, world: usize, seed: u64) -> Layout {
    let mut cuts: Vec<usize> = (1..world)
        .map(|i| (splitmix(seed.wrapping_mul(31) + i as u64) % (n as u64 + 1)) as usize)
        .collect();
    cuts.sort_unstable();
    let mut lens = Vec::with_capacity(world);
    let mut prev = 0;
    for c in cuts.into_iter().chain([n]) {
        lens.push(c - prev);
        prev = c;
    }
    Layout::from_lens(&lens)
}

/// Runs `body` on every rank of a thread world; panics (failing the test) on any rank's error.
pub fn run<R: Send>(world: usize, body: impl Fn(&Comm<ThreadRank>) -> Result<R> + Sync) -> Vec<R> {
    ThreadWorld::run(world, |r| body(&Comm::new(r)))
        .into_iter()
        .enumerate()
        .map(|(rank, r)| match r {
            Ok(Ok(v)) => v,
            Ok(Err(e)) => panic!("rank {rank}: {e}"),
            Err(_) => panic!("rank {rank} panicked"),
        })
        .collect()
}

/// This rank's shard of `all` under `layout`, on its device.
pub fn shard<T: Element>(
    comm: &Comm<ThreadRank>,
    all: &[T],
    layout: &Layout,
) -> Result<Buf<ThreadRank, T>> {
    comm.backend().upload(&all[layout.range(comm.rank())])
}

pub fn same_bits<T: Element>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(*y))
}

/// The ranks' parts of a sort or compaction (offset, total, elements), checked to tile the
/// whole (offsets and totals), concatenated.
pub fn joined<T: Clone>(parts: Vec<(u64, u64, Vec<T>)>, n: usize) -> Vec<T> {
    let mut all = Vec::new();
    for (offset, total, part) in parts {
        assert_eq!(offset as usize, all.len(), "a rank's offset");
        assert_eq!(total as usize, n, "the total");
        all.extend(part);
    }
    all
}
