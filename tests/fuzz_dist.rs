//! Fuzz of wavekit-dist over the thread transport (issue 28): worlds of 1 to 9 ranks, random
//! shard splits (tile-aligned or not, empty shards included), one to three collectives in a
//! row (reduce to every rank or to a root, scan, elementwise allreduce, reduce-scatter,
//! allgather, count_if, compaction, histogram, sort; f32, bf16 or integers; reproducible or
//! fast), one
//! rank's arguments sometimes wrong in one call (its own check fails, or it disagrees with the
//! others on the collective, element type, op, mode, scan kind, sort order, predicate, bins,
//! root or length), and sometimes one rank stalling past the timeout before a call.
//!
//! The property: with no fault, every rank gets the single-device reference of the whole array
//! (`wavekit_conformance::reference`; the fast mode's own order for floats); a wrong argument
//! fails that call on every rank, the faulty rank with its own typed error and the others with
//! `RankMismatch` naming it (or, where the ranks disagree, every rank with `RankMismatch` naming
//! what differs), the outputs untouched, and the calls after it run normally; a stall fails that
//! call and every later one on every rank with `RankLost` (the calls before it: their result,
//! or `RankLost` if the machine was too slow for the short timeout). Never a panic, an abort, a
//! hang or a wrong result (tests/support/fuzz). Reduce to every rank, count_if and histogram
//! go half the time through a plan, whose `_into` form must give the same result twice and
//! refuse a shard of another length than planned on every rank.

use proptest::prelude::*;
use std::time::Duration;
use wavekit::dist::{Comm, Layout, ThreadWorld};
use wavekit::{Predicate, ReduceOp, WarpWidth, WavekitError};
use wavekit_tests::fuzz::*;

#[path = "fuzz_dist/calls.rs"]
mod calls;
#[path = "fuzz_dist/model.rs"]
mod model;

use calls::Value;

/// The collectives of `Comm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Coll {
    AllReduceValue,
    ReduceValue,
    Scan,
    AllReduce,
    ReduceScatter,
    AllGather,
    CountIf,
    Compact,
    Histogram,
    Sort,
}

const COLLS: [Coll; 10] = [
    Coll::AllReduceValue,
    Coll::ReduceValue,
    Coll::Scan,
    Coll::AllReduce,
    Coll::ReduceScatter,
    Coll::AllGather,
    Coll::CountIf,
    Coll::Compact,
    Coll::Histogram,
    Coll::Sort,
];

/// One collective call and its arguments (the ones it takes).
#[derive(Clone, Debug)]
struct Call {
    coll: Coll,
    /// Integers (`i32`) instead of floats (`f32`).
    int: bool,
    /// Floats in 16 bits (`bf16`) instead of `f32`.
    half: bool,
    op: ReduceOp,
    fast: bool,
    /// A scan's kind (exclusive), a sort's direction (descending).
    exclusive: bool,
    pred: Predicate<f32>,
    bins: u32,
    root: usize,
    /// Reduce to every rank, count_if and histogram through a plan (`Comm::plan_*`, then the
    /// `_into` form run twice, checked equal) instead of the one-call form.
    planned: bool,
}

/// How one rank's arguments are wrong in one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    Op,
    Mode,
    ScanKind,
    Collective,
    Type,
    Length,
    Predicate,
    Bins,
    Root,
    Local,
}

const FAULTS: [Fault; 10] = [
    Fault::Op,
    Fault::Mode,
    Fault::ScanKind,
    Fault::Collective,
    Fault::Type,
    Fault::Length,
    Fault::Predicate,
    Fault::Bins,
    Fault::Root,
    Fault::Local,
];

#[derive(Clone, Debug)]
struct Case {
    world: usize,
    n: usize,
    /// Shard boundaries on multiples of a device tile (4096) rather than anywhere.
    aligned: bool,
    calls: Vec<Call>,
    /// (call, rank, how) of the one wrong argument, if any.
    fault: Option<(usize, usize, Fault)>,
    /// (call, rank) that stalls past the timeout before that call, if any.
    stall: Option<(usize, usize)>,
    seed: u64,
}

fn call() -> impl Strategy<Value = Call> {
    let ops = proptest::sample::select(vec![
        ReduceOp::Sum,
        ReduceOp::Product,
        ReduceOp::Min,
        ReduceOp::Max,
    ]);
    let bins = prop_oneof![4 => 1u32..300, 1 => 300u32..5000];
    (
        proptest::sample::select(COLLS.to_vec()),
        any::<bool>(),
        ops,
        prop_oneof![3 => Just(false), 1 => Just(true)],
        any::<bool>(),
        predicate(),
        bins,
        0usize..9,
        any::<bool>(),
        prop_oneof![2 => Just(false), 1 => Just(true)],
    )
        .prop_map(
            |(coll, int, op, fast, exclusive, pred, bins, root, planned, half)| Call {
                coll,
                int,
                half: half && !int,
                op,
                fast,
                exclusive,
                pred,
                bins,
                root,
                planned,
            },
        )
}

fn case() -> impl Strategy<Value = Case> {
    let fault = prop_oneof![
        2 => Just(None),
        1 => (0usize..3, 0usize..9, proptest::sample::select(FAULTS.to_vec())).prop_map(Some),
    ];
    let stall = prop_oneof![24 => Just(None), 1 => (0usize..3, 0usize..9).prop_map(Some)];
    let n = prop_oneof![4 => len(), 1 => 9000usize..20_000];
    (
        1usize..=9,
        n,
        any::<bool>(),
        proptest::collection::vec(call(), 1..=3),
        fault,
        stall,
        any::<u64>(),
    )
        .prop_map(|(world, n, aligned, mut calls, fault, stall, seed)| {
            for c in &mut calls {
                c.root %= world;
            }
            let k = calls.len();
            // One trouble a case: a stall, or a fault, or neither.
            // (Alone, a rank waits for nobody: a stall is only slow.)
            let (fault, stall) = match stall.filter(|_| world > 1) {
                Some((c, r)) => (None, Some((c % k, r % world))),
                None => (fault.map(|(c, r, f)| (c % k, r % world, f)), None),
            };
            Case {
                world,
                n,
                aligned,
                calls,
                fault,
                stall,
                seed,
            }
        })
}

/// The shards of `n` elements over `world` ranks: random cuts, or cuts on tile multiples.
fn layout(c: &Case) -> Layout {
    let tile = wavekit::canonical::REDUCE_TILE;
    let cut = |i: u64| {
        let r = wavekit::element::splitmix(c.seed ^ (i << 32));
        match c.aligned {
            true => ((r % (c.n / tile + 1) as u64) as usize * tile).min(c.n),
            false => (r % (c.n as u64 + 1)) as usize,
        }
    };
    let mut cuts: Vec<usize> = (1..c.world as u64).map(cut).collect();
    cuts.sort_unstable();
    let lens: Vec<usize> = cuts
        .iter()
        .chain([c.n].iter())
        .scan(0, |prev, &x| {
            let l = x - *prev;
            *prev = x;
            Some(l)
        })
        .collect();
    Layout::from_lens(&lens)
}

/// How long a rank waits for a peer: long unless the case stalls a rank on purpose.
fn timeout(c: &Case) -> Duration {
    match c.stall {
        Some(_) => Duration::from_millis(150),
        None => Duration::from_secs(60),
    }
}

/// Runs the case on a thread world; each rank's result of each call.
fn run(c: &Case) -> Vec<Vec<Result<Value, (WavekitError, bool)>>> {
    let layout = layout(c);
    let ranks = ThreadWorld::endpoints(c.world, WarpWidth::W32, timeout(c));
    std::thread::scope(|s| {
        let hs: Vec<_> = ranks
            .into_iter()
            .map(|r| {
                let layout = &layout;
                s.spawn(move || {
                    let comm = Comm::new(r);
                    (0..c.calls.len())
                        .map(|k| {
                            if c.stall == Some((k, comm.rank())) {
                                std::thread::sleep(timeout(c) * 5 / 2);
                            }
                            calls::exec(&comm, c, k, layout)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("no rank panics"))
            .collect()
    })
}

#[test]
fn fuzz_dist() {
    run_family("dist", "threads, 1..9 ranks", 128, case(), |c| {
        let got = run(&c);
        model::check(&c, &layout(&c), &got)
    });
}

/// The thread transport over another backend than the CPU's: three ranks on the SIMT executor
/// (32 and 64 lanes mixed), whose device steps are the GPU backend's kernels, give the CPU
/// oracle's bits for the reproducible reduce, the scan and the sort (`ThreadWorld::run_on`).
#[cfg(feature = "simt")]
#[test]
fn thread_world_over_the_executor_matches_the_oracle() {
    use wavekit::dist::{Mode, Transport};
    use wavekit::{Backend, Collectives, DeviceBuffer, ScanKind, SortOrder};
    let data: Vec<f32> = (0..20_000).map(|i| ((i * 37 % 101) as f32).sin()).collect();
    let layout = Layout::from_lens(&[4096, 9000, 6904]);
    type Got = (u32, Vec<f32>, Vec<f32>);
    fn one<X: Transport>(comm: &Comm<X>, data: &[f32], layout: &Layout) -> wavekit::Result<Got> {
        let b = comm.backend();
        let shard = b.upload(&data[layout.range(comm.rank())])?;
        let sum = comm.all_reduce_value(&shard, ReduceOp::Sum, Mode::Reproducible)?;
        let mut scanned = b.alloc::<f32>(shard.len())?;
        comm.scan(&shard, &mut scanned, ReduceOp::Sum, ScanKind::Inclusive)?;
        let sorted = comm.sort_keys(&shard, SortOrder::ASCENDING)?;
        Ok((
            sum.to_bits(),
            b.download(&scanned)?,
            b.download(&sorted.keys)?,
        ))
    }
    let want: Vec<Got> = ThreadWorld::run(3, |r| one(&Comm::new(r), &data, &layout))
        .into_iter()
        .map(|r| r.expect("no rank panics").expect("oracle rank"))
        .collect();
    let widths = [WarpWidth::W32, WarpWidth::W64, WarpWidth::W32];
    let execs = widths.map(|w| wavekit::simt::open(w).expect("the executor"));
    let got =
        wavekit::dist::threads::ThreadWorld::run_on(execs, |r| one(&Comm::new(r), &data, &layout));
    for (rank, (g, w)) in got.into_iter().zip(&want).enumerate() {
        let g = g.expect("no rank panics").expect("executor rank");
        assert_eq!(g.0, w.0, "rank {rank}: the reduce's bits");
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&g.1), bits(&w.1), "rank {rank}: the scan's bits");
        assert_eq!(bits(&g.2), bits(&w.2), "rank {rank}: the sort's bits");
    }
    // The oracle's reduce is the single device's reduce of the whole.
    let cpu = wavekit::cpu::CpuBackend::new(WarpWidth::W32);
    let whole = cpu
        .reduce(&cpu.upload(&data).unwrap(), ReduceOp::Sum)
        .unwrap();
    assert_eq!(want[0].0, whole.to_bits());
}
