//! Segmented reduce (fixed size, seed 001's REDUCE_SIZE, and CSR-style offsets with empty
//! segments) and SpMV, with every vector size and `VectorSize::Auto`.

use crate::Scale;
use crate::check::{ok, same_elems};
use crate::inputs::{pick, values, values_with_specials};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::element::{Element, splitmix};
use wavekit_core::op::ReduceOp;
use wavekit_core::{Collectives, Csr, Segments, VectorSize};

fn vector_sizes() -> Vec<VectorSize> {
    let mut v: Vec<VectorSize> = [1, 2, 4, 8, 16, 32]
        .into_iter()
        .map(VectorSize::Lanes)
        .collect();
    v.push(VectorSize::Auto);
    v
}

/// The lanes SEMANTICS resolves `v` to, for `items` items over `segments` segments.
fn resolve(v: VectorSize, items: usize, segments: usize) -> u32 {
    match v {
        VectorSize::Lanes(n) => n,
        VectorSize::Auto => reference::auto_vector(items, segments),
    }
}

fn fixed_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    // (segment size, input length): seed 001's REDUCE_SIZE = 8 with a short last segment,
    // single-element segments, sizes around 32, a long segment, and input shorter than one.
    let shapes = pick(
        scale,
        &[
            (8usize, 8 * 37 + 5),
            (8, 8 * 16),
            (1, 50),
            (2, 33),
            (3, 100),
            (31, 31 * 9 + 1),
            (32, 32 * 5),
            (33, 33 * 4 + 32),
            (100, 250),
            (257, 1000),
            (64, 20),
        ],
        &[(8usize, 8 * 9 + 5), (3, 20), (33, 100), (64, 20)],
    );
    for op in ReduceOp::ops_for(T::KIND) {
        for &(size, n) in &shapes {
            for v in vector_sizes() {
                let vals: Vec<T> = if op == ReduceOp::Sum || n % 2 == 0 {
                    values(n, (size * 1000 + n) as u64)
                } else {
                    values_with_specials(n, (size * 1000 + n) as u64)
                };
                let lanes = resolve(v, size.min(n), 1);
                let ctx = format!(
                    "{op:?} {} size={size} n={n} vector={v:?} ({lanes} lanes)",
                    T::KIND.name()
                );
                let segs = ok(&ctx, Segments::<B>::fixed(size, v))?;
                let input = ok(&ctx, b.upload(&vals))?;
                let out = ok(&ctx, b.segmented_reduce(&input, &segs, op))?;
                let got = ok(&ctx, b.download(&out))?;
                let want = reference::segmented_fixed(&vals, size, lanes, op);
                same_elems(&ctx, "segment", &want, &got)?;
            }
        }
    }
    Ok(())
}

pub fn segmented_reduce_fixed<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(fixed_typed(b, scale));
    Ok(())
}

/// Offsets of `count` segments: many empty, some long; `ends_empty` forces the first and last
/// segments to be empty.
pub fn random_offsets(count: usize, seed: u64, ends_empty: bool) -> Vec<u32> {
    let mut offsets = vec![0u32];
    for i in 0..count {
        let r = splitmix(seed ^ (i as u64) << 8);
        let len = match r % 10 {
            0..=2 => 0,
            3..=7 => 1 + (r >> 8) % 20,
            8 => 40 + (r >> 8) % 60,
            _ => 1,
        };
        let len = if ends_empty && (i == 0 || i + 1 == count) {
            0
        } else {
            len
        };
        offsets.push(offsets[i] + len as u32);
    }
    offsets
}

fn offsets_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let counts = pick(scale, &[0usize, 1, 2, 7, 40, 150], &[0usize, 1, 7, 40]);
    for op in ReduceOp::ops_for(T::KIND) {
        for &count in counts.iter().filter(|&&c| c < 100 || op == ReduceOp::Sum) {
            for (oname, offsets) in [
                ("random", random_offsets(count, count as u64 + 11, false)),
                ("empty ends", random_offsets(count, count as u64 + 12, true)),
                ("all empty", vec![0u32; count + 1]),
            ] {
                let n = *offsets.last().expect("offsets start with 0") as usize;
                let vals: Vec<T> = if op == ReduceOp::Sum {
                    values(n, count as u64 * 17)
                } else {
                    values_with_specials(n, count as u64 * 17)
                };
                for v in vector_sizes() {
                    let lanes = resolve(v, n, count);
                    let ctx = format!(
                        "{op:?} {} {count} segments ({oname}, n={n}) vector={v:?} ({lanes} lanes)",
                        T::KIND.name()
                    );
                    let segs = ok(&ctx, Segments::from_offsets(b, &offsets, n, v))?;
                    let input = ok(&ctx, b.upload(&vals))?;
                    let out = ok(&ctx, b.segmented_reduce(&input, &segs, op))?;
                    let got = ok(&ctx, b.download(&out))?;
                    let want = reference::segmented_offsets(&vals, &offsets, lanes, op);
                    same_elems(&ctx, "segment", &want, &got)?;
                }
            }
        }
    }
    Ok(())
}

pub fn segmented_reduce_offsets<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(offsets_typed(b, scale));
    Ok(())
}

/// A CSR matrix: `(row_offsets, cols)` with rows shaped by `pattern`.
fn csr_shape(rows: usize, cols: usize, pattern: &str, seed: u64) -> (Vec<u32>, Vec<u32>) {
    let mut offsets = vec![0u32];
    for r in 0..rows {
        let x = splitmix(seed ^ (r as u64) << 16);
        let len = match pattern {
            "regular" => 5,
            "empty rows" if r % 2 == 1 => 0,
            "one long row" if r == rows / 2 => 300,
            _ => {
                (match x % 8 {
                    0 | 1 => 0,
                    2 => 50 + (x >> 8) % 80,
                    _ => 1 + (x >> 8) % 16,
                }) as usize
            }
        };
        offsets.push(offsets[r] + len as u32);
    }
    let nnz = *offsets.last().expect("non-empty") as usize;
    let col_idx = (0..nnz as u64)
        .map(|k| (splitmix(seed.wrapping_add(k) ^ 0xC01) % cols as u64) as u32)
        .collect();
    (offsets, col_idx)
}

fn spmv_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let shapes = pick(
        scale,
        &[(1usize, 1usize), (5, 17), (33, 64), (100, 40)],
        &[(5usize, 17usize), (33, 64)],
    );
    for &(rows, cols) in &shapes {
        for pattern in ["regular", "irregular", "empty rows", "one long row"] {
            let seed = (rows * 100 + cols) as u64;
            let (offsets, col_idx) = csr_shape(rows, cols, pattern, seed);
            let nnz = col_idx.len();
            let a_vals: Vec<T> = values(nnz, seed + 1);
            let x: Vec<T> = values(cols, seed + 2);
            for v in vector_sizes() {
                let lanes = resolve(v, nnz, rows);
                let ctx = format!(
                    "{} {rows}x{cols} {pattern} nnz={nnz} vector={v:?} ({lanes} lanes)",
                    T::KIND.name()
                );
                let a = ok(&ctx, Csr::new(b, rows, cols, &offsets, &col_idx, &a_vals))?;
                let xb = ok(&ctx, b.upload(&x))?;
                let mut y = ok(&ctx, b.alloc::<T>(rows))?;
                ok(&ctx, b.spmv(&a, &xb, &mut y, v))?;
                let got = ok(&ctx, b.download(&y))?;
                let want = reference::spmv(&offsets, &col_idx, &a_vals, &x, lanes);
                same_elems(&ctx, "row", &want, &got)?;
            }
        }
    }
    Ok(())
}

pub fn spmv<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(spmv_typed(b, scale));
    Ok(())
}
