//! Levels of the device reduce's tree, for wavekit-dist's sharded reduce: a rank's partials in
//! the accumulator type, and the fold of the gathered partials rounded once
//! (`SliceDevice::reduce_partials_into` / `reduce_acc_into` on this backend; the GPU's are the
//! device_reduce_partials and device_reduce_acc launchers).

use crate::{CpuBackend, CpuBuffer, device_reduce, half, order_free};
use wavekit_core::api::{check_reduce_acc, check_reduce_partials};
use wavekit_core::canonical::REDUCE_TILE;
use wavekit_core::{DeviceBuffer, Element, ReduceOp, Result};

impl CpuBackend {
    /// `out[c]` = `reduce` of the chunk `input[c * REDUCE_TILE^levels ..]` of
    /// `REDUCE_TILE^levels` elements (the last may be short) before its rounding, in the
    /// accumulator type (`f32` for `f16` / `bf16`, the type itself otherwise): level `levels`
    /// (1..=4) of the device reduce's tree (docs/SEMANTICS.md "device_reduce", step 4).
    /// Checked again here.
    ///
    /// # Errors
    /// `UnsupportedOp` (a bitwise op on floats), `EmptyInput`, `IndexOutOfRange` for `levels`
    /// outside 1..=4, `LengthMismatch` when `out` does not have one slot a chunk,
    /// `ForeignBuffer` for a buffer moved out of its view. Nothing is written on error.
    pub(crate) fn reduce_partials<T: Element>(
        &self,
        input: &CpuBuffer<T>,
        op: ReduceOp,
        levels: u32,
        out: &mut CpuBuffer<T::Acc>,
    ) -> Result<()> {
        check_reduce_partials::<T>(op, input.len(), levels, out.len())?;
        let chunk = REDUCE_TILE.pow(levels);
        let vals = input.data()?;
        for (c, slot) in vals.chunks(chunk).zip(out.data_mut()?) {
            *slot = match order_free::reduce(c, op) {
                // Min and Max select an element: exact in any type.
                Some(r) => r.to_acc(),
                None if T::KIND.is_half() => half::reduce_wide(c, op, &self.wide, &self.scratch)?,
                None => device_reduce::device(c, op, &self.scratch)?.to_acc(),
            };
        }
        Ok(())
    }

    /// `out` (one element) = the reduce of `input`, values of `T`'s accumulator type, as the
    /// levels of the device reduce's tree above them, rounded to `T` once: of the partials
    /// [`CpuBackend::reduce_partials`] gives for consecutive chunks of an array, in order,
    /// `reduce` of that array, bit for bit.
    ///
    /// # Errors
    /// `UnsupportedOp`, `EmptyInput`, `LengthMismatch` when `out` is not one element,
    /// `ForeignBuffer`. Nothing is written on error.
    pub(crate) fn reduce_acc<T: Element>(
        &self,
        input: &CpuBuffer<T::Acc>,
        op: ReduceOp,
        out: &mut CpuBuffer<T>,
    ) -> Result<()> {
        check_reduce_acc::<T>(op, input.len(), out.len())?;
        let v = device_reduce::device(input.data()?, op, &self.scratch)?;
        out.data_mut()?[0] = T::from_acc(v);
        Ok(())
    }
}
