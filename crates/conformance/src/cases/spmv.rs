//! spmv: CSR matrices with regular, irregular, empty and long rows, every vector size and
//! `VectorSize::Auto`; malformed matrices and vectors of the wrong length refused; the GPU
//! launchers' load-balanced path over many nonzero chunks (`spmv_balanced`).

use crate::Scale;
use crate::check::{expect_err, ok, same_elems};
use crate::inputs::{pick, values, vector_sizes};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::element::{Element, splitmix};
use wavekit_core::error::WavekitError as E;
use wavekit_core::{Collectives, Csr, VectorSize};

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
                let lanes = reference::resolve_vector(v, nnz, rows);
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
    each_half!(spmv_typed(b, scale));
    Ok(())
}

pub fn err_csr<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let v = [1.0f32, 2.0, 3.0];
    let csr = |rows, cols, offs: &[u32], idx: &[u32], vals: &[f32]| {
        Csr::new(b, rows, cols, offs, idx, vals).map(drop)
    };
    expect_err!(
        "column 4 of 4",
        csr(2, 4, &[0, 1, 3], &[0, 4, 1], &v),
        E::ColumnOutOfRange {
            index: 1,
            col: 4,
            cols: 4
        }
    )?;
    expect_err!(
        "row offsets too short",
        csr(3, 4, &[0, 1, 3], &[0, 1, 2], &v),
        E::LengthMismatch {
            expected: 4,
            got: 3,
            ..
        }
    )?;
    expect_err!(
        "fewer values than columns",
        csr(2, 4, &[0, 1, 3], &[0, 1, 2], &v[..2]),
        E::LengthMismatch { .. }
    )?;
    expect_err!(
        "row offsets past nnz",
        csr(2, 4, &[0, 1, 4], &[0, 1, 2], &v),
        E::InvalidOffsets { .. }
    )?;
    expect_err!(
        "row offsets decreasing",
        csr(2, 4, &[0, 2, 1], &[0, 1, 2], &v),
        E::InvalidOffsets { .. }
    )?;
    let a = ok("csr", Csr::new(b, 2, 4, &[0, 1, 3], &[0, 3, 1], &v))?;
    let x_short = ok("upload", b.upload(&[1.0f32; 3]))?;
    let x = ok("upload", b.upload(&[1.0f32; 4]))?;
    let mut y = ok("alloc", b.alloc::<f32>(2))?;
    let mut y_long = ok("alloc", b.alloc::<f32>(3))?;
    expect_err!(
        "x shorter than cols",
        b.spmv(&a, &x_short, &mut y, VectorSize::Auto),
        E::LengthMismatch {
            expected: 4,
            got: 3,
            ..
        }
    )?;
    expect_err!(
        "y longer than rows",
        b.spmv(&a, &x, &mut y_long, VectorSize::Auto),
        E::LengthMismatch {
            expected: 2,
            got: 3,
            ..
        }
    )
}

/// A bad last element: a CSR matrix whose last column index is out of range is refused at
/// `Csr::new`; an `x` one short or a `y` one long is refused with `y` left as it was.
pub fn err_spmv_untouched<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let (rows, cols) = (40usize, 33usize);
    let (offsets, mut col_idx) = csr_shape(rows, cols, "irregular", 7);
    let vals: Vec<f64> = values(col_idx.len(), 8);
    let last = col_idx.len() - 1;
    col_idx[last] = cols as u32;
    expect_err!(
        "last column index past the columns",
        Csr::new(b, rows, cols, &offsets, &col_idx, &vals).map(drop),
        E::ColumnOutOfRange { index, col, cols: c } if *index == last && *col == cols as u64 && *c == cols
    )?;
    col_idx[last] = cols as u32 - 1;
    let a = ok("csr", Csr::new(b, rows, cols, &offsets, &col_idx, &vals))?;
    for (x_len, y_len) in [(cols - 1, rows), (cols, rows + 1), (cols + 1, rows - 1)] {
        let ctx = format!("spmv {rows}x{cols} with x of {x_len}, y of {y_len}");
        let x = ok("upload", b.upload(&values::<f64>(x_len, 9)))?;
        let before: Vec<f64> = values(y_len, 10);
        let mut y = ok("upload", b.upload(&before))?;
        expect_err!(
            ctx,
            b.spmv(&a, &x, &mut y, VectorSize::Auto),
            E::LengthMismatch { .. }
        )?;
        let after = ok("download", b.download(&y))?;
        same_elems(&ctx, "untouched y element", &before, &after)?;
    }
    Ok(())
}

// Inputs for the GPU launchers' load-balanced path, which the small cases never reach: many
// nonzero chunks, rows far longer than a block's shared window, runs of empty rows and a row
// ending exactly on a chunk boundary.

/// Row lengths: mostly short, every 97th row long (up to `long`), runs of empty rows, one run
/// of 3000 empty rows halfway (more rows starting in one chunk than a block stages in shared
/// memory), and one row that ends at nonzero `boundary` exactly (a chunk edge of the balanced
/// launcher).
fn skewed_rows(nnz: usize, long: usize, boundary: usize, seed: u64) -> Vec<u32> {
    let mut offsets = vec![0u32];
    let mut end = 0usize;
    let mut r = 0u64;
    let mut empty_run = true;
    while end < nnz {
        if empty_run && end >= nnz / 2 {
            offsets.extend(std::iter::repeat_n(end as u32, 3000));
            empty_run = false;
        }
        let x = splitmix(seed ^ r << 8);
        let mut len = match r % 97 {
            0 => long / 2 + (x % (long as u64 / 2 + 1)) as usize,
            5..=9 => 0,
            _ => (x % 24) as usize,
        };
        if end < boundary && end + len > boundary {
            len = boundary - end;
        }
        end = (end + len).min(nnz);
        offsets.push(end as u32);
        r += 1;
    }
    offsets
}

fn spmv_balanced_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    // (nonzeros, longest rows): past the 4096-product window at full scale, and many chunks.
    let shapes = pick(
        scale,
        &[(30_000usize, 9_000usize), (200_000, 20_000)],
        &[(12_000usize, 9_000usize)],
    );
    for &(nnz, long) in &shapes {
        let offsets = skewed_rows(nnz, long, 2048, nnz as u64);
        let rows = offsets.len() - 1;
        let cols = rows.max(1);
        let col_idx: Vec<u32> = (0..nnz as u64)
            .map(|k| (splitmix(k ^ 0xBA1) % cols as u64) as u32)
            .collect();
        let a_vals: Vec<T> = values(nnz, nnz as u64 + 1);
        let x: Vec<T> = values(cols, nnz as u64 + 2);
        let a = ok("csr", Csr::new(b, rows, cols, &offsets, &col_idx, &a_vals))?;
        let xb = ok("x", b.upload(&x))?;
        for lanes in pick(scale, &[1u32, 4, 16, 32], &[1u32, 16]) {
            let ctx = format!("{} {rows} rows nnz={nnz} vector={lanes}", T::KIND.name());
            let mut y = ok(&ctx, b.alloc::<T>(rows))?;
            ok(&ctx, b.spmv(&a, &xb, &mut y, VectorSize::Lanes(lanes)))?;
            let got = ok(&ctx, b.download(&y))?;
            let want = reference::spmv(&offsets, &col_idx, &a_vals, &x, lanes);
            same_elems(&ctx, "row", &want, &got)?;
        }
    }
    Ok(())
}

/// SpMV on rows longer than a block's window, over many chunks (f32, i32 and f64).
pub fn spmv_balanced<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    spmv_balanced_typed::<f32, B>(b, scale)?;
    spmv_balanced_typed::<i32, B>(b, scale)?;
    spmv_balanced_typed::<f64, B>(b, scale)
}
