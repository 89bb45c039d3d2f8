//! The reductions on a GPU: per-block, whole-device and segmented (`RawBackend::raw_block_reduce`,
//! `raw_device_reduce`, `raw_segmented_reduce`, which imp.rs hands here): every length checked
//! again against the buffers, the launcher enqueued on the stream with the caller's output.

use super::backend::{GpuBackend, Reports};
use super::buffer::GpuBuffer;
use super::ffi::{self, cptr, dptr, kind};
use super::runtime::{DevPtr, GpuRuntime};
use wavekit_core::api::check_len;
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
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = input.len;
        let bytes = self.scratch_bytes(ffi::ALGO_DEVICE_REDUCE, T::KIND, n);
        let scratch = self.ensure_reduce_pool(&mut work, bytes)?;
        // The device_reduce launcher does not pass the status word to its kernels.
        self.launch(
            &mut work,
            "device_reduce",
            Reports::Nothing,
            |s, st| unsafe {
                (self.table.device_reduce)(
                    s,
                    st,
                    kind::<T>(),
                    op as u32,
                    cptr(input.device_ptr()),
                    n as u64,
                    dptr(scratch),
                    bytes,
                    dptr(output.device_ptr()),
                )
            },
        )
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
