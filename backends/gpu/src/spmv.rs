//! CSR SpMV on a GPU (`RawBackend::raw_spmv`, `raw_spmv_plan` and `raw_spmv_planned`, which
//! raw_backend.rs hands here): every length checked again; the column indices are checked by the
//! kernels, which report the first bad one.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::ffi::{self, kind};
use super::queue::Reports;
use super::runtime::GpuRuntime;
use wavekit_core::Backend;
use wavekit_core::api::check_len;
use wavekit_core::element::{ElemKind, Element};
use wavekit_core::error::{Result, WavekitError};

impl<R: GpuRuntime> GpuBackend<R> {
    /// What `RawBackend::raw_spmv_plan` does on this backend: the first row of each chunk of
    /// the merge path (rows and nonzeros together, a word for every 256 or fewer), where the
    /// launcher of `raw_spmv` derives chunks of nonzeros into its scratch on every call. Waited
    /// for, as an upload is, so the matrix is whole when `Csr::new` returns; the wait reports no
    /// error of earlier queued work (that stays for the next synchronisation).
    pub(crate) fn spmv_plan(
        &self,
        row_offsets: &GpuBuffer<u32, R>,
        nnz: usize,
    ) -> Result<Option<GpuBuffer<u64, R>>> {
        self.own(row_offsets)?;
        let rows = row_offsets.len.saturating_sub(1);
        // The merge path's chunks count rows and nonzeros together.
        let bytes = self.scratch_bytes(ffi::ALGO_SPMV, ElemKind::U32, nnz.saturating_add(rows));
        if rows == 0 || bytes == 0 {
            return Ok(None);
        }
        let words =
            usize::try_from(bytes.div_ceil(8)).map_err(|_| WavekitError::OutOfMemory { bytes })?;
        let mut plan = self.alloc::<u64>(words)?;
        let mut work = self.lock();
        self.launch(&mut work, "spmv_plan", Reports::Nothing, |k, _| {
            k.spmv_plan(
                self.input(row_offsets)?,
                rows as u64,
                nnz as u64,
                self.output(&mut plan)?,
                bytes,
            )
        })?;
        drop(work);
        // The stream only, not the status words: an error an earlier call queued stays pending
        // for the caller's next synchronisation, as around an upload.
        self.rt.synchronize()?;
        Ok(Some(plan))
    }

    /// What `RawBackend::raw_spmv` (`plan` None) and `raw_spmv_planned` do on this backend.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn spmv_enqueue<T: Element>(
        &self,
        row_offsets: &GpuBuffer<u32, R>,
        cols: &GpuBuffer<u32, R>,
        vals: &GpuBuffer<T, R>,
        plan: Option<(&GpuBuffer<u64, R>, usize)>,
        x: &GpuBuffer<T, R>,
        y: &mut GpuBuffer<T, R>,
        vector: u32,
    ) -> Result<()> {
        self.own(row_offsets)?;
        self.own(cols)?;
        self.own(vals)?;
        self.own(x)?;
        self.own(y)?;
        // One offset per row and one past; one value per column index. The column indices
        // themselves are checked against x's length by the kernels, which report the first
        // bad one through the status word (an error at the next synchronisation).
        check_len(
            "SpMV row offsets (rows + 1)",
            y.len.saturating_add(1),
            row_offsets.len,
        )?;
        check_len("SpMV values (one per column index)", cols.len, vals.len)?;
        if let Some((plan, longest_row)) = plan {
            self.own(plan)?;
            return self.spmv_planned(row_offsets, cols, vals, (plan, longest_row), x, y, vector);
        }
        let mut work = self.lock();
        self.rt.make_current()?;
        let nnz = cols.len;
        let bytes = self.scratch_bytes(ffi::ALGO_SPMV, T::KIND, nnz);
        let reports = Reports::Index {
            what: "SpMV column",
            limit: x.len as u64,
        };
        self.launch(&mut work, "spmv", reports, |k, pools| {
            k.spmv_balanced(
                kind::<T>(),
                self.input(row_offsets)?,
                self.input(cols)?,
                self.input(vals)?,
                self.input(x)?,
                x.len as u64,
                y.len as u64,
                nnz as u64,
                vector,
                self.ensure_pool(pools, bytes)?,
                bytes,
                self.output(y)?,
            )
        })
    }

    /// The launch of `spmv_enqueue` over a plan of `spmv_plan` and the matrix's longest row
    /// (lengths already checked).
    #[allow(clippy::too_many_arguments)]
    fn spmv_planned<T: Element>(
        &self,
        row_offsets: &GpuBuffer<u32, R>,
        cols: &GpuBuffer<u32, R>,
        vals: &GpuBuffer<T, R>,
        (plan, longest_row): (&GpuBuffer<u64, R>, usize),
        x: &GpuBuffer<T, R>,
        y: &mut GpuBuffer<T, R>,
        vector: u32,
    ) -> Result<()> {
        let mut work = self.lock();
        let reports = Reports::Index {
            what: "SpMV column",
            limit: x.len as u64,
        };
        let plan_bytes = (plan.len as u64).saturating_mul(8);
        // The plan is one spmv_plan wrote for this matrix (the raw API takes it from the
        // validated `Csr` that made it); one of another matrix would cost bits, not safety:
        // rows are clamped (launchers.def).
        self.launch(&mut work, "spmv", reports, |k, _| {
            k.spmv_planned(
                kind::<T>(),
                self.input(row_offsets)?,
                self.input(cols)?,
                self.input(vals)?,
                self.input(x)?,
                x.len as u64,
                y.len as u64,
                cols.len as u64,
                vector,
                self.input(plan)?,
                plan_bytes,
                longest_row as u64,
                self.output(y)?,
            )
        })
    }
}
