//! The butterfly over the rows of a matrix, column by column, in place
//! (`SliceDevice::reduce_rows_in_place` on this backend; the GPU's is csrc/kernels/reduce_rows.cu),
//! with which wavekit-dist's reproducible allreduce folds the chunks an all-to-all gathered
//! from every rank.

use crate::combine::bfly;
use crate::{CpuBackend, CpuBuffer};
use wavekit_core::api::check_reduce_rows;
use wavekit_core::{DeviceBuffer, Element, ReduceOp, Result};

impl CpuBackend {
    /// `rows` holds `r` rows of `rows.len() / r` elements; row `dst` becomes, at every column
    /// j, the canonical butterfly over the rows' values there (docs/SEMANTICS.md "bfly" and
    /// "dist_all_reduce": padded with the identity to the next power of two). The other rows
    /// are left as they were. Any number of rows; checked again here (`ForeignBuffer` too),
    /// nothing written on error.
    pub(crate) fn reduce_rows<T: Element>(
        &self,
        rows: &mut CpuBuffer<T>,
        r: usize,
        dst: usize,
        op: ReduceOp,
    ) -> Result<()> {
        let m = check_reduce_rows::<T>(op, rows.len(), r, dst, usize::MAX)?;
        let data = rows.data_mut()?;
        // Past the rows the identity, which combines exactly. bfly writes only below half the
        // padded length, which is below r: the padding stays the identity from column to
        // column.
        // In the accumulator type (f32 for the 16-bit floats), each result rounded once.
        let mut column = wavekit_core::host::filled(r.next_power_of_two(), T::Acc::identity(op))?;
        for j in 0..m {
            for (k, v) in column.iter_mut().take(r).enumerate() {
                *v = data[k * m + j].to_acc();
            }
            data[dst * m + j] = T::from_acc(bfly(&mut column, |a, b| T::Acc::combine(op, a, b)));
        }
        Ok(())
    }
}
