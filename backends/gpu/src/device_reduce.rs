//! The reductions on a GPU: per-block, whole-device and segmented (`RawBackend::raw_block_reduce`,
//! `raw_device_reduce`, `raw_segmented_reduce`, which imp.rs hands here): every length checked
//! again against the buffers, the launcher enqueued on the stream with the caller's output.

use super::backend::{GpuBackend, Reports};
use super::buffer::GpuBuffer;
use super::ffi::{cptr, dptr, kind};
use super::runtime::{DevPtr, GpuRuntime};
use wavekit_core::api::{check_len, check_reduce_acc, check_reduce_partials};
use wavekit_core::canonical::MAX_BLOCK;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::width::LOGICAL_GROUP;
use wavekit_core::{ReduceOp, SegmentSpec};

impl<R: GpuRuntime> GpuBackend<R> {
    /// A segment spec as the segmented launchers take it: the offsets' device address (0 for
    /// fixed segments, whose size comes second), the segment count and the vector size. The
    /// offsets are checked to be this backend's and `count + 1` long.
    pub(crate) fn segment_args(
        &self,
        segments: SegmentSpec<'_, GpuBuffer<u32, R>>,
    ) -> Result<(DevPtr, u64, usize, u32)> {
        Ok(match segments {
            SegmentSpec::Fixed {
                size,
                count,
                vector,
            } => (0, size as u64, count, vector),
            SegmentSpec::Offsets {
                offsets,
                count,
                vector,
                ..
            } => {
                self.own(offsets)?;
                check_len(
                    "segment offsets (count + 1)",
                    count.saturating_add(1),
                    offsets.len,
                )?;
                (offsets.device_ptr(), 0, count, vector)
            }
        })
    }

    /// What `RawBackend::raw_block_reduce` does on this backend.
    pub(crate) fn block_reduce_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        block: u32,
        op: ReduceOp,
        output: &mut GpuBuffer<T, R>,
    ) -> Result<()> {
        self.own(input)?;
        self.own(output)?;
        if !block.is_multiple_of(LOGICAL_GROUP) || block == 0 || block > MAX_BLOCK {
            return Err(WavekitError::InvalidBlockSize(block));
        }
        let n = input.len;
        check_len(
            "block reduce output (one per block)",
            n.div_ceil(block as usize),
            output.len,
        )?;
        let mut work = self.lock();
        // The block_reduce launcher does not pass the status word to its kernel.
        self.launch(
            &mut work,
            "block_reduce",
            Reports::Nothing,
            // SAFETY: the launcher reads the n elements of `input` and writes one value per block
            // of `block`, ceil(n / block) of them, which is `output`'s length (checked above);
            // `output` is borrowed exclusively and `input` shared, so they are distinct memory.
            |s, st| unsafe {
                (self.table.block_reduce)(
                    s,
                    st,
                    kind::<T>(),
                    op as u32,
                    cptr(input.device_ptr()),
                    n as u64,
                    block,
                    dptr(output.device_ptr()),
                )
            },
        )
    }

    /// What `RawBackend::raw_device_reduce` does on this backend.
    pub(crate) fn device_reduce_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        op: ReduceOp,
        output: &mut GpuBuffer<T, R>,
    ) -> Result<()> {
        self.own(input)?;
        self.own(output)?;
        check_len("reduce output (one element)", 1, output.len)?;
        self.reduce_levels_enqueue(input, op, 0, output)
    }

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
        let (scratch, bytes) = self.reduce_scratch::<T::Acc>(&mut work, n)?;
        // The launcher does not pass the status word to its kernels.
        self.launch(&mut work, "device_reduce_acc", Reports::Nothing, |s, st| {
            // SAFETY: input, scratch and output are device memory of the lengths checked
            // above and by reduce_scratch.
            unsafe {
                (self.table.device_reduce_acc)(
                    s,
                    st,
                    kind::<T>(),
                    op as u32,
                    cptr(input.device_ptr()),
                    n as u64,
                    dptr(scratch),
                    bytes,
                    dptr(out.device_ptr()),
                )
            }
        })
    }

    /// The device reduce's launch, checked by the caller: to one value of `T` (`levels` 0, the
    /// device_reduce launcher; `O` is `T`) or up to level `levels` (device_reduce_partials;
    /// `O` is `T::Acc`).
    fn reduce_levels_enqueue<T: Element, O: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        op: ReduceOp,
        levels: u32,
        out: &mut GpuBuffer<O, R>,
    ) -> Result<()> {
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = input.len;
        let (scratch, bytes) = self.reduce_scratch::<T>(&mut work, n)?;
        let call = if levels == 0 {
            "device_reduce"
        } else {
            "device_reduce_partials"
        };
        // Neither launcher passes the status word to its kernels.
        self.launch(&mut work, call, Reports::Nothing, |s, st| {
            let (dt, code, src) = (kind::<T>(), op as u32, cptr(input.device_ptr()));
            let (scratch, dst) = (dptr(scratch), dptr(out.device_ptr()));
            // SAFETY: input, scratch and output are device memory of the lengths checked by
            // the callers and reduce_scratch.
            unsafe {
                if levels == 0 {
                    (self.table.device_reduce)(s, st, dt, code, src, n as u64, scratch, bytes, dst)
                } else {
                    (self.table.device_reduce_partials)(
                        s, st, dt, code, src, n as u64, levels, scratch, bytes, dst,
                    )
                }
            }
        })
    }

    /// What `RawBackend::raw_segmented_reduce` does on this backend.
    pub(crate) fn segmented_reduce_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        segments: SegmentSpec<'_, GpuBuffer<u32, R>>,
        op: ReduceOp,
        output: &mut GpuBuffer<T, R>,
    ) -> Result<()> {
        self.own(input)?;
        self.own(output)?;
        let (offsets, size, count, vector) = self.segment_args(segments)?;
        check_len(
            "segmented reduce output (one per segment)",
            count,
            output.len,
        )?;
        let mut work = self.lock();
        // The kernels check the offsets against the input's length again (an offset past it
        // comes back at the next synchronisation); fixed segments cannot leave it.
        let reports = match offsets {
            0 => Reports::Nothing,
            _ => Reports::Index {
                what: "segment offset",
                limit: input.len as u64 + 1,
            },
        };
        // SAFETY: the kernels read `input` only below its length (fixed segments end at it;
        // offsets, count + 1 of them as segment_args checked, are clamped to it and reported) and
        // write one value per segment, `count` = `output.len` (checked above); `output` is borrowed
        // exclusively, so no input aliases it.
        self.launch(&mut work, "segmented_reduce", reports, |s, st| unsafe {
            (self.table.segmented_reduce)(
                s,
                st,
                kind::<T>(),
                op as u32,
                cptr(input.device_ptr()),
                input.len as u64,
                cptr(offsets),
                size,
                count as u64,
                vector,
                dptr(output.device_ptr()),
            )
        })
    }
}
