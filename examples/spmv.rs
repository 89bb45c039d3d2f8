//! Sparse matrix times vector on the CPU backend: build a small CSR matrix from a dense one,
//! compute y = A x with wavekit at several vector widths, and check it against a dense product.
//!
//! ```sh
//! cargo run --example spmv
//! ```
//!
//! CSR: `row_offsets[r]..row_offsets[r + 1]` are the nonzeros of row r, `col_idx` their columns,
//! `vals` their values. `Csr::new` checks all of it (monotone offsets, columns in range, one value
//! per column) before anything is uploaded. Each row is reduced by `VectorSize` lanes (seed 001's
//! vector kernel); `Auto` picks it from the mean row length. The entries here are small integers,
//! so every product and sum is exact and the results must equal the dense product bit for bit.

use std::process::ExitCode;
use wavekit::prelude::*;

fn main() -> ExitCode {
    match run() {
        Ok(0) => {
            println!("spmv: every result matches");
            ExitCode::SUCCESS
        }
        Ok(bad) => {
            eprintln!("spmv: {bad} mismatches");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("spmv: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The CSR arrays of a dense matrix: row offsets, column indices, values.
fn to_csr(dense: &[Vec<f64>]) -> (Vec<u32>, Vec<u32>, Vec<f64>) {
    let (mut offsets, mut cols, mut vals) = (vec![0u32], vec![], vec![]);
    for row in dense {
        for (c, &v) in row.iter().enumerate() {
            if v != 0.0 {
                cols.push(c as u32);
                vals.push(v);
            }
        }
        offsets.push(cols.len() as u32);
    }
    (offsets, cols, vals)
}

fn run() -> Result<usize> {
    let cpu = CpuBackend::new(WarpWidth::W32);

    // 6 x 8, with an empty row (row 3) and a long one (row 5).
    let dense: Vec<Vec<f64>> = vec![
        vec![4.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        vec![-1.0, 4.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        vec![0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0, 0.0],
        vec![0.0; 8],
        vec![0.0, 0.0, 0.0, 0.0, 5.0, 0.0, 0.0, -2.0],
        vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
    ];
    let (rows, cols) = (dense.len(), dense[0].len());
    let (row_offsets, col_idx, vals) = to_csr(&dense);
    println!("A is {rows} x {cols} with {} nonzeros", vals.len());
    println!("  row_offsets {row_offsets:?}");
    println!("  col_idx     {col_idx:?}");
    println!("  vals        {vals:?}");

    let a = Csr::new(&cpu, rows, cols, &row_offsets, &col_idx, &vals)?;
    let x_host: Vec<f64> = (1..=cols).map(|i| i as f64).collect();
    let x = cpu.upload(&x_host)?;
    let want: Vec<f64> = dense
        .iter()
        .map(|row| row.iter().zip(&x_host).map(|(a, x)| a * x).sum())
        .collect();
    println!("x          = {x_host:?}");
    println!("dense A x  = {want:?}");

    let mut bad = 0;
    let mut y = cpu.alloc::<f64>(rows)?;
    for vector in [
        VectorSize::Auto,
        VectorSize::Lanes(1),
        VectorSize::Lanes(4),
        VectorSize::Lanes(32),
    ] {
        cpu.spmv(&a, &x, &mut y, vector)?;
        let got = cpu.download(&y)?;
        let ok = got == want;
        println!(
            "{:<4} y = A x, {vector:?}: {got:?}",
            if ok { "ok" } else { "FAIL" }
        );
        bad += usize::from(!ok);
    }

    // A malformed matrix is refused with the reason, before anything is uploaded.
    let wrong = Csr::new(&cpu, rows, cols, &row_offsets, &col_idx, &vals[1..]);
    let refused = matches!(wrong, Err(WavekitError::LengthMismatch { .. }));
    println!(
        "{:<4} a value missing: {}",
        if refused { "ok" } else { "FAIL" },
        wrong
            .err()
            .map_or("accepted".to_string(), |e| e.to_string())
    );
    bad += usize::from(!refused);
    Ok(bad)
}
