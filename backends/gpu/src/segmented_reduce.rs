//! segmented_reduce on a GPU (`RawBackend::raw_segmented_reduce`, which raw_backend.rs hands
//! here): the segments and the output checked again, csrc/kernels/segmented_reduce.cu's launch
//! enqueued on the stream with the caller's output.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::ffi::kind;
use super::launch::In;
use super::queue::Reports;
use super::runtime::GpuRuntime;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::{ReduceOp, SegmentSpec};

/// A segment spec as the segmented launchers take it: the offsets (NULL for fixed segments,
/// whose size comes second), the segment count and the vector size.
pub(crate) struct SegmentArgs<'a> {
    pub(crate) offsets: In<'a>,
    pub(crate) size: u64,
    pub(crate) count: usize,
    pub(crate) vector: u32,
}

impl<R: GpuRuntime> GpuBackend<R> {
    /// `segments` as the segmented launchers take them; the offsets are checked to be this
    /// backend's and `count + 1` long.
    pub(crate) fn segment_args<'a>(
        &self,
        segments: SegmentSpec<'a, GpuBuffer<u32, R>>,
    ) -> Result<SegmentArgs<'a>> {
        Ok(match segments {
            SegmentSpec::Fixed {
                size,
                count,
                vector,
            } => SegmentArgs {
                offsets: In::NULL,
                size: size as u64,
                count,
                vector,
            },
            SegmentSpec::Offsets {
                offsets,
                count,
                vector,
                ..
            } => SegmentArgs {
                offsets: self.offsets_arg(offsets, count)?,
                size: 0,
                count,
                vector,
            },
        })
    }

    /// The offsets of `count` segments as a launcher's input, once checked to be this
    /// backend's and `count + 1` long.
    pub(crate) fn offsets_arg<'a>(
        &self,
        offsets: &'a GpuBuffer<u32, R>,
        count: usize,
    ) -> Result<In<'a>> {
        self.own(offsets)?;
        check_len(
            "segment offsets (count + 1)",
            count.saturating_add(1),
            offsets.len,
        )?;
        self.input(offsets)
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
        let seg = self.segment_args(segments)?;
        check_len(
            "segmented reduce output (one per segment)",
            seg.count,
            output.len,
        )?;
        let mut work = self.lock();
        // The kernels check the offsets against the input's length again (an offset past it
        // comes back at the next synchronisation); fixed segments cannot leave it.
        let reports = match seg.offsets.mem().ptr {
            0 => Reports::Nothing,
            _ => Reports::Index {
                what: "segment offset",
                limit: input.len as u64 + 1,
            },
        };
        self.launch(&mut work, "segmented_reduce", reports, |k, _| {
            k.segmented_reduce(
                kind::<T>(),
                op as u32,
                self.input(input)?,
                input.len as u64,
                seg.offsets,
                seg.size,
                seg.count as u64,
                seg.vector,
                self.output(output)?,
            )
        })
    }
}
