//! What fuzz_dist.rs expects: which fault a call really has (a fault that cannot apply to a
//! collective, or to one rank, falls back to a wrong argument of the rank's own), the data each
//! rank holds, the single-device reference of each call, and the check of every rank's result.

use super::calls::{Num, Value, bits, one_bits, pred, sort_order};
use super::{Call, Case, Coll, Fault};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use wavekit::dist::Layout;
use wavekit::{Element, Predicate, ReduceOp, ScanKind, WavekitError};
use wavekit_conformance::{inputs, reference};
use wavekit_tests::fuzz::Tally;

/// A rank's arguments in one call.
pub struct Effective {
    pub call: Call,
    /// Its data in the 64-bit type of its kind (`f64`, `i64`): another element type.
    pub wide: bool,
    /// Elements its equal-length buffer has past the others'.
    pub send_extra: usize,
    /// Elements its output has past what the call needs.
    pub out_extra: usize,
    /// The bin count it passes (its keys are the case's).
    pub bins: u32,
}

fn applies(f: Fault, call: &Call, world: usize) -> bool {
    use Coll::*;
    let c = call.coll;
    if world == 1 {
        // Alone, a rank agrees with itself: only its own check can fail.
        return f == Fault::Local && applies(f, call, 2);
    }
    match f {
        Fault::Op => matches!(
            c,
            AllReduceValue | ReduceValue | Scan | AllReduce | ReduceScatter
        ),
        Fault::Mode => matches!(c, AllReduceValue | ReduceValue | AllReduce | ReduceScatter),
        Fault::ScanKind => matches!(c, Scan | Sort),
        Fault::Collective => true,
        Fault::Type => c != Histogram,
        Fault::Length => matches!(c, AllReduce | ReduceScatter | AllGather),
        Fault::Predicate => matches!(c, CountIf | Compact),
        Fault::Bins => c == Histogram,
        Fault::Root => c == ReduceValue,
        Fault::Local => !matches!(c, CountIf | Compact),
    }
}

/// The faulty rank and its fault in call `k`, if the call has one that can apply.
pub fn fault(c: &Case, k: usize) -> Option<(usize, Fault)> {
    let (at, rank, f) = c.fault.filter(|f| f.0 == k)?;
    let call = &c.calls[at];
    [f, Fault::Local, Fault::Predicate]
        .into_iter()
        .find(|&f| applies(f, call, c.world))
        .map(|f| (rank, f))
}

/// Rank `rank`'s arguments in call `k`.
pub fn effective(c: &Case, k: usize, rank: usize) -> Effective {
    let mut e = Effective {
        call: c.calls[k].clone(),
        wide: false,
        send_extra: 0,
        out_extra: 0,
        bins: c.calls[k].bins,
    };
    let Some((_, f)) = fault(c, k).filter(|&(r, _)| r == rank) else {
        return e;
    };
    let call = &mut e.call;
    match f {
        Fault::Op => {
            let ops: &[ReduceOp] = match call.int {
                true => &ReduceOp::ALL,
                false => &ReduceOp::ALL[..4],
            };
            let at = ops.iter().position(|&o| o == call.op).unwrap_or(0);
            call.op = ops[(at + 1) % ops.len()];
        }
        Fault::Mode => call.fast = !call.fast,
        Fault::ScanKind => call.exclusive = !call.exclusive,
        Fault::Collective => {
            call.coll = match call.coll {
                Coll::CountIf => Coll::Compact,
                _ => Coll::CountIf,
            }
        }
        Fault::Type => e.wide = true,
        Fault::Length => e.send_extra = 1,
        Fault::Predicate => {
            // One that differs from the case's in the call's element type.
            let base = call.pred;
            call.pred = [Predicate::Eq(12345.0), Predicate::Ne(54321.0)]
                .into_iter()
                .find(|&p| pred::<i32>(p) != pred::<i32>(base) && p != base)
                .expect("the two candidates differ in kind")
        }
        Fault::Bins => e.bins += 1,
        Fault::Root => call.root = (call.root + 1) % c.world,
        Fault::Local => match call.coll {
            Coll::AllReduceValue | Coll::ReduceValue if !call.int => call.op = ReduceOp::BitAnd,
            Coll::AllReduceValue | Coll::ReduceValue => {
                call.coll = Coll::ReduceValue;
                call.root = c.world;
            }
            Coll::Histogram => e.bins = 0,
            _ => e.out_extra = 1,
        },
    }
    e
}

/// The length of every rank's buffer in an equal-length collective (plus `extra`).
pub fn equal_len(c: &Case, coll: Coll, extra: usize) -> usize {
    match coll {
        Coll::AllReduce => c.n % 300 + extra,
        Coll::ReduceScatter => c.world * (c.n % 50 + extra),
        _ => c.n % 100 + extra,
    }
}

fn sharded(coll: Coll) -> bool {
    !matches!(
        coll,
        Coll::AllReduce | Coll::ReduceScatter | Coll::AllGather
    )
}

/// Rank `r`'s data for a call of `coll`: its shard of the whole array, or its own buffer.
pub fn data<T: Num>(c: &Case, coll: Coll, r: usize, layout: &Layout, extra: usize) -> Vec<T> {
    match sharded(coll) {
        true => inputs::values_with_specials::<T>(c.n, c.seed)[layout.range(r)].to_vec(),
        false => {
            let seed = wavekit::element::splitmix(c.seed ^ (r as u64 + 1));
            inputs::values_with_specials::<T>(equal_len(c, coll, extra), seed)
        }
    }
}

/// The whole array of keys of a histogram of `bins` bins.
pub fn keys(c: &Case, bins: u32) -> Vec<u32> {
    (0..c.n as u64)
        .map(|i| (wavekit::element::splitmix(c.seed ^ i) % u64::from(bins + 3)) as u32)
        .collect()
}

/// Elementwise over the ranks' buffers: the butterfly (reproducible; in the accumulator type,
/// f32 for bf16, rounded once) or the left fold in rank order (the thread transport's own
/// allreduce, the fast mode).
fn across<T: Element>(parts: &[Vec<T>], op: ReduceOp, fast: bool) -> Vec<T> {
    (0..parts[0].len())
        .map(|i| {
            let column: Vec<T> = parts.iter().map(|p| p[i]).collect();
            match fast {
                true => column[1..]
                    .iter()
                    .fold(column[0], |a, &b| reference::apply(op, a, b)),
                false => {
                    let wide: Vec<T::Acc> = column.iter().map(|x| x.to_acc()).collect();
                    T::from_acc(reference::bfly_pow2(op, &wide))
                }
            }
        })
        .collect()
}

/// Every rank's reference result of call `call` over data of type `T`.
fn want<T: Num>(c: &Case, call: &Call, layout: &Layout) -> Vec<Result<Value, WavekitError>> {
    let w = c.world;
    let all: Vec<T> = inputs::values_with_specials(c.n, c.seed);
    let shard = |r: usize| &all[layout.range(r)];
    let op = call.op;
    let reduced = || -> Result<u64, WavekitError> {
        if all.is_empty() {
            return Err(WavekitError::EmptyInput {
                what: "distributed reduce input (every shard)",
            });
        }
        Ok(one_bits(match call.fast {
            false => reference::device_reduce(&all, op),
            true => {
                let parts: Vec<Vec<T>> = (0..w)
                    .map(|r| match shard(r) {
                        [] => vec![reference::identity(op)],
                        s => vec![reference::device_reduce(s, op)],
                    })
                    .collect();
                across(&parts, op, true)[0]
            }
        }))
    };
    let equal = |extra| -> Vec<Vec<T>> {
        (0..w)
            .map(|r| data::<T>(c, call.coll, r, layout, extra))
            .collect()
    };
    let pred = pred::<T>(call.pred);
    (0..w)
        .map(|r| {
            Ok(match call.coll {
                Coll::AllReduceValue => Value::Bits(vec![reduced()?]),
                Coll::ReduceValue => {
                    Value::Maybe(reduced().map(|v| (r == call.root).then_some(v))?)
                }
                Coll::Scan => {
                    let kind = [ScanKind::Inclusive, ScanKind::Exclusive][call.exclusive as usize];
                    Value::Bits(bits(
                        &reference::device_scan(&all, op, kind)[layout.range(r)],
                    ))
                }
                Coll::AllReduce => Value::Bits(bits(&across(&equal(0), op, call.fast))),
                Coll::ReduceScatter => {
                    let m = equal_len(c, call.coll, 0) / w;
                    let full = across(&equal(0), op, call.fast);
                    Value::Bits(bits(&full[r * m..(r + 1) * m]))
                }
                Coll::AllGather => Value::Bits(bits(&equal(0).concat())),
                Coll::CountIf => Value::Count(reference::count_if(&all, &pred)),
                Coll::Compact => {
                    let counts: Vec<u64> = (0..w)
                        .map(|q| reference::count_if(shard(q), &pred))
                        .collect();
                    Value::Compact {
                        offset: counts[..r].iter().sum(),
                        total: counts.iter().sum(),
                        bits: bits(&reference::compact(shard(r), &pred)),
                    }
                }
                Coll::Sort => {
                    // The whole sorted array: each rank's part is checked against its stretch.
                    let perm =
                        reference::sort_permutation(&all, sort_order::<T>(call.exclusive, false));
                    let sorted: Vec<T> = perm.into_iter().map(|i| all[i]).collect();
                    Value::Compact {
                        offset: 0,
                        total: all.len() as u64,
                        bits: bits(&sorted),
                    }
                }
                Coll::Histogram => {
                    let (counts, outside) = reference::histogram(&keys(c, call.bins), call.bins);
                    Value::Hist(counts, outside)
                }
            })
        })
        .collect()
}

/// The error the faulty rank's own check gives.
fn own_error(e: &WavekitError) -> bool {
    matches!(
        e,
        WavekitError::UnsupportedOp { .. }
            | WavekitError::LengthMismatch { .. }
            | WavekitError::ZeroBins
            | WavekitError::InvalidBitRange { .. }
            | WavekitError::IndexOutOfRange {
                what: "root rank",
                ..
            }
    )
}

/// What a rank-to-rank disagreement is called in a `RankMismatch`.
fn mismatch(f: Fault, coll: Coll) -> &'static str {
    match f {
        Fault::ScanKind if coll == Coll::Sort => "sort order",
        Fault::Op => "op",
        Fault::Mode => "mode",
        Fault::ScanKind => "scan kind",
        Fault::Collective => "collective",
        Fault::Type => "element type",
        Fault::Length => "buffer length",
        Fault::Predicate => "predicate",
        Fault::Bins => "bin count",
        Fault::Root => "root",
        Fault::Local => "arguments",
    }
}

type Got = Result<Value, (WavekitError, bool)>;

/// Every rank's result of every call against the model.
pub fn check(c: &Case, layout: &Layout, got: &[Vec<Got>]) -> Result<Tally, TestCaseError> {
    let mut tally = Tally::default();
    // The first call in which some rank lost a peer: every later call fails on every rank.
    let mut lost_from: Option<usize> = None;
    for (k, call) in c.calls.iter().enumerate() {
        let results: Vec<&Got> = got.iter().map(|r| &r[k]).collect();
        let is_lost = |g: &Got| matches!(g, Err((WavekitError::RankLost { .. }, _)));
        let stalled = c.stall.is_some_and(|(s, _)| k >= s);
        if stalled || lost_from.is_some_and(|j| k > j) {
            for (r, g) in results.iter().enumerate() {
                prop_assert!(
                    is_lost(g),
                    "call {} rank {}: expected RankLost, got {:?}",
                    k,
                    r,
                    g
                );
            }
            tally.calls += c.world as u64;
            tally.errors += c.world as u64;
            continue;
        }
        if c.stall.is_some() && results.iter().any(|g| is_lost(g)) {
            // Too slow for the stall case's short timeout: allowed before the stall.
            lost_from = Some(k);
        }
        let want = match (call.int, call.half) {
            (true, _) => want::<i32>(c, call, layout),
            (false, true) => want::<wavekit::bf16>(c, call, layout),
            (false, false) => want::<f32>(c, call, layout),
        };
        let fault = fault(c, k);
        // A sort's parts differ in length: each must be the next stretch of the whole.
        let mut next = 0usize;
        for (r, g) in results.iter().enumerate() {
            tally.calls += 1;
            if c.stall.is_some() && is_lost(g) {
                tally.errors += 1;
                continue;
            }
            let ctx = format!("call {k} ({:?}) rank {r}", call.coll);
            match (fault, g) {
                (Some((q, f)), Err((e, intact))) => {
                    tally.errors += 1;
                    prop_assert!(*intact, "{}: outputs changed by a failed call", ctx);
                    let ok = match (f, q == r) {
                        (Fault::Local, true) => own_error(e),
                        (f, _) => {
                            matches!(e, WavekitError::RankMismatch { what, .. } if *what == mismatch(f, call.coll))
                        }
                    };
                    prop_assert!(ok, "{}: fault {:?} of rank {} gave {:?}", ctx, f, q, e);
                }
                (Some((q, f)), Ok(v)) => {
                    return Err(TestCaseError::fail(format!(
                        "{ctx}: fault {f:?} of rank {q} accepted: {v:?}"
                    )));
                }
                (
                    None,
                    Ok(Value::Compact {
                        offset,
                        total,
                        bits,
                    }),
                ) if call.coll == Coll::Sort => {
                    let Ok(Value::Compact {
                        total: n,
                        bits: whole,
                        ..
                    }) = &want[r]
                    else {
                        return Err(TestCaseError::fail(format!(
                            "{ctx}: sorted, expected {:?}",
                            want[r]
                        )));
                    };
                    prop_assert_eq!((*offset as usize, total), (next, n), "{}", ctx);
                    prop_assert!(next + bits.len() <= whole.len(), "{}: past the end", ctx);
                    prop_assert_eq!(bits, &whole[next..next + bits.len()].to_vec(), "{}", ctx);
                    next += bits.len();
                    if r + 1 == c.world {
                        prop_assert_eq!(next, whole.len(), "{}: the parts cover the whole", ctx);
                    }
                }
                (None, g) => {
                    let g = g.as_ref().map_err(|(e, _)| e);
                    if g.is_err() {
                        tally.errors += 1;
                    }
                    prop_assert_eq!(g, want[r].as_ref(), "{}", ctx);
                }
            }
        }
    }
    Ok(tally)
}
