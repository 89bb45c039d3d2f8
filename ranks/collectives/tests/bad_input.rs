//! Bad input across ranks: every rank gets a typed error, none hangs.

use std::time::{Duration, Instant};
use wavekit_core::{Backend, DeviceBuffer, ReduceOp, ScanKind, WarpWidth, WavekitError};
use wavekit_dist::{Comm, Mode};

/// The thread transport's oracle: ranks on the CPU backend.
type ThreadWorld = wavekit_dist::ThreadWorld<wavekit_cpu::CpuBackend>;
type ThreadRank = wavekit_dist::ThreadRank<wavekit_cpu::CpuBackend>;

/// Runs `body` on every rank and returns each rank's error (panics if a rank succeeded).
fn errors(
    world: usize,
    body: impl Fn(&Comm<ThreadRank>) -> wavekit_dist::Result<()> + Sync,
) -> Vec<WavekitError> {
    ThreadWorld::run(world, |r| body(&Comm::new(r)))
        .into_iter()
        .map(|r| r.expect("no rank panics").expect_err("every rank fails"))
        .collect()
}

#[test]
fn mismatched_element_types_fail_on_every_rank() {
    let errs = errors(3, |c| {
        let b = c.backend();
        if c.rank() == 1 {
            c.all_reduce_value(&b.upload(&[1.0f64; 10])?, ReduceOp::Sum, Mode::Reproducible)?;
        } else {
            c.all_reduce_value(&b.upload(&[1.0f32; 10])?, ReduceOp::Sum, Mode::Reproducible)?;
        }
        Ok(())
    });
    for e in errs {
        assert!(
            matches!(
                e,
                WavekitError::RankMismatch {
                    what: "element type",
                    ..
                }
            ),
            "{e}"
        );
    }
}

#[test]
fn mismatched_lengths_and_ops_fail_on_every_rank() {
    let errs = errors(4, |c| {
        let b = c.backend();
        let n = if c.rank() == 3 { 9 } else { 8 };
        let mut out = b.alloc::<f32>(n)?;
        c.all_reduce(
            &b.upload(&vec![1.0f32; n])?,
            &mut out,
            ReduceOp::Sum,
            Mode::Reproducible,
        )
    });
    for e in errs {
        assert!(
            matches!(
                e,
                WavekitError::RankMismatch {
                    what: "buffer length",
                    ..
                }
            ),
            "{e}"
        );
    }
    let errs = errors(2, |c| {
        let op = if c.rank() == 0 {
            ReduceOp::Sum
        } else {
            ReduceOp::Max
        };
        c.all_reduce_value(&c.backend().upload(&[1u32, 2])?, op, Mode::Reproducible)?;
        Ok(())
    });
    assert!(
        errs.iter()
            .all(|e| matches!(e, WavekitError::RankMismatch { .. }))
    );
}

#[test]
fn one_rank_with_bad_arguments_fails_them_all() {
    let errs = errors(3, |c| {
        let b = c.backend();
        let shard = b.upload(&[1.0f32; 100])?;
        let mut out = b.alloc::<f32>(if c.rank() == 2 { 99 } else { 100 })?;
        c.scan(&shard, &mut out, ReduceOp::Sum, ScanKind::Inclusive)
    });
    assert!(
        matches!(errs[2], WavekitError::LengthMismatch { .. }),
        "{}",
        errs[2]
    );
    for e in &errs[..2] {
        assert!(
            matches!(
                e,
                WavekitError::RankMismatch {
                    what: "arguments",
                    ..
                }
            ),
            "{e}"
        );
    }
}

#[test]
fn empty_arrays_and_bad_ops_are_typed_errors() {
    let errs = errors(3, |c| {
        let empty = c.backend().alloc::<f32>(0)?;
        c.all_reduce_value(&empty, ReduceOp::Sum, Mode::Reproducible)?;
        Ok(())
    });
    assert!(
        errs.iter()
            .all(|e| matches!(e, WavekitError::EmptyInput { .. }))
    );
    let errs = errors(2, |c| {
        let s = c.backend().upload(&[1.0f32])?;
        c.all_reduce_value(&s, ReduceOp::BitAnd, Mode::Reproducible)?;
        Ok(())
    });
    assert!(
        errs.iter()
            .all(|e| matches!(e, WavekitError::UnsupportedOp { .. }))
    );
}

/// The transport's reduce-scatter within one buffer refuses ranges outside the buffer, of
/// the wrong sizes or overlapping, before it sends anything (so no peer is left waiting).
#[test]
fn reduce_scatter_within_one_buffer_checks_its_ranges() {
    use wavekit_dist::Transport;
    let errs = errors(2, |c| {
        let x = c.transport();
        let mut buf = c.backend().upload(&[1.0f32; 12])?;
        let peer = 1 - c.rank();
        let refused = [
            (0..8, 8..13), // past the end
            (0..8, 4..8),  // overlapping
            (0..6, 8..12), // not twice the output
        ]
        .into_iter()
        .map(|(src, dst)| {
            x.pair_reduce_scatter_within(peer, &mut buf, src, dst, ReduceOp::Sum)
                .expect_err("refused")
        })
        .collect::<Vec<_>>();
        assert!(matches!(
            refused[0],
            WavekitError::InvalidRange { end: 13, .. }
        ));
        assert!(matches!(refused[1], WavekitError::IndexOutOfRange { .. }));
        assert!(matches!(refused[2], WavekitError::LengthMismatch { .. }));
        // A good call still works afterwards: nothing was half-sent.
        x.pair_reduce_scatter_within(peer, &mut buf, 0..8, 8..12, ReduceOp::Sum)?;
        assert_eq!(c.backend().download(&buf)?[8..], [2.0; 4]);
        Err(refused.into_iter().next().expect("three"))
    });
    assert_eq!(errs.len(), 2);
}

/// Rank 2 holds its endpoint but never calls: the others give up after the timeout.
#[test]
fn a_rank_that_never_joins_times_out_everywhere() {
    let timeout = Duration::from_millis(300);
    let mut ranks = ThreadWorld::endpoints(4, WarpWidth::W32, timeout);
    let idle = ranks.remove(2);
    let start = Instant::now();
    let errs: Vec<WavekitError> = std::thread::scope(|s| {
        let hs: Vec<_> = ranks
            .into_iter()
            .map(|r| {
                s.spawn(move || {
                    let c = Comm::new(r);
                    let shard = c.backend().upload(&[1.0f32; 64]).unwrap();
                    c.all_reduce_value(&shard, ReduceOp::Sum, Mode::Reproducible)
                        .expect_err("rank 2 never joins")
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(start.elapsed() < Duration::from_secs(10));
    for e in errs {
        assert!(
            matches!(e, WavekitError::RankLost { peer: Some(2), .. }),
            "{e}"
        );
    }
    drop(idle);
}

/// A rank whose endpoint is dropped is reported at once, without waiting for the timeout.
#[test]
fn a_rank_that_leaves_is_reported_at_once() {
    let mut ranks = ThreadWorld::endpoints(2, WarpWidth::W32, Duration::from_secs(600));
    drop(ranks.pop());
    let c = Comm::new(ranks.pop().unwrap());
    let start = Instant::now();
    let shard = c.backend().upload(&[1i32; 5]).unwrap();
    assert_eq!(shard.len(), 5);
    let e = c
        .count_if(&shard, wavekit_core::Predicate::Gt(0))
        .unwrap_err();
    assert!(
        matches!(e, WavekitError::RankLost { peer: Some(1), .. }),
        "{e}"
    );
    assert!(start.elapsed() < Duration::from_secs(60));
}

/// Mismatches name the collective, the op, the mode, the scan kind, the predicate and the bin
/// count by name, not by their codes ("rank 0 has 1, rank 1 has 2" before).
#[test]
fn mismatches_name_what_differs() {
    use wavekit_core::Predicate;
    let detail = |e: &WavekitError, what: &str| match e {
        WavekitError::RankMismatch { what: w, detail } if *w == what => detail.clone(),
        other => panic!("expected a mismatch of {what}, got {other}"),
    };
    let errs = errors(2, |c| {
        let s = c.backend().upload(&[1u32, 2])?;
        let op = [ReduceOp::Sum, ReduceOp::Max][c.rank()];
        c.all_reduce_value(&s, op, Mode::Reproducible).map(drop)
    });
    assert_eq!(detail(&errs[0], "op"), "rank 0 has sum, rank 1 has max");
    assert_eq!(detail(&errs[1], "op"), "rank 1 has max, rank 0 has sum");
    let errs = errors(2, |c| {
        let s = c.backend().upload(&[1u32, 2])?;
        let mode = [Mode::Reproducible, Mode::Fast][c.rank()];
        c.all_reduce_value(&s, ReduceOp::Sum, mode).map(drop)
    });
    assert_eq!(
        detail(&errs[0], "mode"),
        "rank 0 has reproducible, rank 1 has fast"
    );
    let errs = errors(2, |c| {
        let b = c.backend();
        let s = b.upload(&[1.5f32, 2.0])?;
        let mut out = b.alloc::<f32>(2)?;
        match c.rank() {
            0 => c.scan(&s, &mut out, ReduceOp::Sum, ScanKind::Inclusive),
            _ => c.all_reduce(&s, &mut out, ReduceOp::Sum, Mode::Reproducible),
        }
    });
    assert_eq!(
        detail(&errs[0], "collective"),
        "rank 0 has scan, rank 1 has all_reduce"
    );
    let errs = errors(2, |c| {
        let b = c.backend();
        let s = b.upload(&[1.5f32, 2.0])?;
        let mut out = b.alloc::<f32>(2)?;
        let kind = [ScanKind::Inclusive, ScanKind::Exclusive][c.rank()];
        c.scan(&s, &mut out, ReduceOp::Sum, kind)
    });
    assert_eq!(
        detail(&errs[0], "scan kind"),
        "rank 0 has inclusive, rank 1 has exclusive"
    );
    let errs = errors(2, |c| {
        let s = c.backend().upload(&[1.5f32, -2.0])?;
        let pred = [Predicate::Lt(0.5f32), Predicate::InRange(-1.0, 2.5)][c.rank()];
        c.count_if(&s, pred).map(drop)
    });
    assert_eq!(
        detail(&errs[0], "predicate"),
        "rank 0 has Lt(0.5), rank 1 has InRange(-1.0, 2.5)"
    );
    let errs = errors(3, |c| {
        let s = c.backend().upload(&[1u32, 7])?;
        c.histogram(&s, 4 + (c.rank() == 2) as u32).map(drop)
    });
    assert_eq!(detail(&errs[0], "bin count"), "rank 0 has 4, rank 2 has 5");
}

/// `reduce_value`'s root is checked like any argument: one past the world is refused on that
/// rank (the others: `RankMismatch`), and ranks naming different roots all fail (before, the
/// value went to nobody, or to two ranks, without an error).
#[test]
fn reduce_value_checks_its_root() {
    let errs = errors(3, |c| {
        let s = c.backend().upload(&[1i32; 10])?;
        let root = if c.rank() == 1 { 3 } else { 0 };
        c.reduce_value(&s, ReduceOp::Sum, Mode::Reproducible, root)
            .map(drop)
    });
    assert_eq!(
        errs[1],
        WavekitError::IndexOutOfRange {
            what: "root rank",
            value: 3,
            limit: 3
        }
    );
    for e in [&errs[0], &errs[2]] {
        assert!(
            matches!(
                e,
                WavekitError::RankMismatch {
                    what: "arguments",
                    ..
                }
            ),
            "{e}"
        );
    }
    let errs = errors(2, |c| {
        let s = c.backend().upload(&[1i32; 10])?;
        c.reduce_value(&s, ReduceOp::Sum, Mode::Reproducible, c.rank())
            .map(drop)
    });
    assert_eq!(
        errs[0],
        WavekitError::RankMismatch {
            what: "root",
            detail: "rank 0 has rank 0, rank 1 has rank 1".into()
        }
    );
}

/// A rank that stalls past the timeout and then calls, while the others have gone on to
/// their next call: every call on every rank from the lost one on is `RankLost` (the world is
/// aborted, as an NCCL communicator would be). Before, the late rank read the others' next
/// header as its data, and both sides returned Ok with the wrong values.
#[test]
fn a_rank_that_stalls_past_the_timeout_aborts_the_world() {
    let timeout = Duration::from_millis(300);
    let ranks = ThreadWorld::endpoints(2, WarpWidth::W32, timeout);
    let results: Vec<Vec<wavekit_dist::Result<Vec<u64>>>> = std::thread::scope(|s| {
        let hs: Vec<_> = ranks
            .into_iter()
            .map(|r| {
                s.spawn(move || {
                    let c = Comm::new(r);
                    if c.rank() == 1 {
                        // Between one and two timeouts: the others are waiting in their
                        // second call when this rank makes its first.
                        std::thread::sleep(timeout * 3 / 2);
                    }
                    (0..2u64)
                        .map(|call| {
                            let b = c.backend();
                            let mine = vec![100 * call + c.rank() as u64; 8];
                            let mut out = b.alloc::<u64>(16)?;
                            c.all_gather(&b.upload(&mine)?, &mut out)?;
                            b.download(&out)
                        })
                        .collect()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (rank, calls) in results.iter().enumerate() {
        for (call, r) in calls.iter().enumerate() {
            assert!(
                matches!(r, Err(WavekitError::RankLost { .. })),
                "rank {rank} call {call}: {r:?}"
            );
        }
    }
}

/// A planned run checks its buffers before it enqueues anything: a shard of another length
/// than planned or an output of the wrong length is refused on the rank that passes it, and
/// the plan still runs afterwards.
#[test]
fn planned_runs_refuse_other_lengths_before_any_work() {
    use wavekit_core::{Backend, DeviceBuffer, Predicate, ReduceOp, WavekitError};
    use wavekit_dist::{Comm, Mode};
    let got = ThreadWorld::run(2, |r| {
        let comm = Comm::new(r);
        let b = comm.backend();
        let shard = b.upload(&[1.0f32, 2.0, 3.0]).unwrap();
        let longer = b.upload(&[1.0f32, 2.0, 3.0, 4.0]).unwrap();
        let mut plan = comm
            .plan_reduce::<f32>(3, ReduceOp::Sum, Mode::Reproducible)
            .unwrap();
        let mut out = b.upload(&[7.0f32]).unwrap();
        let mut two = b.alloc::<f32>(2).unwrap();
        let e1 = comm.reduce_into(&mut plan, &longer, &mut out).unwrap_err();
        let e2 = comm.reduce_into(&mut plan, &shard, &mut two).unwrap_err();
        let untouched = b.download(&out).unwrap();
        comm.reduce_into(&mut plan, &shard, &mut out).unwrap();
        comm.synchronize().unwrap();
        let mut count = comm.plan_count_if::<f32>(3, Predicate::Gt(1.5)).unwrap();
        let mut n = b.alloc::<u64>(1).unwrap();
        let e3 = comm.count_if_into(&mut count, &longer, &mut n).unwrap_err();
        let mut hist = comm.plan_histogram(2, 4).unwrap();
        let keys = b.upload(&[0u32, 9]).unwrap();
        let mut counts = b.alloc::<u64>(4).unwrap();
        let e4 = comm
            .histogram_into(&mut hist, &keys, &mut counts)
            .unwrap_err();
        let e5 = comm.plan_histogram(2, 0).unwrap_err();
        (
            [e1, e2, e3, e4, e5],
            untouched,
            b.download(&out).unwrap()[0],
            shard.len(),
        )
    });
    for g in got {
        let (errs, untouched, sum, _) = g.unwrap();
        for e in &errs[..4] {
            assert!(matches!(e, WavekitError::LengthMismatch { .. }), "{e:?}");
        }
        assert!(matches!(errs[4], WavekitError::ZeroBins), "{:?}", errs[4]);
        assert_eq!(untouched, [7.0]);
        assert_eq!(sum, 12.0);
    }
}
