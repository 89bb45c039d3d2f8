//! The butterfly over the rows of a matrix, column by column, in place (the `reduce_rows`
//! launcher, csrc/kernels/reduce_rows.cu; `SliceDevice::reduce_rows_in_place` on this backend):
//! wavekit-dist's reproducible allreduce folds the chunks an all-to-all gathered from every
//! rank with it.

use crate::backend::GpuBackend;
use crate::buffer::GpuBuffer;
use crate::ffi::kind;
use crate::queue::Reports;
use crate::runtime::GpuRuntime;
use wavekit_core::ReduceOp;
use wavekit_core::api::check_reduce_rows;
use wavekit_core::element::Element;
use wavekit_core::error::Result;

/// The most rows one butterfly over rows folds on this backend
/// (`SliceDevice::reduce_rows_in_place`, `RawSliceDevice::MAX_REDUCE_ROWS`): the kernel's limit.
pub const MAX_REDUCE_ROWS: usize = 32;

impl<R: GpuRuntime> GpuBackend<R> {
    /// `rows` holds `r` rows of `rows.len() / r` elements; row `dst` becomes, at every column
    /// j, the canonical butterfly over the rows' values there (docs/SEMANTICS.md "bfly" and
    /// "dist_all_reduce": padded with the identity to the next power of two, j combined with
    /// j + Q/2 first), queued on the stream. The other rows are left as they were. Checked
    /// again here.
    ///
    /// # Errors
    /// `UnsupportedOp` (a bitwise op on floats), `IndexOutOfRange` for `r` outside
    /// 1..=[`MAX_REDUCE_ROWS`] or `dst >= r`, `LengthMismatch` when the length is not a multiple
    /// of `r`, `ForeignBuffer`, `Device`. Nothing is written on error.
    pub(crate) fn reduce_rows<T: Element>(
        &self,
        rows: &mut GpuBuffer<T, R>,
        r: usize,
        dst: usize,
        op: ReduceOp,
    ) -> Result<()> {
        let m = check_reduce_rows::<T>(op, rows.len, r, dst, MAX_REDUCE_ROWS)?;
        self.own(rows)?;
        let mut work = self.lock();
        self.launch(&mut work, "reduce_rows", Reports::Nothing, |k, _| {
            k.reduce_rows(
                kind::<T>(),
                op as u32,
                self.output(rows)?,
                m as u64,
                r as u32,
                dst as u32,
            )
        })
    }
}
