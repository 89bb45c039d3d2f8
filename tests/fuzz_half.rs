//! Fuzz of the 16-bit floats (issue 23) on the CPU backend and the SIMT executor at 32 and 64
//! lanes: `reduce` and `scan` of `f16` and `bf16` (random lengths, every op, specials among the
//! values, outputs of the right length or off by a few); `segmented_reduce`, `warp_reduce`,
//! `warp_scan`, `block_reduce`, `arg_reduce` and `warp_arg_reduce` (random segment sizes,
//! vector sizes and widths, valid or not); `count_if`, `scan_by_key` and `sort_keys` beside
//! the reduce and scan; `compact`, `partition`, `unique`, `reduce_by_key` and `top_k` over keys
//! in runs with specials (random op, threshold and k, valid or not).
//!
//! The property, as tests/fuzz_api.rs states it: a typed error exactly when this file's reading
//! of the documented rules says the arguments are invalid (a bitwise op, an empty reduce, an
//! output of another length), every output then as it was; otherwise `wavekit_conformance::reference` bit for bit.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use wavekit::canonical::MAX_BLOCK;
use wavekit::{
    ArgOp, ArgReduce, Backend, ByKey, Collectives, Element, Partition, Predicate, Runs, ScanKind,
    Segments, Sort, SortOrder, TopK, WarpPrimitives, WavekitError, bf16, f16,
};
use wavekit_conformance::{inputs, reference};
use wavekit_tests::fuzz::*;
use wavekit_tests::on;

fn reduce_and_scan<T: Element>(name: &str) {
    let out_delta = prop_oneof![4 => Just(0i64), 1 => -3i64..4];
    let s = (op(), len(), out_delta, any::<bool>(), any::<u64>());
    fuzz(name, s, |t, (op, n, delta, excl, seed)| {
        let kind = if excl {
            ScanKind::Exclusive
        } else {
            ScanKind::Inclusive
        };
        let vals: Vec<T> = inputs::values_with_specials(n, seed);
        let out_len = (n as i64 + delta).max(0) as usize;
        let sentinel: Vec<T> = (0..out_len as u64)
            .map(|i| T::from_bits(0x3C00 + i))
            .collect();
        let fail = |e: WavekitError| TestCaseError::fail(e.to_string());
        on!(t, |b| {
            let input = b.upload(&vals).map_err(fail)?;
            let mut tally = judged(
                "reduce",
                n > 0 && op_ok::<T>(op),
                b.reduce(&input, op),
                |got| {
                    let want = reference::device_reduce(&vals, op);
                    prop_assert!(want.same(got), "want {:?}, got {:?}", want, got);
                    Ok(())
                },
            )?;
            let mut out = b.upload(&sentinel).map_err(fail)?;
            let r = b.scan(&input, &mut out, op, kind);
            let after = b.download(&out).map_err(fail)?;
            if r.is_err() {
                same(&sentinel, &after)?;
            }
            tally += judged("scan", out_len == n && op_ok::<T>(op), r, |()| {
                same(&reference::device_scan(&vals, op, kind), &after)
            })?;
            // Collectives that took them later: against the reference too (keys with NaNs and
            // signed zeros among them).
            let pred = Predicate::Gt(T::from_bits(0x3C00));
            tally += judged("count_if", true, b.count_if(&input, pred), |got| {
                prop_assert_eq!(got, reference::count_if(&vals, &pred));
                Ok(())
            })?;
            let r = b.scan_by_key(&input, &input, op, kind);
            tally += judged("scan_by_key", op_ok::<T>(op), r, |got| {
                let got = b.download(&got).map_err(fail)?;
                same(&reference::scan_by_key(&vals, &vals, op, kind), &got)
            })?;
            let order = SortOrder::DESCENDING;
            tally += judged("sort_keys", true, b.sort_keys(&input, order), |got| {
                let perm = reference::sort_permutation(&vals, order);
                let want: Vec<T> = perm.iter().map(|&i| vals[i]).collect();
                same(&want, &b.download(&got).map_err(fail)?)
            })?;
            Ok(tally)
        })
    });
}

fn segments_warps_and_args<T: Element>(name: &str) {
    let s = (
        op(),
        len(),
        0usize..70,
        vector(),
        small_u32(),
        any::<bool>(),
        any::<u64>(),
    );
    fuzz(name, s, |t, (op, n, size, v, width, max, seed)| {
        let vals: Vec<T> = inputs::values_with_specials(n, seed);
        let arg = if max { ArgOp::Max } else { ArgOp::Min };
        let fail = |e: WavekitError| TestCaseError::fail(e.to_string());
        on!(t, |b| {
            let input = b.upload(&vals).map_err(fail)?;
            let lanes = b.warp_width().lanes();
            let r = Segments::fixed(size, v).and_then(|segs| b.segmented_reduce(&input, &segs, op));
            let r = r.and_then(|out| b.download(&out));
            let valid = size > 0 && vector_ok(v) && op_ok::<T>(op);
            let mut tally = judged("segmented_reduce", valid, r, |got| {
                let vector = reference::resolve_vector(v, size.min(n), 1);
                same(
                    &reference::segmented_reduce_fixed(&vals, size, vector, op),
                    &got,
                )
            })?;
            let valid = pow2_upto(width, lanes) && op_ok::<T>(op);
            tally += judged(
                "warp_reduce",
                valid,
                b.warp_reduce(&vals, width, op),
                |got| same(&reference::warp_reduce(&vals, width, op), &got),
            )?;
            let kind = if max {
                ScanKind::Exclusive
            } else {
                ScanKind::Inclusive
            };
            let r = b.warp_scan(&vals, width, op, kind);
            tally += judged("warp_scan", valid, r, |got| {
                same(&reference::warp_scan(&vals, width, op, kind), &got)
            })?;
            // Blocks of 0 to 39 logical groups: 0 and past MAX_BLOCK refused.
            let block = (width % 40) * 32;
            let valid = block > 0 && block <= MAX_BLOCK && op_ok::<T>(op);
            let r = b.block_reduce(&input, block, op);
            tally += judged("block_reduce", valid, r, |got| {
                same(&reference::block_reduce(&vals, block, op), &got)
            })?;
            tally += judged("arg_reduce", n > 0, b.arg_reduce(&input, arg), |(v, i)| {
                let (wv, wi) = reference::arg_reduce(&vals, arg).expect("non-empty");
                prop_assert!(
                    wv.same(v) && wi as u64 == i,
                    "want ({:?}, {}), got ({:?}, {})",
                    wv,
                    wi,
                    v,
                    i
                );
                Ok(())
            })?;
            let r = b.warp_arg_reduce(&vals, width, arg);
            tally += judged("warp_arg_reduce", pow2_upto(width, lanes), r, |got| {
                let want = reference::warp_arg_reduce(&vals, width, arg);
                prop_assert_eq!(want.len(), got.len());
                for (l, (w, g)) in want.iter().zip(&got).enumerate() {
                    prop_assert!(
                        w.0.same(g.0) && w.1 == g.1,
                        "lane {}: want {:?}, got {:?}",
                        l,
                        w,
                        g
                    );
                }
                Ok(())
            })?;
            Ok(tally)
        })
    });
}

/// The selections and orders of 16-bit floats: keys in runs with NaNs, infinities and signed
/// zeros among them; a random threshold, k and op.
fn selections_and_orders<T: Element>(name: &str) {
    let s = (op(), len(), 0usize..40, any::<bool>(), any::<u64>());
    fuzz(name, s, |t, (op, n, k, stable, seed)| {
        let keys: Vec<T> = inputs::run_keys(n, seed, 1 + (seed % 5) as usize);
        let vals: Vec<T> = inputs::values_with_specials(n, seed ^ 1);
        let pred = Predicate::Lt(inputs::values::<T>(1, seed ^ 2)[0]);
        let fail = |e: WavekitError| TestCaseError::fail(e.to_string());
        on!(t, |b| {
            let (kb, vb) = (
                b.upload(&keys).map_err(fail)?,
                b.upload(&vals).map_err(fail)?,
            );
            let r = b.compact(&vb, pred, stable);
            let mut tally = judged("compact", true, r, |got| {
                let mut want = reference::compact(&vals, &pred);
                let mut got = b.download(&got.data).map_err(fail)?[..got.len].to_vec();
                if !stable {
                    // Unordered: the same multiset.
                    want.sort_by_key(|x| x.order_bits());
                    got.sort_by_key(|x| x.order_bits());
                }
                same(&want, &got)
            })?;
            let r = b.partition(&vb, pred);
            tally += judged("partition", true, r, |got| {
                let (want, selected) = reference::partition(&vals, &pred);
                prop_assert_eq!(selected, got.selected);
                same(&want, &b.download(&got.data).map_err(fail)?)
            })?;
            tally += judged("unique", true, b.unique(&kb), |got| {
                let want: Vec<T> = reference::runs(&keys).iter().map(|r| keys[r.0]).collect();
                same(&want, &b.download(&got.data).map_err(fail)?[..got.len])
            })?;
            let r = b.reduce_by_key(&kb, &vb, op);
            tally += judged("reduce_by_key", op_ok::<T>(op), r, |got| {
                let (wk, wv) = reference::reduce_by_key(&keys, &vals, op);
                same(&wk, &b.download(&got.keys).map_err(fail)?[..got.len])?;
                same(&wv, &b.download(&got.values).map_err(fail)?[..got.len])
            })?;
            let order = if stable {
                SortOrder::DESCENDING
            } else {
                SortOrder::ASCENDING
            };
            let r = b.top_k(&vb, k, order);
            tally += judged("top_k", k >= 1 && k <= n, r, |got| {
                let perm = reference::sort_permutation(&vals, order);
                let want: Vec<T> = perm[..k].iter().map(|&i| vals[i]).collect();
                same(&want, &b.download(&got).map_err(fail)?)
            })?;
            Ok(tally)
        })
    });
}

#[test]
fn fuzz_half_selections_f16() {
    selections_and_orders::<f16>("f16 compact/partition/unique/reduce_by_key/top_k");
}

#[test]
fn fuzz_half_selections_bf16() {
    selections_and_orders::<bf16>("bf16 compact/partition/unique/reduce_by_key/top_k");
}

#[test]
fn fuzz_half_segments_f16() {
    segments_warps_and_args::<f16>("f16 segmented/warp/arg reduce");
}

#[test]
fn fuzz_half_segments_bf16() {
    segments_warps_and_args::<bf16>("bf16 segmented/warp/arg reduce");
}

#[test]
fn fuzz_half_f16() {
    reduce_and_scan::<f16>("f16 reduce/scan");
}

#[test]
fn fuzz_half_bf16() {
    reduce_and_scan::<bf16>("bf16 reduce/scan");
}
