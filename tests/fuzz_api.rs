//! Fuzz harness over every public entry point (issue 11), on the CPU backend and the SIMT
//! executor at 32 and 64 lanes. Arguments are random: lengths (empty, warp and tile edges,
//! several scan tiles), member masks of either width, sub-widths, shuffle arguments, tile and
//! block sizes, vector sizes, offsets and CSR matrices (valid or corrupted at a random place),
//! atomic slots, bin counts and thread counts up to `usize::MAX`.
//!
//! The property: each call returns a typed error exactly when this file's own reading of the
//! documented rules says the arguments are invalid, and otherwise a result equal to
//! `wavekit_conformance::reference` (bit for bit; activemask and atomic_agg_inc by their
//! guarantees); never a panic (proptest reports it, shrunk), an abort or signal (the test
//! binary dies), or a hang (a watchdog aborts after `WAVEKIT_FUZZ_HANG_S` seconds, default
//! 120, without progress, naming the call).
//!
//! The harness (tests/support/fuzz): `WAVEKIT_FUZZ_CASES` sets the cases per entry point and
//! backend (default 256, the bounded pass `cargo test` and CI run: about 10 s),
//! `WAVEKIT_FUZZ_SECONDS` runs them for a fixed time instead (the soak mode); each test prints
//! how many calls it made and how many came back as typed errors (`--nocapture`).
//!
//! The warp primitives' tests are in fuzz_api/warp.rs (a module of this test binary), the
//! allocation-failure family (a lowered host allocation limit: `OutOfMemory` with the output
//! untouched, or the unlimited result) in fuzz_api/alloc.rs, the checked device copies
//! (`copy`, `fill_zero` over views and another device's buffers) in fuzz_api/copies.rs. The same
//! harness and property cover the other entry points in companion files, one per family, so
//! that each stays readable: tests/fuzz_sort.rs (sorts, segmented sorts, top-k),
//! fuzz_runs.rs (unique, unique_by_key, run_length_encode), fuzz_by_key.rs (scan_by_key,
//! reduce_by_key), fuzz_partition.rs (partition, partition3), fuzz_half.rs (the f16 and bf16
//! element types through the reduces, scans, arg-reduces, predicates, selections, sorts and
//! runs), fuzz_views.rs (every collective through views), fuzz_streams.rs and fuzz_queued.rs
//! (streams and queued calls) and fuzz_dist.rs (the distributed collectives on the thread
//! transport).

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use wavekit::host::HOST_ALLOC_LIMIT;
use wavekit::{
    ArgOp, ArgReduce, Backend, Collectives, Csr, Element, ScanKind, Segments, SliceDevice,
    VectorSize, WavekitError,
};
use wavekit_conformance::cases::check_agg_inc;
use wavekit_conformance::{inputs, reference};
use wavekit_tests::fuzz::*;
use wavekit_tests::on;

#[path = "fuzz_api/warp.rs"]
mod warp;

#[path = "fuzz_api/alloc.rs"]
mod alloc;

#[path = "fuzz_api/copies.rs"]
mod copies;

// ---- strategies shared with the warp primitives' tests -----------------------------------

/// A sub-width, tile or shuffle argument: mostly a power of two up to 64, sometimes anything.
fn lane_count() -> impl Strategy<Value = u32> {
    prop_oneof![3 => (0u32..7).prop_map(|s| 1 << s), 1 => small_u32()]
}

// ---- one test per collective ------------------------------------------------------------

#[test]
fn fuzz_block_and_device_reduce() {
    let block = prop_oneof![1 => small_u32(), 3 => (1u32..33).prop_map(|k| k * 32)];
    let s = (any::<bool>(), block, op(), len(), any::<u64>());
    fuzz(
        "block_reduce/reduce",
        s,
        |t, (device, block, op, n, seed)| {
            let vals: Vec<f64> = inputs::values_with_specials(n, seed);
            on!(t, |b| {
                let input = b
                    .upload(&vals)
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                if device {
                    let valid = n > 0 && op_ok::<f64>(op);
                    judged("reduce", valid, b.reduce(&input, op), |got| {
                        let want = reference::device_reduce(&vals, op);
                        prop_assert!(want.same(got), "want {:?}, got {:?}", want, got);
                        Ok(())
                    })
                } else {
                    let valid = block % 32 == 0 && (32..=1024).contains(&block) && op_ok::<f64>(op);
                    judged(
                        "block_reduce",
                        valid,
                        b.block_reduce(&input, block, op),
                        |got| same(&reference::block_reduce(&vals, block, op), &got),
                    )
                }
            })
        },
    );
}

#[test]
fn fuzz_device_scan() {
    let out_delta = prop_oneof![4 => Just(0i64), 1 => -3i64..4];
    let s = (op(), len(), out_delta, any::<bool>(), any::<u64>());
    fuzz("scan", s, |t, (op, n, delta, excl, seed)| {
        let kind = if excl {
            ScanKind::Exclusive
        } else {
            ScanKind::Inclusive
        };
        let vals: Vec<i32> = inputs::values_with_specials(n, seed);
        let out_len = (n as i64 + delta).max(0) as usize;
        let sentinel: Vec<i32> = (0..out_len as i32).map(|i| -i - 1).collect();
        on!(t, |b| {
            let input = b
                .upload(&vals)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let mut out = b
                .upload(&sentinel)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let valid = out_len == n && op_ok::<i32>(op);
            let r = b.scan(&input, &mut out, op, kind);
            let after = b
                .download(&out)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            if r.is_err() {
                prop_assert_eq!(&after, &sentinel, "output changed by a failed scan");
            }
            judged("scan", valid, r, |()| {
                same(&reference::device_scan(&vals, op, kind), &after)
            })
        })
    });
}

#[test]
fn fuzz_segmented_reduce() {
    // Offsets: random, then maybe corrupted at a random place (or given another length).
    let corrupt = prop_oneof![3 => Just(None), 1 => (any::<usize>(), any::<u32>()).prop_map(Some)];
    let s = (
        any::<bool>(),
        0usize..80,
        0usize..400,
        vector(),
        op(),
        corrupt,
        -1i64..2,
        any::<u64>(),
    );
    fuzz(
        "segmented_reduce",
        s,
        |t, (fixed, count, size, vector, op, corrupt, dlen, seed)| {
            let mut offsets = inputs::random_offsets(count, seed, seed % 2 == 0);
            let total = *offsets.last().unwrap() as usize;
            if let Some((at, v)) = corrupt {
                let i = at % offsets.len();
                offsets[i] = v % (total as u32 + 3);
            }
            let len = (total as i64 + dlen).max(0) as usize;
            let n = if fixed { size } else { len };
            let vals: Vec<f32> = inputs::values_with_specials(n, seed);
            on!(t, |b| {
                let input = b
                    .upload(&vals)
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                if fixed {
                    let seg = count % 70;
                    let valid = seg > 0 && vector_ok(vector) && op_ok::<f32>(op);
                    let r = Segments::fixed(seg, vector)
                        .and_then(|s| b.segmented_reduce(&input, &s, op));
                    judged("segmented fixed", valid, r, |out| {
                        let got = b
                            .download(&out)
                            .map_err(|e| TestCaseError::fail(e.to_string()))?;
                        let lanes = reference::resolve_vector(vector, seg.min(n), 1);
                        same(
                            &reference::segmented_reduce_fixed(&vals, seg, lanes, op),
                            &got,
                        )
                    })
                } else {
                    // The offsets describe `total` elements; the input has `len`.
                    let valid =
                        offsets_ok(&offsets, total) && vector_ok(vector) && op_ok::<f32>(op);
                    let segs = Segments::from_offsets(b, &offsets, total, vector);
                    let valid_call = valid && len == total;
                    let r = segs.and_then(|s| b.segmented_reduce(&input, &s, op));
                    judged("segmented offsets", valid_call, r, |out| {
                        let got = b
                            .download(&out)
                            .map_err(|e| TestCaseError::fail(e.to_string()))?;
                        let lanes = reference::resolve_vector(vector, len, offsets.len() - 1);
                        same(
                            &reference::segmented_reduce_offsets(&vals, &offsets, lanes, op),
                            &got,
                        )
                    })
                }
            })
        },
    );
}

#[test]
fn fuzz_arg_reduce() {
    // Which form (device, segmented fixed, segmented offsets, warp), argmin or argmax, the
    // input's length, output length deltas, a segment size or count, a vector size, a sub-width.
    let dout = prop_oneof![4 => Just(0i64), 1 => -1i64..2];
    let s = (
        0u8..4,
        any::<bool>(),
        len(),
        dout,
        0usize..80,
        vector(),
        lane_count(),
        any::<u64>(),
    );
    fuzz(
        "arg_reduce",
        s,
        |t, (form, max, n, dout, count, vector, width, seed)| {
            let op = if max { ArgOp::Max } else { ArgOp::Min };
            let vals: Vec<f32> = inputs::values_with_specials(n, seed);
            on!(t, |b| {
                let fail = |e: WavekitError| TestCaseError::fail(e.to_string());
                let input = b.upload(&vals).map_err(fail)?;
                match form {
                    0 => {
                        let out_len = (1 + dout).max(0) as usize;
                        let mut v = b.upload(&vec![-5.0f32; out_len]).map_err(fail)?;
                        let mut i = b.upload(&vec![9u64; out_len]).map_err(fail)?;
                        let valid = n > 0 && out_len == 1;
                        let r = b.arg_reduce_into(&input, op, &mut v, &mut i);
                        let got_v = b.download(&v).map_err(fail)?;
                        let got_i = b.download(&i).map_err(fail)?;
                        if r.is_err() {
                            prop_assert!(got_i.iter().all(|&x| x == 9), "index written");
                        }
                        judged("arg_reduce_into", valid, r, |()| {
                            let (wv, wi) = reference::arg_reduce(&vals, op).unwrap();
                            same(&[wv], &got_v)?;
                            prop_assert_eq!(got_i, vec![wi as u64]);
                            Ok(())
                        })
                    }
                    1 | 2 => {
                        let (segs, bounds, valid) = if form == 1 {
                            let size = count % 70;
                            let segs = Segments::fixed(size, vector);
                            let ok = size > 0 && vector_ok(vector);
                            let bounds = if ok {
                                reference::fixed_segments(n, size)
                            } else {
                                vec![]
                            };
                            (segs, bounds, ok)
                        } else {
                            let offsets = inputs::random_offsets(count, seed, seed % 2 == 0);
                            let total = *offsets.last().unwrap() as usize;
                            let segs = Segments::from_offsets(b, &offsets, total, vector);
                            let ok = vector_ok(vector) && total == n;
                            (segs, reference::offset_segments(&offsets), ok)
                        };
                        let segs_n = bounds.len();
                        let out_len = (segs_n as i64 + dout).max(0) as usize;
                        let mut v = b.upload(&vec![-5.0f32; out_len]).map_err(fail)?;
                        let mut i = b.upload(&vec![9u32; out_len]).map_err(fail)?;
                        let valid = valid && out_len == segs_n;
                        let r = segs.and_then(|s| {
                            b.segmented_arg_reduce_into(&input, &s, op, &mut v, &mut i)
                        });
                        let got_v = b.download(&v).map_err(fail)?;
                        let got_i = b.download(&i).map_err(fail)?;
                        if r.is_err() {
                            prop_assert!(got_i.iter().all(|&x| x == 9), "indices written");
                        }
                        judged("segmented_arg_reduce_into", valid, r, |()| {
                            let (wv, wi) = reference::segmented_arg_reduce(&vals, &bounds, op);
                            same(&wv, &got_v)?;
                            prop_assert_eq!(got_i, wi);
                            Ok(())
                        })
                    }
                    _ => {
                        let valid = pow2_upto(width, t.width().lanes());
                        judged(
                            "warp_arg_reduce",
                            valid,
                            b.warp_arg_reduce(&vals, width, op),
                            |got| {
                                let want = reference::warp_arg_reduce(&vals, width, op);
                                prop_assert_eq!(want.len(), got.len());
                                for (w, g) in want.iter().zip(&got) {
                                    prop_assert!(w.0.same(g.0) && w.1 == g.1, "{:?} != {:?}", w, g);
                                }
                                Ok(())
                            },
                        )
                    }
                }
            })
        },
    );
}

/// A CSR matrix and the arguments of one SpMV, any of them possibly wrong.
#[derive(Clone, Debug)]
struct SpmvCase {
    rows: usize,
    cols: usize,
    offsets: Vec<u32>,
    col_idx: Vec<u32>,
    nvals: usize,
    x_len: usize,
    y_len: usize,
    vector: VectorSize,
    seed: u64,
}

fn spmv_case() -> impl Strategy<Value = SpmvCase> {
    let shape = (0usize..60, 0usize..50, any::<u64>());
    let wrong = prop_oneof![6 => Just(0u8), 1 => 1u8..8];
    (shape, wrong, vector(), any::<usize>()).prop_map(|((rows, cols, seed), wrong, vector, at)| {
        let mut offsets = inputs::random_offsets(rows, seed, false);
        let nnz = if cols == 0 {
            0
        } else {
            *offsets.last().unwrap() as usize
        };
        if cols == 0 {
            offsets.iter_mut().for_each(|o| *o = 0);
        }
        let mut col_idx: Vec<u32> = (0..nnz as u64)
            .map(|k| (wavekit::element::splitmix(seed ^ k) % cols as u64) as u32)
            .collect();
        let (mut nvals, mut x_len, mut y_len) = (nnz, cols, rows);
        let mut rows_arg = rows;
        match wrong {
            1 if nnz > 0 => col_idx[at % nnz] = cols as u32 + (at % 3) as u32,
            2 => {
                let i = at % offsets.len();
                offsets[i] = (at % (nnz + 3)) as u32;
            }
            3 => nvals = nnz + 1 - 2 * (nnz > 0) as usize,
            4 => x_len = cols + 1,
            5 => y_len = (rows + at % 3).saturating_sub(1),
            6 => rows_arg = if at % 2 == 0 { usize::MAX } else { rows + 1 },
            7 => offsets.truncate(offsets.len() - 1),
            _ => {}
        }
        SpmvCase {
            rows: rows_arg,
            cols,
            offsets,
            col_idx,
            nvals,
            x_len,
            y_len,
            vector,
            seed,
        }
    })
}

#[test]
fn fuzz_spmv() {
    fuzz("spmv", spmv_case(), |t, c| {
        let vals: Vec<f32> = inputs::values(c.nvals, c.seed);
        let x: Vec<f32> = inputs::values(c.x_len, c.seed + 1);
        let sentinel: Vec<f32> = (0..c.y_len).map(|i| i as f32 + 0.5).collect();
        let csr_valid = c.rows.checked_add(1) == Some(c.offsets.len())
            && c.nvals == c.col_idx.len()
            && offsets_ok(&c.offsets, c.col_idx.len())
            && c.col_idx.iter().all(|&k| (k as usize) < c.cols);
        on!(t, |b| {
            let a = match (
                csr_valid,
                Csr::new(b, c.rows, c.cols, &c.offsets, &c.col_idx, &vals),
            ) {
                (true, Ok(a)) => a,
                (false, Err(e)) if !matches!(e, WavekitError::Device { .. }) => {
                    return Ok(Tally::REFUSED);
                }
                (v, r) => return judged("Csr::new", v, r.map(drop), |()| Ok(())),
            };
            let xb = b
                .upload(&x)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let mut y = b
                .upload(&sentinel)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let valid = c.x_len == c.cols && c.y_len == c.rows && vector_ok(c.vector);
            let r = b.spmv(&a, &xb, &mut y, c.vector);
            let after = b
                .download(&y)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            if r.is_err() {
                prop_assert_eq!(&after, &sentinel, "y changed by a failed spmv");
            }
            judged("spmv", valid, r, |()| {
                let lanes = reference::resolve_vector(c.vector, c.col_idx.len(), c.rows);
                same(
                    &reference::spmv(&c.offsets, &c.col_idx, &vals, &x, lanes),
                    &after,
                )
            })
        })
    });
}

#[test]
fn fuzz_atomic_agg_inc() {
    let bad = prop_oneof![4 => Just(None), 1 => (any::<usize>(), any::<u32>()).prop_map(Some)];
    let s = (len(), 0usize..10, bad, any::<u64>());
    fuzz("atomic_agg_inc", s, |t, (n, ncounters, bad, seed)| {
        let mut slots: Vec<u32> = (0..n as u64)
            .map(|i| (wavekit::element::splitmix(seed ^ i) % ncounters.max(1) as u64) as u32)
            .collect();
        if let (Some((at, v)), false) = (bad, slots.is_empty()) {
            let i = at % n;
            slots[i] = v.max(ncounters as u32);
        }
        let initial: Vec<u32> = (0..ncounters as u32).map(|c| c * 1000 + 7).collect();
        let valid = slots.iter().all(|&s| (s as usize) < ncounters);
        on!(t, |b| {
            let sb = a_unwrap(b.upload(&slots))?;
            let mut counters = a_unwrap(b.upload(&initial))?;
            let r = b.atomic_agg_inc(&sb, &mut counters);
            let finals = a_unwrap(b.download(&counters))?;
            if r.is_err() {
                prop_assert_eq!(&finals, &initial, "counters changed by a failed call");
            }
            judged("atomic_agg_inc", valid, r, |olds| {
                let olds = a_unwrap(b.download(&olds))?;
                let lanes = t.width().lanes() as usize;
                check_agg_inc("fuzz", lanes, &slots, &initial, &olds, &finals)
                    .map_err(TestCaseError::fail)
            })
        })
    });
}

#[test]
fn fuzz_count_if_and_compact() {
    let s = (0u8..3, predicate(), len(), any::<u64>());
    fuzz("count_if/compact", s, |t, (which, pred, n, seed)| {
        let vals: Vec<f32> = inputs::values_with_specials(n, seed);
        on!(t, |b| {
            let input = a_unwrap(b.upload(&vals))?;
            let want = reference::compact(&vals, &pred);
            match which {
                0 => judged("count_if", true, b.count_if(&input, pred), |got| {
                    prop_assert_eq!(reference::count_if(&vals, &pred), got);
                    Ok(())
                }),
                k => judged("compact", true, b.compact(&input, pred, k == 1), |c| {
                    let data = a_unwrap(b.download(&c.data))?;
                    prop_assert_eq!(c.len, want.len());
                    let mut got: Vec<u32> = data[..c.len].iter().map(|x| x.to_bits()).collect();
                    let mut exp: Vec<u32> = want.iter().map(|x| x.to_bits()).collect();
                    if k == 2 {
                        got.sort_unstable();
                        exp.sort_unstable();
                    }
                    prop_assert_eq!(exp, got);
                    Ok(())
                }),
            }
        })
    });
}

#[test]
fn fuzz_histogram() {
    let bins = prop_oneof![
        4 => 0u32..300,
        1 => 4000u32..70_000,
        1 => Just(u32::MAX),
        1 => Just(u32::MAX - 1),
        // Just past the host limit (a size just under it would really be allocated).
        1 => (HOST_ALLOC_LIMIT as u64 / 8..HOST_ALLOC_LIMIT as u64 / 8 + 3).prop_map(|b| b as u32),
    ];
    fuzz(
        "histogram",
        (bins, len(), any::<u64>()),
        |t, (bins, n, seed)| {
            let keys: Vec<u32> = (0..n as u64)
                .map(|i| (wavekit::element::splitmix(seed ^ i) % (u64::from(bins) + 5)) as u32)
                .collect();
            let fits = (u64::from(bins) + 1) * 8 <= HOST_ALLOC_LIMIT as u64;
            on!(t, |b| {
                let kb = a_unwrap(b.upload(&keys))?;
                let r = b.histogram(&kb, bins);
                if bins > 0 && !fits {
                    prop_assert!(
                        matches!(r, Err(WavekitError::OutOfMemory { .. })),
                        "{} bins: not OutOfMemory",
                        bins
                    );
                }
                judged("histogram", bins > 0 && fits, r, |h| {
                    let (counts, outside) = reference::histogram(&keys, bins);
                    prop_assert_eq!(outside, h.outside);
                    prop_assert!(counts == h.counts, "counts differ");
                    Ok(())
                })
            })
        },
    );
}

#[test]
fn fuzz_buffers() {
    let huge = prop_oneof![
        12 => 0usize..5000,
        1 => Just(usize::MAX),
        1 => Just(usize::MAX / 4 + 1),
        1 => Just(HOST_ALLOC_LIMIT / 4 + 1),
    ];
    let s = (huge, -2i64..3, any::<u64>());
    fuzz("alloc/upload/write/download", s, |t, (n, delta, seed)| {
        on!(t, |b| {
            let r = b.alloc::<u32>(n);
            let fits = (n as u128) * 4 <= HOST_ALLOC_LIMIT as u128;
            if !fits {
                prop_assert!(
                    matches!(r, Err(WavekitError::OutOfMemory { .. })),
                    "alloc({})",
                    n
                );
                return Ok(Tally::REFUSED);
            }
            let mut buf = a_unwrap(r)?;
            prop_assert_eq!(a_unwrap(b.download(&buf))?, vec![0u32; n]);
            let data: Vec<u32> = inputs::values(n, seed);
            let src: Vec<u32> = inputs::values((n as i64 + delta).max(0) as usize, seed + 1);
            let r = b.write_from(&mut buf, &src);
            let after = a_unwrap(b.download(&buf))?;
            if r.is_err() {
                prop_assert_eq!(&after, &vec![0u32; n], "buffer changed by a failed write");
            }
            let up = a_unwrap(b.upload(&data))?;
            prop_assert_eq!(a_unwrap(b.download(&up))?, data);
            judged("write_from", src.len() == n, r, |()| {
                prop_assert_eq!(&after, &src);
                Ok(())
            })
        })
    });
}

/// `SliceDevice::download_strided` on the CPU and GPU backends:
/// starts, strides and counts up to `usize::MAX`, a count past the host limit: the elements
/// `start + k * stride` exactly when every one lies in the buffer and the vector fits, else a
/// typed error, never an overflow.
#[test]
fn fuzz_download_strided() {
    let start = prop_oneof![8 => 0usize..64, 1 => 0usize..6000, 1 => Just(usize::MAX)];
    let stride = prop_oneof![
        6 => 0usize..8,
        1 => 0usize..6000,
        1 => Just(usize::MAX),
        1 => Just(usize::MAX / 2 + 1),
    ];
    let count = prop_oneof![
        4 => 0usize..40,
        2 => Just(1usize),
        1 => Just(usize::MAX),
        1 => Just(HOST_ALLOC_LIMIT / 4 + 1),
    ];
    let s = (len(), start, stride, count, any::<u64>());
    fuzz(
        "download_strided",
        s,
        |t, (n, start, stride, count, seed)| {
            let vals: Vec<u32> = inputs::values(n, seed);
            let in_range = count == 0
                || (count - 1)
                    .checked_mul(stride)
                    .and_then(|s| s.checked_add(start))
                    .is_some_and(|last| last < n);
            let fits = count as u128 * 4 <= HOST_ALLOC_LIMIT as u128;
            t.with(&mut |any| {
                let r = match any {
                    Any::Cpu(b) => {
                        let buf = a_unwrap(b.upload(&vals))?;
                        b.download_strided(&buf, start, stride, count)
                    }
                    #[cfg(feature = "simt")]
                    Any::Simt(b) => {
                        let buf = a_unwrap(b.upload(&vals))?;
                        b.download_strided(&buf, start, stride, count)
                    }
                };
                judged("download_strided", in_range && fits, r, |got| {
                    let want: Vec<u32> = (0..count).map(|k| vals[start + k * stride]).collect();
                    prop_assert_eq!(got, want);
                    Ok(())
                })
            })
        },
    );
}
