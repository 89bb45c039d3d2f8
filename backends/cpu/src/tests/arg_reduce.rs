//! argmin / argmax of a whole input, which the CPU works a chunk at a time in two passes (the
//! selected element by the order-free fold, then its first position): inputs spanning several
//! chunks, ties within and across chunks, signed zeros and NaNs of several payloads, against
//! `wavekit_conformance::reference::arg_reduce`.

use super::with_threads;
use crate::arg_reduce::device;
use crate::features::{Vectors, with_vectors};
use wavekit_conformance::reference;
use wavekit_core::ArgOp;
use wavekit_core::element::{Element, bf16, f16};

/// Elements of one chunk of the device form.
const CHUNK: usize = 1 << 16;

const SIZES: [usize; 7] = [1, 2, 33, CHUNK - 1, CHUNK + 1, 2 * CHUNK, 3 * CHUNK + 45];

/// All-ones in the type's width: a NaN for the floats (sign set, every payload bit set).
fn all_ones<T: Element>() -> u64 {
    u64::MAX >> (64 - 8 * T::KIND.size())
}

/// The inputs of one size: few distinct values (ties everywhere), the extremes planted at
/// chunk edges, and for floats signed zeros and NaNs of two payloads in a late chunk.
fn inputs<T: Element>(n: usize, seed: u64) -> Vec<Vec<T>> {
    let few = |i: usize| T::from_seed((seed << 32) | ((i as u64 * 7919) % 5));
    let ties: Vec<T> = (0..n).map(few).collect();
    let mut edges = ties.clone();
    let lo = T::identity(wavekit_core::ReduceOp::Max);
    let hi = T::identity(wavekit_core::ReduceOp::Min);
    for at in [CHUNK - 1, CHUNK, 2 * CHUNK + 3] {
        if at < n {
            edges[at] = if at % 2 == 0 { hi } else { lo };
        }
    }
    // The same extremes once more, later: the first must win.
    if n > 3 * CHUNK {
        edges[3 * CHUNK + 1] = lo;
        edges[3 * CHUNK + 2] = hi;
    }
    let mut out = vec![ties, edges];
    if T::KIND.is_float() {
        let zero = T::default();
        let neg_zero = T::from_bits(1 << (8 * T::KIND.size() - 1));
        let zeros: Vec<T> = (0..n)
            .map(|i| if i % 3 == 1 { neg_zero } else { zero })
            .collect();
        let mut nans = zeros.clone();
        // A NaN with every bit set, then a quiet positive NaN before it in the same chunk.
        let late = n - 1 - (n - 1) % CHUNK;
        nans[n - 1] = T::from_bits(all_ones::<T>());
        nans[late + (n - 1 - late) / 2] = T::from_bits(all_ones::<T>() >> 1);
        out.push(zeros);
        out.push(nans);
    }
    out
}

fn matches_reference<T: Element>(seed: u64) {
    for n in SIZES {
        for (k, vals) in inputs::<T>(n, seed).iter().enumerate() {
            for op in [ArgOp::Min, ArgOp::Max] {
                let (want, at) = reference::arg_reduce(vals, op).expect("non-empty");
                let (got, i) = device(vals, op).unwrap();
                assert!(
                    got.same(want) && i == at as u64,
                    "{:?} {op:?} n={n} input {k}: got ({got:?}, {i}), want ({want:?}, {at})",
                    T::KIND
                );
            }
        }
    }
}

fn every_type(seed: u64) {
    matches_reference::<f32>(seed);
    matches_reference::<f64>(seed);
    matches_reference::<f16>(seed);
    matches_reference::<bf16>(seed);
    matches_reference::<i32>(seed);
    matches_reference::<u32>(seed);
    matches_reference::<i64>(seed);
    matches_reference::<u64>(seed);
}

#[test]
fn argmin_argmax_chunks_match_reference() {
    for vectors in [Vectors::Scalar, Vectors::Avx2, Vectors::Widest] {
        with_vectors(vectors, || every_type(vectors as u64 + 1));
    }
}

#[test]
fn argmin_argmax_thread_counts_match_reference() {
    for threads in [1, 3] {
        with_threads(threads, || every_type(threads as u64 + 11));
    }
}
