//! Fuzz of the building blocks wavekit-dist's collectives are made of, called directly as a
//! user may (`SliceDevice`): `reduce_rows_in_place`, `reduce_partials_into`, `reduce_acc_into`
//! and `merge_runs_pairs` (the CPU backend and the SIMT executor at 32 and 64 lanes; i64, f32
//! and bf16 partials), with
//! random row counts, destination rows, row lengths and lengths that are not a multiple of the
//! rows, tree levels in and out of 1..=4, empty inputs, outputs of the right length or off by
//! one, every op; run lengths that do or do not cover the keys, none or too many runs, and
//! every order (bit ranges in and out of the key).
//!
//! The property, as tests/fuzz_api.rs states it: a typed error exactly when this file's reading
//! of the documented rules says the arguments are invalid, the buffer then as it was; otherwise
//! `wavekit_conformance::reference` bit for bit (the butterfly over each column's rows, padded
//! to a power of two, in the destination row and every other row unchanged; each chunk's
//! device reduce in each partial, in the accumulator type, and their fold the reduce of the
//! whole; the stable sort of the runs, which the merge must equal).

#![cfg(feature = "simt")]

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use wavekit::canonical::REDUCE_TILE;
use wavekit::gpu::{MAX_MERGE_RUNS, MAX_REDUCE_ROWS};
use wavekit::{Backend, Element, ReduceOp, SliceDevice, SortOrder, WavekitError, bf16};
use wavekit_conformance::{inputs, reference};
use wavekit_tests::fuzz::*;
use wavekit_tests::on;

fn fail(e: WavekitError) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

/// `rows` as the butterfly leaves them: row `dst` folded column by column, the rest as they were.
fn folded(vals: &[f32], r: usize, dst: usize, op: ReduceOp) -> Vec<f32> {
    let m = vals.len() / r;
    let mut want = vals.to_vec();
    for j in 0..m {
        let column: Vec<f32> = (0..r).map(|i| vals[i * m + j]).collect();
        want[dst * m + j] = reference::bfly_pow2(op, &column);
    }
    want
}

#[test]
fn fuzz_reduce_rows() {
    let rows = prop_oneof![1 => Just(0usize), 6 => 1usize..20, 1 => 30usize..36];
    // A destination among the rows mostly, sometimes anywhere.
    let dst = prop_oneof![4 => Just(None), 1 => (0usize..36).prop_map(Some)];
    let s = (op(), rows, dst, 0usize..40, 0usize..5, any::<u64>());
    fuzz(
        "reduce_rows_in_place",
        s,
        |t, (op, r, dst, m, extra, seed)| {
            let dst = dst.unwrap_or(seed as usize % r.max(1));
            // Mostly r rows of m; sometimes a length that is not a multiple of r.
            let len = r.max(1) * m + if extra == 4 { 1 } else { 0 };
            let vals: Vec<f32> = inputs::values_with_specials(len, seed);
            let shape_ok = r >= 1 && dst < r && len.is_multiple_of(r) && op_ok::<f32>(op);
            t.with(&mut |any| {
                let on_cpu = matches!(any, Any::Cpu(_));
                let (result, after) = match any {
                    Any::Cpu(b) => {
                        let mut buf = b.upload(&vals).map_err(fail)?;
                        let r = b.reduce_rows_in_place(&mut buf, r, dst, op);
                        (r, b.download(&buf).map_err(fail)?)
                    }
                    Any::Simt(b) => {
                        let mut buf = b.upload(&vals).map_err(fail)?;
                        let r = b.reduce_rows_in_place(&mut buf, r, dst, op);
                        (r, b.download(&buf).map_err(fail)?)
                    }
                };
                let valid = shape_ok && (on_cpu || r <= MAX_REDUCE_ROWS);
                if result.is_err() {
                    same(&vals, &after)?;
                }
                judged("reduce_rows_in_place", valid, result, |()| {
                    same(&folded(&vals, r, dst, op), &after)
                })
            })
        },
    );
}

/// One case of `reduce_partials_into` and `reduce_acc_into` over `vals` of `T`: the partials
/// against each chunk's reference reduce in the accumulator type, then their fold (a typed
/// error for no partials or a bitwise op on floats) against the reference reduce of the whole.
fn partials_case<T: Element>(
    t: &dyn Target,
    vals: &[T],
    op: ReduceOp,
    levels: u32,
    delta: i64,
) -> Result<Tally, TestCaseError> {
    let n = vals.len();
    let chunk = (REDUCE_TILE as u64).saturating_pow(levels.max(1)) as usize;
    let chunks = n.div_ceil(chunk);
    let out_len = (chunks as i64 + delta).max(0) as usize;
    let sentinel: Vec<T::Acc> = (0..out_len as u64)
        .map(|i| T::Acc::from_seed(i + 7))
        .collect();
    let valid = op_ok::<T>(op) && (1..=4).contains(&levels) && n > 0 && out_len == chunks;
    let want: Vec<T::Acc> = if valid {
        vals.chunks(chunk)
            .map(|c| {
                let wide: Vec<T::Acc> = c.iter().map(|x| x.to_acc()).collect();
                reference::device_reduce(&wide, op)
            })
            .collect()
    } else {
        Vec::new()
    };
    on!(t, |b| {
        let input = b.upload(vals).map_err(fail)?;
        let mut out = b.upload(&sentinel).map_err(fail)?;
        let result = b.reduce_partials_into(&input, op, levels, &mut out);
        let after = b.download(&out).map_err(fail)?;
        if result.is_err() {
            same(&sentinel, &after)?;
        }
        let mut tally = judged("reduce_partials_into", valid, result, |()| {
            same(&want, &after)
        })?;
        let mut one = b.upload(&[T::from_seed(3)]).map_err(fail)?;
        let folded = b.reduce_acc_into(&out, op, &mut one);
        let fold_ok = op_ok::<T>(op) && out_len > 0;
        let got = b.download(&one).map_err(fail)?;
        if folded.is_err() {
            same(&[T::from_seed(3)], &got)?;
        }
        tally += judged("reduce_acc_into", fold_ok, folded, |()| {
            if valid {
                same(&[reference::device_reduce(vals, op)], &got)?;
            }
            Ok(())
        })?;
        Ok(tally)
    })
}

#[test]
fn fuzz_reduce_partials() {
    let n = prop_oneof![2 => len(), 1 => 4000usize..13000];
    let levels = prop_oneof![4 => 1u32..3, 1 => 0u32..6];
    let delta = prop_oneof![4 => Just(0i64), 1 => -1i64..2];
    let s = (op(), n, levels, delta, 0u8..3, any::<u64>());
    fuzz(
        "reduce_partials_into",
        s,
        |t, (op, n, levels, delta, kind, seed)| match kind {
            0 => partials_case::<i64>(t, &inputs::values_with_specials(n, seed), op, levels, delta),
            1 => partials_case::<f32>(t, &inputs::values_with_specials(n, seed), op, levels, delta),
            _ => {
                partials_case::<bf16>(t, &inputs::values_with_specials(n, seed), op, levels, delta)
            }
        },
    );
}

/// Keys with many ties (and the floats' specials), sorted run by run as the dist sort's runs
/// are; the values are the keys' positions in the unsorted input.
fn sorted_runs(lens: &[usize], extra: usize, order: SortOrder, seed: u64) -> (Vec<f32>, Vec<u32>) {
    let n = lens.iter().sum::<usize>() + extra;
    let raw: Vec<f32> = inputs::values_with_specials(n, seed)
        .into_iter()
        .enumerate()
        .map(|(i, v): (usize, f32)| if i % 3 == 0 { (i % 5) as f32 } else { v })
        .collect();
    let (mut keys, mut vals) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let mut at = 0;
    for &len in lens.iter().chain([extra].iter()) {
        let run = &raw[at..at + len];
        // An order the sort refuses leaves the run as it is.
        let perm = if order_ok(order, 32) {
            reference::sort_permutation(run, order)
        } else {
            (0..len).collect()
        };
        keys.extend(perm.iter().map(|&p| run[p]));
        vals.extend(perm.iter().map(|&p| (at + p) as u32));
        at += len;
    }
    (keys, vals)
}

#[test]
fn fuzz_merge_runs() {
    let runs = prop_oneof![
        1 => Just(vec![]),
        8 => proptest::collection::vec(prop_oneof![3 => 0usize..300, 1 => 2000usize..5000], 1..9),
        1 => Just(vec![0; MAX_MERGE_RUNS + 1]),
    ];
    // Keys past the runs' total, sometimes: the lengths then do not cover them.
    let extra = prop_oneof![6 => Just(0usize), 1 => 1usize..3];
    let s = (runs, order_arg(), extra, any::<u64>());
    fuzz("merge_runs_pairs", s, |t, (runs, order, extra, seed)| {
        let (keys, vals) = sorted_runs(&runs, extra, order, seed);
        // Past the GPU's MAX_MERGE_RUNS the backend sorts again: valid all the same.
        let valid = !runs.is_empty() && extra == 0 && order_ok(order, 32);
        // The reference ranks keys by a valid order only.
        let perm = if valid {
            reference::sort_permutation(&keys, order)
        } else {
            Vec::new()
        };
        let want_k: Vec<f32> = perm.iter().map(|&p| keys[p]).collect();
        let want_v: Vec<u32> = perm.iter().map(|&p| vals[p]).collect();
        on!(t, |b| {
            let (dk, dv) = (
                b.upload(&keys).map_err(fail)?,
                b.upload(&vals).map_err(fail)?,
            );
            let result = b.merge_runs_pairs(&dk, &dv, &runs, order);
            same(&keys, &b.download(&dk).map_err(fail)?)?;
            judged("merge_runs_pairs", valid, result, |(k, v)| {
                same(&want_k, &b.download(&k).map_err(fail)?)?;
                same(&want_v, &b.download(&v).map_err(fail)?)
            })
        })
    });
}
