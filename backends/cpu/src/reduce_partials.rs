//! Levels of the device reduce's tree, for wavekit-dist's sharded reduce: a rank's partials in
//! the accumulator type, and the fold of the gathered partials rounded once. The CPU side of
//! `GpuBackend::reduce_partials_into` / `reduce_acc_into` (the device_reduce_partials and
//! device_reduce_acc launchers).

use crate::{CpuBackend, CpuBuffer, device_reduce, half, order_free};
use wavekit_core::api::{check_reduce_acc, check_reduce_partials};
use wavekit_core::canonical::REDUCE_TILE;
use wavekit_core::{DeviceBuffer, Element, ReduceOp, Result};

impl CpuBackend {
    /// `out[c]` = `reduce` of the chunk `input[c * REDUCE_TILE^levels ..]` of
    /// `REDUCE_TILE^levels` elements (the last may be short) before its rounding, in the
    /// accumulator type (`f32` for `f16` / `bf16`, the type itself otherwise): level `levels`
    /// (1..=4) of the device reduce's tree (docs/SEMANTICS.md "device_reduce", step 4).
    ///
    /// ```
    /// use wavekit::prelude::*;
    /// use wavekit::canonical::REDUCE_TILE;
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// // Two tiles of 16-bit ones: each partial is its tile's sum in f32, not rounded.
    /// let input = cpu.upload(&vec![f16::ONE; REDUCE_TILE + 3])?;
    /// let mut parts = cpu.alloc::<f32>(2)?;
    /// cpu.reduce_partials_into(&input, ReduceOp::Sum, 1, &mut parts)?;
    /// assert_eq!(parts.as_slice(), [REDUCE_TILE as f32, 3.0]);
    /// // The levels above them, rounded once: the device reduce of the whole input.
    /// let mut sum = cpu.alloc::<f16>(1)?;
    /// cpu.reduce_acc_into(&parts, ReduceOp::Sum, &mut sum)?;
    /// assert_eq!(sum.as_slice()[0], cpu.reduce(&input, ReduceOp::Sum)?);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedOp` (a bitwise op on floats), `EmptyInput`, `IndexOutOfRange` for `levels`
    /// outside 1..=4, `LengthMismatch` when `out` does not have one slot a chunk,
    /// `ForeignBuffer` for a buffer moved out of its view. Nothing is written on error.
    pub fn reduce_partials_into<T: Element>(
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
    /// [`CpuBackend::reduce_partials_into`] gives for consecutive chunks of an array, in order,
    /// `reduce` of that array, bit for bit.
    ///
    /// # Errors
    /// `UnsupportedOp`, `EmptyInput`, `LengthMismatch` when `out` is not one element,
    /// `ForeignBuffer`. Nothing is written on error.
    pub fn reduce_acc_into<T: Element>(
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
