//! wavekit-dist over NCCL (CUDA) and RCCL (HIP), launch mode "one process" over every GPU of
//! the machine: the reproducible sum of a sharded array equals the single-device sum, and every
//! distributed collective gives the thread oracle's bits (ranks as threads over the CPU
//! backend, the same rank count and shard split). Device tests; building them is what CI
//! checks (RCCL has no AMD GPU to run on).

#![cfg(any(feature = "nccl", feature = "rccl"))]

use wavekit::dist::nccl::{NcclTransport, Vendor};
use wavekit::dist::{Comm, Layout, Mode, ThreadWorld, Transport};
use wavekit::element::splitmix;
use wavekit::gpu::{GpuBackend, GpuRuntime};
use wavekit::{Backend, Collectives, DeviceBuffer, Predicate, ReduceOp, ScanKind, SortOrder, bf16};

fn sum_is_single_device<R: GpuRuntime>(
    vendor: Vendor,
    open: impl Fn(usize) -> GpuBackend<R>,
    gpus: usize,
) {
    assert!(gpus >= 2, "needs at least two GPUs, found {gpus}");
    let n = (1 << 22) + 12_345;
    let data: Vec<f32> = (0..n).map(|i| ((i % 977) as f32).sqrt() - 15.0).collect();
    let single = {
        let b = open(0);
        b.reduce(&b.upload(&data).unwrap(), ReduceOp::Sum).unwrap()
    };
    let ranks = NcclTransport::init_all(vendor, (0..gpus).map(&open).collect()).unwrap();
    // Uneven shards whose boundaries cut tiles: rank 0 a third plus a little, the rest even.
    let first = n / 3 + 5;
    let rest = Layout::even(n - first, gpus - 1);
    let lens: Vec<usize> = std::iter::once(first)
        .chain((0..gpus - 1).map(|r| rest.range(r).len()))
        .collect();
    let layout = Layout::from_lens(&lens);
    let got: Vec<f32> = std::thread::scope(|s| {
        let hs: Vec<_> = ranks
            .into_iter()
            .map(|t| {
                let (data, layout) = (&data, &layout);
                s.spawn(move || {
                    let c = Comm::new(t);
                    let shard = c.backend().upload(&data[layout.range(c.rank())]).unwrap();
                    c.all_reduce_value(&shard, ReduceOp::Sum, Mode::Reproducible)
                        .unwrap()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(
        got.iter().all(|g| g.to_bits() == single.to_bits()),
        "{got:?} vs {single}"
    );
}

/// Every distributed collective on one rank, its results as bits (name, values), in call order.
/// Lengths: `n` splits evenly over 2, 4 and 8 ranks (the in-place halving), `n + 3` does not.
fn every_collective<X: Transport>(
    c: &Comm<X>,
    data: &[f32],
    layout: &Layout,
) -> wavekit::Result<Vec<(&'static str, Vec<u64>)>> {
    let b = c.backend();
    let f = |v: Vec<f32>| v.into_iter().map(|x| u64::from(x.to_bits())).collect();
    let shard = b.upload(&data[layout.range(c.rank())])?;
    let mut out = Vec::new();
    out.push((
        "reduce_value",
        f(vec![c.all_reduce_value(
            &shard,
            ReduceOp::Sum,
            Mode::Reproducible,
        )?]),
    ));
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        let mut scanned = b.alloc::<f32>(shard.len())?;
        c.scan(&shard, &mut scanned, ReduceOp::Sum, kind)?;
        out.push(("scan", f(b.download(&scanned)?)));
    }
    let pred = Predicate::Lt(0.0f32);
    out.push(("count_if", vec![c.count_if(&shard, pred)?]));
    let kept = c.compact(&shard, pred)?;
    let mut got = f(b.download(&kept.data)?);
    got.truncate(kept.len);
    got.extend([kept.offset, kept.total]);
    out.push(("compact", got));
    let keys: Vec<u32> = data[layout.range(c.rank())]
        .iter()
        .map(|x| x.to_bits() % 300)
        .collect();
    let h = c.histogram(&b.upload(&keys)?, 256)?;
    out.push(("histogram", [h.counts, vec![h.outside]].concat()));
    // The sample sort: each rank's part (its length set by the splitters) and its place.
    let sorted = c.sort_keys(&shard, SortOrder::DESCENDING)?;
    let mut got = f(b.download(&sorted.keys)?);
    got.extend([sorted.offset, sorted.total]);
    out.push(("sort_keys", got));
    let index: Vec<u32> = layout.range(c.rank()).map(|i| i as u32).collect();
    let (sorted, values) = c.sort_pairs(&shard, &b.upload(&index)?, SortOrder::ASCENDING)?;
    let mut got = f(b.download(&sorted.keys)?);
    got.extend(b.download(&values)?.into_iter().map(u64::from));
    got.extend([sorted.offset, sorted.total]);
    out.push(("sort_pairs", got));
    let per_rank = 1 << 10;
    for n in [per_rank * 8, per_rank * 8 + 3] {
        let mine: Vec<f32> = data[c.rank() * n..(c.rank() + 1) * n].to_vec();
        let send = b.upload(&mine)?;
        let mut all = b.alloc::<f32>(n)?;
        c.all_reduce(&send, &mut all, ReduceOp::Sum, Mode::Reproducible)?;
        out.push(("all_reduce", f(b.download(&all)?)));
    }
    let send = b.upload(&data[..per_rank * c.world()])?;
    let mut part = b.alloc::<f32>(per_rank)?;
    c.reduce_scatter(&send, &mut part, ReduceOp::Sum, Mode::Reproducible)?;
    out.push(("reduce_scatter", f(b.download(&part)?)));
    let mut gathered = b.alloc::<f32>(per_rank * c.world())?;
    let first = b.slice(&send, 0..per_rank)?;
    c.all_gather(&first, &mut gathered)?;
    out.push(("all_gather", f(b.download(&gathered)?)));
    every_16_bit_collective(c, data, layout, &mut out)?;
    Ok(out)
}

/// The collectives with the 16-bit floats (bf16 here): the reproducible reduce, scan and
/// elementwise reduce, compaction, the pairs sort and the allgather, and Mode::Fast's sums, of
/// small integers so that every order of adds gives the same.
fn every_16_bit_collective<X: Transport>(
    c: &Comm<X>,
    data: &[f32],
    layout: &Layout,
    out: &mut Vec<(&'static str, Vec<u64>)>,
) -> wavekit::Result<()> {
    let b = c.backend();
    let f = |v: Vec<bf16>| {
        v.into_iter()
            .map(|x| u64::from(x.to_bits()))
            .collect::<Vec<_>>()
    };
    let bf16s = |v: &[f32]| v.iter().map(|&x| bf16::from_f32(x)).collect::<Vec<_>>();
    let shard = b.upload(&bf16s(&data[layout.range(c.rank())]))?;
    // The reproducible reduce: f32 partials across ranks, rounded once.
    let sum = c.all_reduce_value(&shard, ReduceOp::Sum, Mode::Reproducible)?;
    out.push(("reduce_value bf16", vec![u64::from(sum.to_bits())]));
    let mut scanned = b.alloc::<bf16>(shard.len())?;
    c.scan(&shard, &mut scanned, ReduceOp::Sum, ScanKind::Exclusive)?;
    out.push(("scan bf16", f(b.download(&scanned)?)));
    let kept = c.compact(&shard, Predicate::Lt(bf16::ZERO))?;
    let mut got = f(b.download(&kept.data)?);
    got.truncate(kept.len);
    got.extend([kept.offset, kept.total]);
    out.push(("compact bf16", got));
    let (sorted, values) = c.sort_pairs(&shard, &shard, SortOrder::DESCENDING)?;
    let mut got = f(b.download(&sorted.keys)?);
    got.extend(f(b.download(&values)?));
    got.extend([sorted.offset, sorted.total]);
    out.push(("sort_pairs bf16", got));
    let ints: Vec<bf16> = (0..1000)
        .map(|i| bf16::from_f32(((i + c.rank()) % 8) as f32 - 3.0))
        .collect();
    let small = b.upload(&ints)?;
    let mut sum = b.alloc::<bf16>(ints.len())?;
    c.all_reduce(&small, &mut sum, ReduceOp::Sum, Mode::Fast)?;
    out.push(("all_reduce fast bf16", f(b.download(&sum)?)));
    // The reproducible elementwise reduce: the butterfly over ranks in f32, rounded once, on
    // values whose sums round (1000 elements of `data`, each rank its own stretch).
    let r = c.rank();
    let send = b.upload(&bf16s(&data[r * 1000..(r + 1) * 1000]))?;
    let mut all = b.alloc::<bf16>(send.len())?;
    c.all_reduce(&send, &mut all, ReduceOp::Sum, Mode::Reproducible)?;
    out.push(("all_reduce bf16", f(b.download(&all)?)));
    let mut part = b.alloc::<bf16>(send.len() / c.world())?;
    let even = b.slice(&send, 0..part.len() * c.world())?;
    c.reduce_scatter(&even, &mut part, ReduceOp::Sum, Mode::Reproducible)?;
    out.push(("reduce_scatter bf16", f(b.download(&part)?)));
    let mut gathered = b.alloc::<bf16>(ints.len() * c.world())?;
    c.all_gather(&small, &mut gathered)?;
    out.push(("all_gather bf16", f(b.download(&gathered)?)));
    Ok(())
}

fn every_collective_is_the_oracles<R: GpuRuntime>(
    vendor: Vendor,
    open: impl Fn(usize) -> GpuBackend<R>,
    gpus: usize,
) {
    assert!(gpus >= 2, "needs at least two GPUs, found {gpus}");
    // Enough for the elementwise calls of 8 ranks (8 × 8195 elements).
    let n = 16 * 4096 + 777;
    let data: Vec<f32> = (0..n as u64)
        .map(|i| {
            let r = splitmix(i ^ 0xd157);
            ((r >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * ((r & 7) as f32).exp2()
        })
        .collect();
    // Uneven shards, one boundary inside a tile, one rank's shard empty when there are 3+.
    let mut lens: Vec<usize> = vec![n / gpus; gpus];
    lens[0] += n % gpus + 1000;
    lens[gpus - 1] -= 1000;
    if gpus >= 3 {
        lens[0] += lens[1];
        lens[1] = 0;
    }
    let layout = Layout::from_lens(&lens);
    let want: Vec<_> = ThreadWorld::run(gpus, |r| {
        every_collective(&Comm::new(r), &data, &layout).expect("thread oracle")
    })
    .into_iter()
    .map(|r| r.expect("oracle rank"))
    .collect();
    let ranks = NcclTransport::init_all(vendor, (0..gpus).map(&open).collect()).unwrap();
    let got: Vec<_> = std::thread::scope(|s| {
        let hs: Vec<_> = ranks
            .into_iter()
            .map(|t| {
                let (data, layout) = (&data, &layout);
                s.spawn(move || every_collective(&Comm::new(t), data, layout).unwrap())
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (rank, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.len(), w.len());
        for ((name, gv), (_, wv)) in g.iter().zip(w) {
            assert!(
                gv == wv,
                "rank {rank} of {gpus}: {name} differs from the thread oracle"
            );
        }
    }
}

/// Each check as a test per vendor: NCCL on CUDA GPUs, RCCL on AMD ones (built in CI, never
/// run: no AMD GPU is lent).
macro_rules! on_both_vendors {
    ($($check:ident => $nccl:ident, $rccl:ident;)*) => {$(
        #[cfg(feature = "nccl")]
        #[test]
        #[ignore = "needs two or more CUDA GPUs and the NCCL wheel"]
        fn $nccl() {
            $check(
                Vendor::Nccl,
                |i| wavekit::cuda::open(i).unwrap(),
                wavekit::cuda::device_count(),
            );
        }

        #[cfg(feature = "rccl")]
        #[test]
        #[ignore = "needs two or more AMD GPUs and RCCL"]
        fn $rccl() {
            $check(
                Vendor::Rccl,
                |i| wavekit::hip::open(i).unwrap(),
                wavekit::hip::device_count(),
            );
        }
    )*};
}

on_both_vendors! {
    every_collective_is_the_oracles =>
        nccl_every_collective_is_the_thread_oracles, rccl_every_collective_is_the_thread_oracles;
    sum_is_single_device => nccl_sum_is_single_device, rccl_sum_is_single_device;
}

/// A rank that never calls: every other rank gets `RankLost` once the timeout has passed (the
/// watchdog aborts the communicator NCCL's kernels spin on), later calls fail at once, and
/// nothing hangs.
#[cfg(feature = "nccl")]
#[test]
#[ignore = "needs two or more CUDA GPUs and the NCCL wheel"]
fn nccl_a_rank_that_never_calls_is_rank_lost_everywhere() {
    use std::time::{Duration, Instant};
    use wavekit::WavekitError;
    let gpus = wavekit::cuda::device_count();
    assert!(gpus >= 2, "needs at least two GPUs, found {gpus}");
    let timeout = Duration::from_secs(3);
    let backends = (0..gpus).map(|i| wavekit::cuda::open(i).unwrap()).collect();
    let mut ranks: Vec<_> = NcclTransport::init_all(Vendor::Nccl, backends)
        .unwrap()
        .into_iter()
        .map(|t| t.with_timeout(timeout))
        .collect();
    let idle = ranks.pop().expect("two or more ranks");
    let start = Instant::now();
    let comms: Vec<_> = std::thread::scope(|s| {
        let hs: Vec<_> = ranks
            .into_iter()
            .map(|t| {
                s.spawn(move || {
                    let c = Comm::new(t);
                    let shard = c.backend().upload(&[1.0f32; 4096]).unwrap();
                    let e = c
                        .all_reduce_value(&shard, ReduceOp::Sum, Mode::Reproducible)
                        .expect_err("a rank is missing");
                    assert!(matches!(e, WavekitError::RankLost { .. }), "{e}");
                    (c, shard)
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let waited = start.elapsed();
    eprintln!("the waiting ranks returned after {waited:?}");
    assert!(
        waited >= timeout && waited < timeout * 4,
        "waited {waited:?} for a timeout of {timeout:?}"
    );
    for (c, shard) in &comms {
        let again = Instant::now();
        let e = c
            .all_reduce_value(shard, ReduceOp::Sum, Mode::Reproducible)
            .expect_err("the communicator is aborted");
        assert!(matches!(e, WavekitError::RankLost { .. }), "{e}");
        assert!(again.elapsed() < timeout, "a later call waited again");
    }
    eprintln!("later calls refused; dropping the aborted ranks");
    drop(comms);
    eprintln!("dropping the idle rank");
    drop(idle);
    eprintln!("done after {:?}", start.elapsed());
}

/// The planned reduce, count_if, histogram and scan (`Comm::plan_*`, then the `_into` forms)
/// enqueue only device work: every rank captures its four calls into a CUDA graph on its backend's
/// stream (a host wait or an allocation inside would end the capture with an error), launches
/// the graph, and gets the single-device results; new data written into the same shard buffers
/// and the graph launched again gives the new array's results. Uneven shards with boundaries
/// inside reduce tiles, so the edge exchange is in the graph too; the scan's shards on tile
/// multiples (its device path). Runs on one GPU or more.
#[cfg(feature = "nccl")]
#[test]
#[ignore = "needs a CUDA GPU and the NCCL wheel"]
fn nccl_planned_collectives_run_from_a_cuda_graph() {
    use wavekit::cuda::cudarc::driver::sys;
    let gpus = wavekit::cuda::device_count();
    assert!(gpus >= 1, "needs a GPU");
    let n = (1 << 20) + 4321;
    let arrays: Vec<Vec<f32>> = (0..2u64)
        .map(|a| {
            (0..n as u64)
                .map(|i| ((splitmix(i ^ (a << 40)) >> 40) as f32).sqrt() - 2000.0)
                .collect()
        })
        .collect();
    let keys: Vec<Vec<u32>> = (0..2u64)
        .map(|a| {
            (0..n as u64)
                .map(|i| (splitmix(i + a) % 70) as u32)
                .collect()
        })
        .collect();
    let one = wavekit::cpu::CpuBackend::new(wavekit::WarpWidth::W32);
    let want: Vec<(u32, u64, Vec<u64>)> = (0..2)
        .map(|a| {
            let sum = one.reduce(&one.upload(&arrays[a]).unwrap(), ReduceOp::Sum);
            let count = arrays[a].iter().filter(|&&x| x > 0.0).count() as u64;
            let mut hist = vec![0u64; 65];
            for &k in &keys[a] {
                hist[(k as usize).min(64)] += 1;
            }
            (sum.unwrap().to_bits(), count, hist)
        })
        .collect();
    let mut lens = vec![n / gpus; gpus];
    lens[0] += n % gpus;
    if gpus > 1 {
        lens[0] += 1234;
        lens[1] -= 1234;
    }
    let layout = Layout::from_lens(&lens);
    // The scan's shards: 50 tiles a rank, the last a few elements more.
    let tile = wavekit::canonical::SCAN_TILE;
    let scan_lens: Vec<usize> = (0..gpus)
        .map(|r| 50 * tile + 777 * usize::from(r + 1 == gpus))
        .collect();
    let scan_layout = Layout::from_lens(&scan_lens);
    let scanned: Vec<Vec<u32>> = (0..2)
        .map(|a| {
            let x = &arrays[a][..scan_layout.total()];
            let mut out = one.alloc::<f32>(x.len()).unwrap();
            one.scan(
                &one.upload(x).unwrap(),
                &mut out,
                ReduceOp::Sum,
                ScanKind::Inclusive,
            )
            .unwrap();
            one.download(&out)
                .unwrap()
                .iter()
                .map(|v| v.to_bits())
                .collect()
        })
        .collect();
    let check = |rc: sys::CUresult, what: &str| {
        assert_eq!(rc, sys::CUresult::CUDA_SUCCESS, "{what}");
    };
    let backends = (0..gpus).map(|i| wavekit::cuda::open(i).unwrap()).collect();
    let ranks = NcclTransport::init_all(Vendor::Nccl, backends).unwrap();
    std::thread::scope(|s| {
        let hs: Vec<_> = ranks
            .into_iter()
            .map(|t| {
                let (arrays, keys, layout, want) = (&arrays, &keys, &layout, &want);
                let (scan_layout, scanned) = (&scan_layout, &scanned);
                s.spawn(move || {
                    let c = Comm::new(t);
                    let b = c.backend();
                    let range = layout.range(c.rank());
                    let mut shard = b.upload(&arrays[0][range.clone()]).unwrap();
                    let mut ks = b.upload(&keys[0][range.clone()]).unwrap();
                    let mut reduce = c
                        .plan_reduce::<f32>(shard.len(), ReduceOp::Sum, Mode::Reproducible)
                        .unwrap();
                    let mut count = c
                        .plan_count_if::<f32>(shard.len(), Predicate::Gt(0.0))
                        .unwrap();
                    let mut hist = c.plan_histogram(ks.len(), 64).unwrap();
                    let srange = scan_layout.range(c.rank());
                    let mut sx = b.upload(&arrays[0][srange.clone()]).unwrap();
                    let mut scan = c
                        .plan_scan::<f32>(sx.len(), ReduceOp::Sum, ScanKind::Inclusive)
                        .unwrap();
                    let mut sy = b.alloc::<f32>(sx.len()).unwrap();
                    let mut sum = b.alloc::<f32>(1).unwrap();
                    let mut n_pos = b.alloc::<u64>(1).unwrap();
                    let mut counts = b.alloc::<u64>(65).unwrap();
                    let allocations = b.device_allocations();
                    let stream = b.runtime().stream() as sys::CUstream;
                    b.runtime().make_current().unwrap();
                    let mut graph: sys::CUgraph = std::ptr::null_mut();
                    check(
                        // SAFETY: this thread's stream of the current context; thread-local
                        // capture, so the other ranks' threads capture their own.
                        unsafe {
                            sys::cuStreamBeginCapture_v2(
                                stream,
                                sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
                            )
                        },
                        "begin capture",
                    );
                    c.reduce_into(&mut reduce, &shard, &mut sum).unwrap();
                    c.count_if_into(&mut count, &shard, &mut n_pos).unwrap();
                    c.histogram_into(&mut hist, &ks, &mut counts).unwrap();
                    c.scan_into(&mut scan, &sx, &mut sy).unwrap();
                    check(
                        // SAFETY: ends the capture begun above on the same stream.
                        unsafe { sys::cuStreamEndCapture(stream, &mut graph) },
                        "end capture (a host wait inside would have broken it)",
                    );
                    assert_eq!(
                        b.device_allocations(),
                        allocations,
                        "allocated while captured"
                    );
                    let mut exec: sys::CUgraphExec = std::ptr::null_mut();
                    check(
                        // SAFETY: the graph captured above.
                        unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) },
                        "instantiate",
                    );
                    let mut got = Vec::new();
                    for (a, want_scan) in scanned.iter().enumerate() {
                        if a == 1 {
                            b.write(&mut shard, &arrays[1][range.clone()]).unwrap();
                            b.write(&mut ks, &keys[1][range.clone()]).unwrap();
                            b.write(&mut sx, &arrays[1][srange.clone()]).unwrap();
                        }
                        // SAFETY: the instantiated graph, on the stream it was captured on.
                        check(unsafe { sys::cuGraphLaunch(exec, stream) }, "launch");
                        c.synchronize().unwrap();
                        got.push((
                            b.download(&sum).unwrap()[0].to_bits(),
                            b.download(&n_pos).unwrap()[0],
                            b.download(&counts).unwrap(),
                        ));
                        let ys: Vec<u32> = b
                            .download(&sy)
                            .unwrap()
                            .iter()
                            .map(|v| v.to_bits())
                            .collect();
                        assert!(
                            ys == want_scan[srange.clone()],
                            "rank {} array {a}: the graph's scan",
                            c.rank()
                        );
                    }
                    // SAFETY: created above, launched work is complete.
                    unsafe {
                        check(sys::cuGraphExecDestroy(exec), "destroy exec");
                        check(sys::cuGraphDestroy(graph), "destroy graph");
                    }
                    for (a, (g, w)) in got.iter().zip(want).enumerate() {
                        assert_eq!(g, w, "rank {} array {a}: graph result", c.rank());
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
    });
}

#[test]
#[ignore = "needs a CUDA GPU and the NCCL wheel"]
fn nccl_fast_plan_refuses_a_bitwise_op_when_made() {
    // NCCL's allreduce has no bitwise ops: a Mode::Fast plan (and so the one-call form) refuses
    // them when it is made, on every rank, where it used to be made and fail at its first run.
    // The reproducible plan folds with the device reduce, which has them.
    let gpus = wavekit::cuda::device_count();
    assert!(gpus >= 1, "needs a GPU");
    let n = 100_003usize;
    let data: Vec<u32> = (0..n as u64).map(|i| splitmix(i) as u32).collect();
    let want = data.iter().fold(0u32, |a, &x| a ^ x);
    let layout = Layout::even(n, gpus);
    let backends = (0..gpus).map(|i| wavekit::cuda::open(i).unwrap()).collect();
    let ranks = NcclTransport::init_all(Vendor::Nccl, backends).unwrap();
    std::thread::scope(|s| {
        let hs: Vec<_> = ranks
            .into_iter()
            .map(|t| {
                let (data, layout) = (&data, &layout);
                s.spawn(move || {
                    let c = Comm::new(t);
                    let len = layout.range(c.rank()).len();
                    let fast = c.plan_reduce::<u32>(len, ReduceOp::BitXor, Mode::Fast);
                    assert!(
                        matches!(fast, Err(wavekit::WavekitError::UnsupportedOp { .. })),
                        "{:?}",
                        fast.err()
                    );
                    let shard = c.backend().upload(&data[layout.range(c.rank())]).unwrap();
                    let one_call = c.all_reduce_value(&shard, ReduceOp::BitOr, Mode::Fast);
                    assert!(
                        matches!(one_call, Err(wavekit::WavekitError::UnsupportedOp { .. })),
                        "{one_call:?}"
                    );
                    c.all_reduce_value(&shard, ReduceOp::BitXor, Mode::Reproducible)
                        .unwrap()
                })
            })
            .collect();
        for h in hs {
            assert_eq!(h.join().unwrap(), want);
        }
    });
}
