//! SpMV: the validated CSR matrix ([`Csr`]) and the checks of `spmv`.

use super::VectorSize;
use super::check_len;
use super::segmented_reduce::{check_offsets, check_u32_len, resolve_vector};
use crate::backend::{Backend, DeviceBuffer};
use crate::element::Element;
use crate::error::{Result, WavekitError};
use crate::raw::{RawBackend, Validated};

/// A CSR matrix validated on the host and kept on the device, with what the backend derives
/// from its row offsets once for every later `spmv` (the GPU backends: how its nonzeros are
/// split between blocks, as cuSPARSE's SpMV preprocessing) and its longest row, counted on the
/// host, by which a backend may pick its kernel.
pub struct Csr<B: Backend, T: Element> {
    rows: usize,
    cols: usize,
    row_offsets: B::Buffer<u32>,
    col_idx: B::Buffer<u32>,
    vals: B::Buffer<T>,
    plan: Option<B::Buffer<u64>>,
    nnz: usize,
    longest_row: usize,
}

impl<B: Backend, T: Element> std::fmt::Debug for Csr<B, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Csr")
            .field("rows", &self.rows)
            .field("cols", &self.cols)
            .field("nnz", &self.nnz)
            .field("row_offsets", &self.row_offsets)
            .field("col_idx", &self.col_idx)
            .field("vals", &self.vals)
            .field("plan", &self.plan)
            .field("longest_row", &self.longest_row)
            .finish()
    }
}

impl<B: RawBackend, T: Element> Csr<B, T> {
    /// Checks a CSR matrix (`rows + 1` monotone row offsets ending at the nonzero count, one value per column index, every column below `cols`), uploads it and lets the backend prepare its SpMV launches (once, here, not on every `spmv`).
    ///
    /// # Errors
    /// `TooLarge` for `rows == usize::MAX` or more than `u32::MAX` nonzeros; `LengthMismatch` for
    /// row offsets other than `rows + 1` or values other than one per column index;
    /// `InvalidOffsets`; `ColumnOutOfRange` naming the first bad column index; `OutOfMemory` or a
    /// backend's `Device` error uploading.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// // [[2, 0, 1],
    /// //  [0, 0, 0],
    /// //  [0, 3, 0]]
    /// let a = Csr::new(&cpu, 3, 3, &[0, 2, 2, 3], &[0, 2, 1], &[2.0f64, 1.0, 3.0])?;
    /// assert_eq!((a.rows(), a.cols(), a.nnz()), (3, 3, 3));
    /// // A column index past the matrix is refused before anything is uploaded.
    /// let bad = Csr::new(&cpu, 3, 3, &[0, 2, 2, 3], &[0, 3, 1], &[2.0f64, 1.0, 3.0]);
    /// assert!(matches!(bad, Err(WavekitError::ColumnOutOfRange { index: 1, col: 3, .. })));
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    pub fn new(
        backend: &B,
        rows: usize,
        cols: usize,
        row_offsets: &[u32],
        col_idx: &[u32],
        vals: &[T],
    ) -> Result<Self> {
        let offsets = rows.checked_add(1).ok_or(WavekitError::TooLarge {
            what: "CSR rows",
            value: rows as u64,
            limit: u32::MAX as u64,
        })?;
        check_len("CSR row offsets (rows + 1)", offsets, row_offsets.len())?;
        check_len(
            "CSR values (one per column index)",
            col_idx.len(),
            vals.len(),
        )?;
        check_u32_len("CSR nonzeros", col_idx.len())?;
        check_offsets(row_offsets, col_idx.len())?;
        if let Some((index, &col)) = col_idx
            .iter()
            .enumerate()
            .find(|&(_, &c)| c as usize >= cols)
        {
            return Err(WavekitError::ColumnOutOfRange {
                index,
                col: col as u64,
                cols,
            });
        }
        // Offsets checked monotone above.
        let longest_row = row_offsets
            .windows(2)
            .map(|w| (w[1] - w[0]) as usize)
            .max()
            .unwrap_or(0);
        let offsets = backend.upload(row_offsets)?;
        let plan = backend.raw_spmv_plan(Validated::new(), &offsets, col_idx.len())?;
        Ok(Csr {
            rows,
            cols,
            row_offsets: offsets,
            col_idx: backend.upload(col_idx)?,
            vals: backend.upload(vals)?,
            plan,
            nnz: col_idx.len(),
            longest_row,
        })
    }
}

impl<B: Backend, T: Element> Csr<B, T> {
    /// Nonzero entries.
    pub fn nnz(&self) -> usize {
        self.nnz
    }

    /// Rows: the length of `y` in `spmv`.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns: the length of `x` in `spmv`.
    pub fn cols(&self) -> usize {
        self.cols
    }
}

pub(crate) fn spmv<B: RawBackend, T: Element>(
    b: &B,
    a: &Csr<B, T>,
    x: &B::Buffer<T>,
    y: &mut B::Buffer<T>,
    vector: VectorSize,
) -> Result<()> {
    check_len("SpMV x (matrix columns)", a.cols, x.len())?;
    check_len("SpMV y (matrix rows)", a.rows, y.len())?;
    let v = resolve_vector(vector, a.nnz, a.rows)?;
    if a.rows == 0 {
        return Ok(());
    }
    match &a.plan {
        Some(plan) => b.raw_spmv_planned(
            Validated::new(),
            &a.row_offsets,
            &a.col_idx,
            &a.vals,
            plan,
            a.longest_row,
            x,
            y,
            v,
        ),
        None => b.raw_spmv(
            Validated::new(),
            &a.row_offsets,
            &a.col_idx,
            &a.vals,
            x,
            y,
            v,
        ),
    }
}
