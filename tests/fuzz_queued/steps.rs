//! The steps of a queued sequence: each builds its arguments from the step's numbers, queues
//! its call (or synchronises) through the model in fuzz_queued.rs, and leaves a check of what
//! it wrote. With `bad`, a queued call's output has the wrong length (refused at the call).

use super::{Expect, Out, Run, Step, fail, token};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use wavekit::gpu::GpuRuntime;
use wavekit::{
    Backend, Collectives, Csr, Element, ReduceOp, ScanKind, Segments, VectorSize, WarpPrimitives,
    WavekitError,
};
use wavekit_conformance::cases::check_agg_inc;
use wavekit_conformance::{inputs, reference};
use wavekit_core::{RawBackend, SegmentSpec};
use wavekit_tests::fuzz::*;

/// The length an output of `need` elements is given: one more when the step is `bad`.
fn out_len(s: &Step, need: usize) -> usize {
    need + s.bad as usize
}

/// `r` of a call through a view, with the view's own error folded in.
fn flat(r: Result<Result<(), WavekitError>, WavekitError>) -> Result<(), WavekitError> {
    r.and_then(|r| r)
}

/// Random cuts of `n` into `count` segments (empty ones included).
fn cuts(n: usize, count: usize, seed: u64) -> Vec<u32> {
    let mut offsets: Vec<u32> = (1..count as u64)
        .map(|i| (wavekit::element::splitmix(seed ^ i) % (n as u64 + 1)) as u32)
        .chain([0, n as u32])
        .collect();
    offsets.sort_unstable();
    offsets
}

/// A CSR matrix of `rows` rows over `cols` columns with at least one nonzero per row.
fn matrix(rows: usize, cols: usize, seed: u64) -> (Vec<u32>, Vec<u32>, Vec<f32>) {
    let mut offsets = vec![0u32];
    for r in 0..rows as u64 {
        let k = 1 + wavekit::element::splitmix(seed ^ (r << 20)) % 6;
        offsets.push(offsets.last().unwrap() + k as u32);
    }
    let nnz = *offsets.last().unwrap() as u64;
    let col_idx = (0..nnz)
        .map(|k| (wavekit::element::splitmix(seed ^ k) % cols as u64) as u32)
        .collect();
    (offsets, col_idx, inputs::values(nnz as usize, seed + 1))
}

/// A step of the sequence (`i` names it in failures).
pub fn step<R: GpuRuntime>(run: &mut Run<'_, R>, i: usize, s: &Step) -> Result<(), TestCaseError> {
    let b = run.b;
    let n = s.len;
    let name = |what: &str| format!("step {i} ({what})");
    match s.kind {
        0 => {
            let vals: Vec<f32> = inputs::values_with_specials(n, s.seed);
            let input = b.upload(&vals).map_err(fail)?;
            let mut out = Out::<f32, R>::new(b, out_len(s, 1), s.seed)?;
            let valid = !s.bad && n > 0 && op_ok::<f32>(s.op);
            let r = flat(out.view(b, |y| b.reduce_into(&input, s.op, y)));
            run.call("reduce_into", valid, r)?;
            let want = match valid {
                true => Expect::Exactly(vec![reference::device_reduce(&vals, s.op)]),
                false => Expect::Untouched,
            };
            run.keep(
                name("reduce_into"),
                Box::new(move || {
                    let _ = &input;
                    out.read(b, &want)
                }),
            );
        }
        1 => {
            let vals: Vec<i32> = inputs::values_with_specials(n, s.seed);
            let kind = [ScanKind::Inclusive, ScanKind::Exclusive][(s.seed & 1) as usize];
            let input = b.upload(&vals).map_err(fail)?;
            let mut out = Out::<i32, R>::new(b, out_len(s, n), s.seed)?;
            let r = flat(out.view(b, |y| b.scan(&input, y, s.op, kind)));
            run.call("scan", !s.bad, r)?;
            let want = match s.bad {
                false => Expect::Exactly(reference::device_scan(&vals, s.op, kind)),
                true => Expect::Untouched,
            };
            run.keep(
                name("scan"),
                Box::new(move || {
                    let _ = &input;
                    out.read(b, &want)
                }),
            );
        }
        2 => {
            let vals: Vec<f32> = inputs::values_with_specials(n, s.seed);
            let input = b.upload(&vals).map_err(fail)?;
            let mut out = Out::<u64, R>::new(b, out_len(s, 1), s.seed)?;
            let r = flat(out.view(b, |y| b.count_if_into(&input, s.pred, y)));
            run.call("count_if_into", !s.bad, r)?;
            let want = match s.bad {
                false => Expect::Exactly(vec![reference::count_if(&vals, &s.pred)]),
                true => Expect::Untouched,
            };
            run.keep(
                name("count_if_into"),
                Box::new(move || {
                    let _ = &input;
                    out.read(b, &want)
                }),
            );
        }
        3 => {
            let vals: Vec<f32> = inputs::values_with_specials(n, s.seed);
            let input = b.upload(&vals).map_err(fail)?;
            let mut out = Out::<f32, R>::new(b, out_len(s, n), s.seed)?;
            let mut count = Out::<u64, R>::new(b, 1, s.seed + 1)?;
            let r = out
                .view(b, |y| {
                    count.view(b, |c| b.compact_into(&input, s.pred, true, y, c))
                })
                .and_then(flat);
            run.call("compact_into", !s.bad, r)?;
            let (want, want_count) = match s.bad {
                false => {
                    let mut w = reference::compact(&vals, &s.pred);
                    let k = w.len();
                    // The rest of the output stays as it was.
                    w.extend_from_slice(&out.before[super::GUARD + k..super::GUARD + n]);
                    (Expect::Exactly(w), Expect::Exactly(vec![k as u64]))
                }
                true => (Expect::Untouched, Expect::Untouched),
            };
            run.keep(
                name("compact_into count"),
                Box::new(move || count.read(b, &want_count)),
            );
            run.keep(
                name("compact_into"),
                Box::new(move || {
                    let _ = &input;
                    out.read(b, &want)
                }),
            );
        }
        4 => {
            let vals: Vec<f32> = inputs::values_with_specials(n, s.seed);
            let offsets = cuts(n, 1 + s.size as usize % 12, s.seed);
            let count = offsets.len() - 1;
            let input = b.upload(&vals).map_err(fail)?;
            let segs = Segments::from_offsets(b, &offsets, n, VectorSize::Auto).map_err(fail)?;
            let mut out = Out::<f32, R>::new(b, out_len(s, count), s.seed)?;
            let valid = !s.bad && op_ok::<f32>(s.op);
            let r = flat(out.view(b, |y| b.segmented_reduce_into(&input, &segs, s.op, y)));
            run.call("segmented_reduce_into", valid, r)?;
            let want = match valid {
                true => {
                    let lanes = reference::resolve_vector(VectorSize::Auto, n, count);
                    Expect::Exactly(reference::segmented_reduce_offsets(
                        &vals, &offsets, lanes, s.op,
                    ))
                }
                false => Expect::Untouched,
            };
            run.keep(
                name("segmented_reduce_into"),
                Box::new(move || {
                    let _ = (&input, &segs);
                    out.read(b, &want)
                }),
            );
        }
        5 => {
            let bins = s.size;
            let keys: Vec<u32> = (0..n as u64)
                .map(|k| (wavekit::element::splitmix(s.seed ^ k) % u64::from(bins + 3)) as u32)
                .collect();
            let input = b.upload(&keys).map_err(fail)?;
            let mut out = Out::<u64, R>::new(b, out_len(s, bins as usize + 1), s.seed)?;
            let r = flat(out.view(b, |y| b.histogram_into(&input, bins, y)));
            run.call("histogram_into", !s.bad, r)?;
            let want = match s.bad {
                false => {
                    let (mut counts, outside) = reference::histogram(&keys, bins);
                    counts.push(outside);
                    Expect::Exactly(counts)
                }
                true => Expect::Untouched,
            };
            run.keep(
                name("histogram_into"),
                Box::new(move || {
                    let _ = &input;
                    out.read(b, &want)
                }),
            );
        }
        6 => {
            let (rows, cols) = (1 + s.size as usize % 30, 1 + n % 40);
            let (offsets, col_idx, vals) = matrix(rows, cols, s.seed);
            let a = Csr::new(b, rows, cols, &offsets, &col_idx, &vals).map_err(fail)?;
            let x: Vec<f32> = inputs::values(cols, s.seed + 2);
            let xb = b.upload(&x).map_err(fail)?;
            let mut y = Out::<f32, R>::new(b, out_len(s, rows), s.seed)?;
            let r = flat(y.view(b, |y| b.spmv(&a, &xb, y, VectorSize::Auto)));
            run.call("spmv", !s.bad, r)?;
            let want = match s.bad {
                false => {
                    let lanes = reference::resolve_vector(VectorSize::Auto, col_idx.len(), rows);
                    Expect::Exactly(reference::spmv(&offsets, &col_idx, &vals, &x, lanes))
                }
                true => Expect::Untouched,
            };
            run.keep(
                name("spmv"),
                Box::new(move || {
                    let _ = (&a, &xb);
                    y.read(b, &want)
                }),
            );
        }
        7 => {
            let vals: Vec<f32> = inputs::values_with_specials(n, s.seed);
            let block = 32 * (1 + s.size % 8);
            let input = b.upload(&vals).map_err(fail)?;
            let mut out = Out::<f32, R>::new(b, out_len(s, n.div_ceil(block as usize)), s.seed)?;
            let valid = !s.bad && op_ok::<f32>(s.op);
            let r = flat(out.view(b, |y| b.block_reduce_into(&input, block, s.op, y)));
            run.call("block_reduce_into", valid, r)?;
            let want = match valid {
                true => Expect::Exactly(reference::block_reduce(&vals, block, s.op)),
                false => Expect::Untouched,
            };
            run.keep(
                name("block_reduce_into"),
                Box::new(move || {
                    let _ = &input;
                    out.read(b, &want)
                }),
            );
        }
        8 => atomics(run, i, s)?,
        9 => {
            // A column past x, in one nonzero: the kernel reports it at the next sync.
            let (rows, cols) = (1 + s.size as usize % 30, 1 + n % 40);
            let (offsets, mut col_idx, vals) = matrix(rows, cols, s.seed);
            let bad = (cols as u64 + s.seed % 7) as u32;
            let at = (s.seed >> 8) as usize % col_idx.len();
            col_idx[at] = bad;
            let x = b
                .upload(&inputs::values::<f32>(cols, s.seed + 2))
                .map_err(fail)?;
            let bufs = (
                b.upload(&offsets).map_err(fail)?,
                b.upload(&col_idx).map_err(fail)?,
                b.upload(&vals).map_err(fail)?,
            );
            let mut y = Out::<f32, R>::new(b, rows, s.seed)?;
            let vector = 1 << (s.size % 6);
            let r = flat(y.view(b, |y| {
                b.raw_spmv(token(), &bufs.0, &bufs.1, &bufs.2, &x, y, vector)
            }));
            let error = WavekitError::IndexOutOfRange {
                what: "SpMV column",
                value: u64::from(bad),
                limit: cols as u64,
            };
            run.fault("spmv with a column past x", r, error)?;
            run.keep(
                name("faulty spmv"),
                Box::new(move || {
                    let _ = (&bufs, &x);
                    y.read(b, &Expect::Anything)
                }),
            );
        }
        10 => {
            // An offset past the input, in one place: reported at the next sync.
            let n = n.max(1);
            let mut offsets = cuts(n, 1 + s.size as usize % 12, s.seed);
            let count = offsets.len() - 1;
            let bad = (n as u64 + 1 + (s.seed >> 8) % 50) as u32;
            offsets[1 + (s.seed >> 16) as usize % count] = bad;
            let input = b.upload(&inputs::values::<f32>(n, s.seed)).map_err(fail)?;
            let offs = b.upload(&offsets).map_err(fail)?;
            let mut out = Out::<f32, R>::new(b, count, s.seed)?;
            // The reduce does not read `longest` (a sort does): the offsets' widest span.
            let longest = offsets.windows(2).map(|w| w[1].abs_diff(w[0])).max();
            let spec = SegmentSpec::Offsets {
                offsets: &offs,
                count,
                vector: 1 << (s.size % 6),
                longest: longest.unwrap_or(0) as usize,
            };
            let r = flat(out.view(b, |y| {
                b.raw_segmented_reduce(token(), &input, spec, ReduceOp::Sum, y)
            }));
            let error = WavekitError::IndexOutOfRange {
                what: "segment offset",
                value: u64::from(bad),
                limit: n as u64 + 1,
            };
            run.fault("segmented reduce with an offset past the input", r, error)?;
            run.keep(
                name("faulty segmented reduce"),
                Box::new(move || {
                    let _ = (&input, &offs);
                    out.read(b, &Expect::Anything)
                }),
            );
        }
        11 => {
            let r = b.synchronize();
            run.sync("synchronize", r, |()| Ok(()))?;
        }
        12 if !run.checks.is_empty() => {
            // A download of an earlier output is a synchronisation point too.
            let k = s.seed as usize % run.checks.len();
            let r = (run.checks[k].1)();
            let what = format!("download of {}", run.checks[k].0);
            run.sync(&what, r, |checked| checked)?;
        }
        12 | 13 => {
            let vals: Vec<f32> = inputs::values_with_specials(n, s.seed);
            let input = b.upload(&vals).map_err(fail)?;
            let r = b.reduce(&input, s.op);
            if n > 0 && op_ok::<f32>(s.op) {
                run.sync("reduce", r, |got| {
                    let want = reference::device_reduce(&vals, s.op);
                    prop_assert!(want.same(got), "reduce: want {:?}, got {:?}", want, got);
                    Ok(())
                })?;
            } else {
                // Refused before anything is queued: not a synchronisation point.
                run.call("reduce (refused)", false, r.map(drop))?;
            }
        }
        _ => {
            let vals: Vec<u32> = inputs::values(n.max(1), s.seed);
            let width = if s.bad { 3 } else { 1 << (s.size % 6) };
            let width_ok = pow2_upto(width, b.warp_width().lanes());
            let r = b.warp_reduce(&vals, width, s.op);
            if width_ok {
                run.sync("warp_reduce", r, |got| {
                    same(&reference::warp_reduce(&vals, width, s.op), &got)
                })?;
            } else {
                run.call("warp_reduce (refused)", false, r.map(drop))?;
            }
        }
    }
    Ok(())
}

/// Warp-aggregated atomics into views of counters and old values; a bad slot is refused at
/// the call (its check waits for the stream, but reads no status).
fn atomics<R: GpuRuntime>(run: &mut Run<'_, R>, i: usize, s: &Step) -> Result<(), TestCaseError> {
    let b = run.b;
    let ncounters = 1 + s.size as usize % 10;
    let mut slots: Vec<u32> = (0..s.len as u64)
        .map(|k| (wavekit::element::splitmix(s.seed ^ k) % ncounters as u64) as u32)
        .collect();
    if s.bad && !slots.is_empty() {
        let at = s.seed as usize % slots.len();
        slots[at] = ncounters as u32;
    }
    let input = b.upload(&slots).map_err(fail)?;
    let mut counters = Out::<u32, R>::new(b, ncounters, s.seed)?;
    let mut olds = Out::<u32, R>::new(b, slots.len(), s.seed + 1)?;
    let r = counters
        .view(b, |c| olds.view(b, |o| b.atomic_agg_inc_into(&input, c, o)))
        .and_then(flat);
    let valid = !s.bad || slots.is_empty();
    run.call("atomic_agg_inc_into", valid, r)?;
    let lanes = b.warp_width().lanes() as usize;
    let g = super::GUARD;
    run.keep(
        format!("step {i} (atomic_agg_inc_into)"),
        Box::new(move || {
            let _ = &input;
            let (c, o) = (b.download(&counters.base)?, b.download(&olds.base)?);
            if !valid {
                return Ok(same(&counters.before, &c).and_then(|()| same(&olds.before, &o)));
            }
            let inside = |before: &[u32], after: &[u32], len: usize| {
                before[..g] == after[..g] && before[g + len..] == after[g + len..]
            };
            if !inside(&counters.before, &c, ncounters) || !inside(&olds.before, &o, slots.len()) {
                return Ok(Err(TestCaseError::fail("a write outside the views")));
            }
            let (cv, ov) = (g..g + ncounters, g..g + slots.len());
            let initial = &counters.before[cv.clone()];
            Ok(
                check_agg_inc("queued", lanes, &slots, initial, &o[ov], &c[cv])
                    .map_err(TestCaseError::fail),
            )
        }),
    );
    Ok(())
}
