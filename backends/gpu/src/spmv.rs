//! CSR SpMV on a GPU (`RawBackend::raw_spmv`, which imp.rs hands here): every length checked
//! again; the column indices are checked by the kernels, which report the first bad one.

use super::backend::{GpuBackend, Reports};
use super::buffer::GpuBuffer;
use super::ffi::{self, cptr, dptr, kind};
use super::runtime::GpuRuntime;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::Result;

impl<R: GpuRuntime> GpuBackend<R> {
    /// What `RawBackend::raw_spmv` does on this backend.
    pub(crate) fn spmv_enqueue<T: Element>(
        &self,
        row_offsets: &GpuBuffer<u32, R>,
        cols: &GpuBuffer<u32, R>,
        vals: &GpuBuffer<T, R>,
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
        let mut work = self.lock();
        self.rt.make_current()?;
        let nnz = cols.len;
        let bytes = self.scratch_bytes(ffi::ALGO_SPMV, T::KIND, nnz);
        let scratch = self.ensure_pool(&mut work, bytes)?;
        let reports = Reports::Index {
            what: "SpMV column",
            limit: x.len as u64,
        };
        self.launch(&mut work, "spmv", reports, |s, st| unsafe {
            (self.table.spmv_balanced)(
                s,
                st,
                kind::<T>(),
                cptr(row_offsets.device_ptr()),
                cptr(cols.device_ptr()),
                cptr(vals.device_ptr()),
                cptr(x.device_ptr()),
                x.len as u64,
                y.len as u64,
                nnz as u64,
                vector,
                dptr(scratch),
                bytes,
                dptr(y.device_ptr()),
            )
        })
    }
}
