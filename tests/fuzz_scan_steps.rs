//! Fuzz of the sharded scan's device steps (`SliceDevice::scan_aggregates_into`,
//! `fold_left_into`, `scan_carried_into`: what wavekit-dist's scan of tile-aligned shards runs)
//! on the SIMT executor at 32 and 64 lanes: random lengths, every op, specials among the
//! values, outputs and carries of the right length or off by a few.
//!
//! The property, as tests/fuzz_api.rs states it: a typed error exactly when this file's reading
//! of the documented rules says the arguments are invalid (an op the type does not take, an
//! empty input, an output or a carry of another length), every output then as it was;
//! otherwise `wavekit_conformance::reference` bit for bit (NaNs as NaNs).
#![cfg(feature = "simt")]

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use wavekit::canonical::SCAN_TILE;
use wavekit::simt::SimtBackend;
use wavekit::{Backend, Element, ReduceOp, ScanKind, SliceDevice, WarpWidth, WavekitError};
use wavekit_conformance::{inputs, reference};
use wavekit_tests::fuzz::*;

/// The output's length: right, or off by a few (never below zero).
fn off(len: usize, delta: i64) -> usize {
    (len as i64 + delta).max(0) as usize
}

/// Values no step writes: what an output must still hold after a refused call.
fn sentinel<T: Element>(len: usize) -> Vec<T> {
    (0..len as u64).map(|i| T::from_seed(i ^ 0x5a5a)).collect()
}

/// The aggregate of every `SCAN_TILE` tile of `vals`: its inclusive scan's last element.
fn aggregates<T: Element>(vals: &[T], op: ReduceOp) -> Vec<T> {
    vals.chunks(SCAN_TILE)
        .map(|c| {
            *reference::device_scan(c, op, ScanKind::Inclusive)
                .last()
                .expect("a tile")
        })
        .collect()
}

fn steps<T: Element>(name: &str) {
    let contexts: Vec<(String, SimtBackend)> = WarpWidth::ALL
        .iter()
        .map(|&w| {
            (
                format!("simt/w{}", w.lanes()),
                wavekit::simt::open(w).unwrap(),
            )
        })
        .collect();
    let delta = || prop_oneof![4 => Just(0i64), 1 => -2i64..3];
    let s = (
        (op(), 1usize..3, 0usize..2 * SCAN_TILE + 9, 0usize..3000),
        (delta(), delta(), delta(), delta()),
        (any::<bool>(), any::<u64>()),
    );
    run_contexts(
        name,
        128,
        s,
        &contexts,
        |b, (args, deltas, (excl, seed))| {
            let (op, head_tiles, tail, fold_n) = args;
            let (d_aggs, d_fold, d_out, d_carry) = deltas;
            let kind = if excl {
                ScanKind::Exclusive
            } else {
                ScanKind::Inclusive
            };
            let fail = |e: WavekitError| TestCaseError::fail(e.to_string());
            let valid_op = op_ok::<T>(op);
            let all: Vec<T> = inputs::values_with_specials(head_tiles * SCAN_TILE + tail, seed);
            let head = head_tiles * SCAN_TILE;

            // The aggregates of the whole array.
            let tiles = all.len().div_ceil(SCAN_TILE);
            let before = sentinel::<T>(off(tiles, d_aggs));
            let mut aggs = b.upload(&before).map_err(fail)?;
            let r = b.scan_aggregates_into(&b.upload(&all).map_err(fail)?, op, &mut aggs);
            let got = b.download(&aggs).map_err(fail)?;
            if r.is_err() {
                same(&before, &got)?;
            }
            let ok = valid_op && before.len() == tiles;
            let mut tally = judged("scan_aggregates", ok, r, |()| {
                same(&aggregates(&all, op), &got)
            })?;

            // The left fold of other values (ops folded in any order take the block's path).
            let vals: Vec<T> = inputs::values_with_specials(fold_n, seed ^ 1);
            let before = sentinel::<T>(off(1, d_fold));
            let mut out = b.upload(&before).map_err(fail)?;
            let r = b.fold_left_into(&b.upload(&vals).map_err(fail)?, op, &mut out);
            let got = b.download(&out).map_err(fail)?;
            if r.is_err() {
                same(&before, &got)?;
            }
            let ok = valid_op && fold_n > 0 && before.len() == 1;
            tally += judged("fold_left", ok, r, |()| {
                let want = vals[1..].iter().fold(vals[0], |x, &a| T::combine(op, x, a));
                same(&[want], &got)
            })?;

            // The tail's scan from the left fold of the head's aggregates: the end of the whole
            // array's scan.
            let carry_vals = if valid_op {
                let a = aggregates(&all[..head], op);
                let x = a[1..].iter().fold(a[0], |x, &v| T::combine(op, x, v));
                vec![x; off(1, d_carry)]
            } else {
                sentinel::<T>(off(1, d_carry))
            };
            let carry = b.upload(&carry_vals).map_err(fail)?;
            let before = sentinel::<T>(off(tail, d_out));
            let mut out = b.upload(&before).map_err(fail)?;
            let input = b.upload(&all[head..]).map_err(fail)?;
            let r = b.scan_carried_into(&input, &mut out, op, kind, &carry);
            let got = b.download(&out).map_err(fail)?;
            if r.is_err() {
                same(&before, &got)?;
            }
            let ok = valid_op && tail > 0 && before.len() == tail && carry_vals.len() == 1;
            tally += judged("scan_carried", ok, r, |()| {
                same(&reference::device_scan(&all, op, kind)[head..], &got)
            })?;
            Ok(tally)
        },
    );
}

#[test]
fn fuzz_scan_steps() {
    steps::<f32>("scan steps f32");
    steps::<f64>("scan steps f64");
    steps::<i32>("scan steps i32");
    steps::<u64>("scan steps u64");
}
