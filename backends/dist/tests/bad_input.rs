//! Bad input across ranks: every rank gets a typed error, none hangs.

use std::time::{Duration, Instant};
use wavekit_core::{Backend, DeviceBuffer, ReduceOp, ScanKind, WarpWidth, WavekitError};
use wavekit_dist::{Comm, Mode, ThreadRank, ThreadWorld};

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
