//! Levels of the device reduce's tree on this backend, for wavekit-dist's sharded reduce
//! (`SliceDevice::reduce_partials_into` / `reduce_acc_into`): a rank's partials in the
//! accumulator type (the device_reduce_partials launcher), and the fold of the gathered
//! partials rounded once (device_reduce_acc), both with the device reduce's own scratch.

use crate::backend::GpuBackend;
use crate::buffer::GpuBuffer;
use crate::ffi::kind;
use crate::queue::Reports;
use crate::runtime::GpuRuntime;
use wavekit_core::ReduceOp;
use wavekit_core::api::{check_reduce_acc, check_reduce_partials};
use wavekit_core::element::Element;
use wavekit_core::error::Result;

impl<R: GpuRuntime> GpuBackend<R> {
    /// Level `levels` (1 ..= 4) of `reduce`'s tree over `input` (docs/SEMANTICS.md
    /// "device_reduce", step 4): `out[c]` is `reduce` of the chunk
    /// `input[c * REDUCE_TILE^levels ..]` of `REDUCE_TILE^levels` elements (the last may be
    /// short) before its rounding, in the accumulator type (`f32` for `f16` / `bf16`, the type
    /// itself otherwise), bit for bit, for `out.len() = ceil(input.len() / REDUCE_TILE^levels)`
    /// chunks, all from one launch on the stream (`SliceDevice::reduce_partials_into` on this
    /// backend, checked again here). wavekit-dist's sharded reduce takes a rank's partials this
    /// way instead of a launch per chunk, and folds them with [`GpuBackend::reduce_acc_enqueue`].
    ///
    /// # Errors
    /// `UnsupportedOp` (a bitwise op on floats), `EmptyInput`, `IndexOutOfRange` for `levels`
    /// outside 1..=4, `LengthMismatch` when `out` does not have one slot a chunk,
    /// `ForeignBuffer`, `OutOfMemory`, `Device`. Nothing is written on error.
    pub(crate) fn reduce_partials_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        op: ReduceOp,
        levels: u32,
        out: &mut GpuBuffer<T::Acc, R>,
    ) -> Result<()> {
        check_reduce_partials::<T>(op, input.len, levels, out.len)?;
        self.own(input)?;
        self.own(out)?;
        self.reduce_levels_enqueue(input, op, levels, out)
    }

    /// The levels of `reduce`'s tree above partials: `out` (one element) is the reduce of
    /// `input`, values of `T`'s accumulator type, as the tree's levels above them, rounded to
    /// `T` once (`SliceDevice::reduce_acc_into` on this backend, checked again here). Of the
    /// partials [`GpuBackend::reduce_partials_enqueue`] gives for consecutive chunks of an
    /// array, in order, it is `reduce` of that array, bit for bit.
    ///
    /// # Errors
    /// `UnsupportedOp`, `EmptyInput`, `LengthMismatch` when `out` is not one element,
    /// `ForeignBuffer`, `OutOfMemory`, `Device`. Nothing is written on error.
    pub(crate) fn reduce_acc_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T::Acc, R>,
        op: ReduceOp,
        out: &mut GpuBuffer<T, R>,
    ) -> Result<()> {
        check_reduce_acc::<T>(op, input.len, out.len)?;
        self.own(input)?;
        self.own(out)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = input.len;
        // The launcher does not pass the status word to its kernels.
        self.launch(
            &mut work,
            "device_reduce_acc",
            Reports::Nothing,
            |k, pools| {
                let scratch = self.reduce_scratch::<T::Acc>(pools, n)?;
                let bytes = scratch.bytes();
                k.device_reduce_acc(
                    kind::<T>(),
                    op as u32,
                    self.input(input)?,
                    n as u64,
                    scratch,
                    bytes,
                    self.output(out)?,
                )
            },
        )
    }
}
