//! nccl_bench's `--parts` rows: where the reproducible allreduce's time goes (the handshake,
//! the all-to-all, the fold, the allgather, each timed alone on the same buffers) beside NCCL's
//! allreduce, and the distributed sort's local sort and all-to-all beside the whole sort.

use super::{Buf, Rank, fill, median};
use std::time::{Duration, Instant};
use wavekit::dist::{Layout, Mode, SliceDevice, Transport};
use wavekit::{Backend, ReduceOp, Sort, SortOrder};

/// Median host time of `reps` calls of `f` after two warm-ups, each to stream completion.
fn timed(reps: usize, mut f: impl FnMut() -> wavekit::Result<()>) -> wavekit::Result<f64> {
    let mut t = Vec::<Duration>::new();
    for i in 0..reps + 2 {
        let s = Instant::now();
        f()?;
        if i >= 2 {
            t.push(s.elapsed());
        }
    }
    Ok(median(t) * 1e6)
}

/// The allreduce's steps alone at 1 MiB .. 256 MiB of f32, in microseconds.
pub fn allreduce(comm: &Rank, say: &impl Fn(String)) -> wavekit::Result<()> {
    let (b, x, world) = (comm.backend(), comm.transport(), comm.world());
    say(
        "parts bytes native_us ours_us handshake_us a2a_us fold_us allgather_us \
         gather_fold_us gather_fold_same"
            .into(),
    );
    for log in [20u32, 22, 24, 26, 28] {
        let n = (1usize << log) / 4;
        let send: Buf = b.upload(&fill(0..n))?;
        let mut recv: Buf = b.alloc(n)?;
        let empty: Buf = b.alloc(0)?;
        let mut none: Buf = b.alloc(0)?;
        let counts = vec![n / world; world];
        let reps = if log >= 26 { 10 } else { 30 };
        let native = timed(reps, || {
            x.all_reduce_native(&send, &mut recv, ReduceOp::Sum)
        })?;
        let ours = timed(reps, || {
            comm.all_reduce(&send, &mut recv, ReduceOp::Sum, Mode::Reproducible)
        })?;
        let hs = timed(reps, || {
            comm.all_reduce(&empty, &mut none, ReduceOp::Sum, Mode::Reproducible)
        })?;
        let a2a = timed(reps, || x.all_to_all_v(&send, &counts, &mut recv, &counts))?;
        let fold = timed(reps, || {
            b.reduce_rows_in_place(&mut recv, world, comm.rank(), ReduceOp::Sum)?;
            b.synchronize()
        })?;
        let ag = timed(reps, || x.all_gather_in_place(&mut recv, n / world))?;
        // The candidate for small messages: every rank's whole buffer gathered, all of it
        // folded (the same butterfly per column), this rank's row copied out.
        let mut rows: Buf = b.alloc(n * world)?;
        let mut alt: Buf = b.alloc(n)?;
        let gf = timed(reps, || {
            x.all_gather(&send, &mut rows)?;
            b.reduce_rows_in_place(&mut rows, world, comm.rank(), ReduceOp::Sum)?;
            b.copy_from(&mut alt, &rows, comm.rank() * n)?;
            b.synchronize()
        })?;
        comm.all_reduce(&send, &mut recv, ReduceOp::Sum, Mode::Reproducible)?;
        let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
        let same = bits(b.download(&recv)?) == bits(b.download(&alt)?);
        say(format!(
            "parts {} {native:.1} {ours:.1} {hs:.1} {a2a:.1} {fold:.1} {ag:.1} {gf:.1} {same}",
            n * 4
        ));
    }
    Ok(())
}

/// The sort of 2^k u32 keys sharded evenly: the whole distributed sort, one local sort of a
/// shard, one even all-to-all of a shard, the merge of as many sorted runs as ranks (at least
/// 4) that the sort ends with, and a fresh shard-sized buffer, in milliseconds.
pub fn sort(comm: &Rank, k: u32, say: &impl Fn(String)) -> wavekit::Result<()> {
    let (b, x, world) = (comm.backend(), comm.transport(), comm.world());
    let n = 1usize << k;
    let range = Layout::even(n, world).range(comm.rank());
    let m = range.len();
    let shard = b.upload(&super::fill_with(range, |i| {
        (wavekit::element::splitmix(i as u64 ^ 0x50a7) >> 32) as u32
    }))?;
    let order = SortOrder::ASCENDING;
    let whole = timed(3, || comm.sort_keys(&shard, order).map(drop))? / 1e3;
    let local = timed(3, || {
        b.sort_keys(&shard, order)?;
        b.synchronize()
    })? / 1e3;
    let mut got = b.alloc::<u32>(m - m % world)?;
    let view = b.slice(&shard, 0..m - m % world)?;
    let counts = vec![m / world; world];
    let a2a = timed(3, || x.all_to_all_v(&view, &counts, &mut got, &counts))? / 1e3;
    // `world` runs (at least 4), each a stretch of the shard sorted on its own.
    let r = world.max(4);
    let runs: Vec<usize> = (0..r).map(|d| Layout::even(m, r).range(d).len()).collect();
    let mut parts = Vec::with_capacity(r);
    for d in 0..r {
        let run = b.slice(&shard, Layout::even(m, r).range(d))?;
        parts.push(b.sort_keys(&run, order)?);
    }
    let runs_buf = b.concat(&parts.iter().collect::<Vec<_>>())?;
    let merge = timed(3, || b.merge_runs_keys(&runs_buf, &runs, order).map(drop))? / 1e3;
    let merged = b.download(&b.merge_runs_keys(&runs_buf, &runs, order)?)?;
    // What a fresh buffer of a shard's size costs (cuMemAlloc, then cuMemFree when dropped).
    let alloc = timed(3, || b.alloc::<u32>(m).map(drop))? / 1e3;
    let sorted = merged.windows(2).all(|w| w[0] <= w[1]);
    say(format!(
        "sort_parts log2={k} world={world} whole_ms={whole:.3} local_sort_ms={local:.3} \
         a2a_ms={a2a:.3} merge_ms={merge:.3} merge_sorted={sorted} alloc_free_ms={alloc:.3}"
    ));
    Ok(())
}
