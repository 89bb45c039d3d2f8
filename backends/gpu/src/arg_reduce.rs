//! argmin / argmax on a GPU (`RawBackend`'s `raw_arg_reduce`, `raw_segmented_arg_reduce`,
//! `raw_warp_arg_reduce`, which raw_backend.rs hands here): every length checked again against the
//! buffers, one launcher each (csrc/kernels/arg_reduce.cu). The device form takes its scratch
//! (a ticket and one (key, index) partial per block) from the reduce pool, whose tickets stay
//! zero between calls, and enqueues one launch on the stream; the segmented form enqueues one;
//! the warp form uploads, runs and reads back.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::ffi;
use super::queue::Reports;
use super::runtime::GpuRuntime;
use super::warp::zipped;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::{ArgOp, SegmentSpec};

/// The op as the launchers take it: ReduceOp's code of the same direction (OP_MIN, OP_MAX).
fn op_code(op: ArgOp) -> u32 {
    op.reduce_op() as u32
}

impl<R: GpuRuntime> GpuBackend<R> {
    /// Enqueues the device argmin/argmax of a non-empty `input` into `value` and `index`.
    pub(crate) fn arg_reduce_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        op: ArgOp,
        value: &mut GpuBuffer<T, R>,
        index: &mut GpuBuffer<u64, R>,
    ) -> Result<()> {
        self.own(input)?;
        self.own(value)?;
        self.own(index)?;
        check_len("arg_reduce value (one element)", 1, value.len)?;
        check_len("arg_reduce index (one element)", 1, index.len)?;
        let n = input.len;
        if n == 0 {
            return Err(WavekitError::EmptyInput {
                what: "arg_reduce input",
            });
        }
        let mut work = self.lock();
        self.rt.make_current()?;
        self.launch(&mut work, "arg_reduce", Reports::Errors, |k, pools| {
            // Its ticket lives in the reduce pool, zero between calls, as the reduce's do.
            let scratch = self.zeroed_scratch(pools, ffi::ALGO_ARG_REDUCE, T::KIND, n)?;
            let bytes = scratch.bytes();
            k.arg_reduce(
                self.launch_width,
                T::KIND as u32,
                op_code(op),
                self.input(input)?,
                n as u64,
                scratch,
                bytes,
                self.output(value)?,
                self.output(index)?,
            )
        })
    }

    /// Enqueues the per-segment argmin/argmax (at least one segment).
    pub(crate) fn segmented_arg_reduce_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        segments: SegmentSpec<'_, GpuBuffer<u32, R>>,
        op: ArgOp,
        values: &mut GpuBuffer<T, R>,
        indices: &mut GpuBuffer<u32, R>,
    ) -> Result<()> {
        self.own(input)?;
        self.own(values)?;
        self.own(indices)?;
        let n = input.len;
        if n > u32::MAX as usize {
            return Err(WavekitError::TooLarge {
                what: "segmented arg_reduce input (indices are u32)",
                value: n as u64,
                limit: u32::MAX as u64,
            });
        }
        let seg = self.segment_args(segments)?;
        check_len(
            "segmented arg_reduce values (one per segment)",
            seg.count,
            values.len,
        )?;
        check_len(
            "segmented arg_reduce indices (one per segment)",
            seg.count,
            indices.len,
        )?;
        let mut work = self.lock();
        // As segmented_reduce: the kernel checks the offsets against the input again (an
        // offset past it comes back at the next synchronisation, clamped meanwhile).
        let reports = match seg.offsets.mem().ptr {
            0 => Reports::Errors,
            _ => Reports::Index {
                what: "segment offset",
                limit: n as u64 + 1,
            },
        };
        self.launch(&mut work, "segmented_arg_reduce", reports, |k, _| {
            k.segmented_arg_reduce(
                self.launch_width,
                T::KIND as u32,
                op_code(op),
                self.input(input)?,
                n as u64,
                seg.offsets,
                seg.size,
                seg.count as u64,
                seg.vector,
                self.output(values)?,
                self.output(indices)?,
            )
        })
    }

    /// Every lane's segment (of `width` lanes) argmin/argmax: upload, one checked launch, read.
    pub(crate) fn warp_arg_reduce_run<T: Element>(
        &self,
        vals: &[T],
        width: u32,
        op: ArgOp,
    ) -> Result<Vec<(T, u32)>> {
        self.width.check_sub_width(width)?;
        let n = vals.len();
        let mut work = self.lock();
        self.rt.make_current()?;
        let input = self.buffer_from(vals)?;
        let mut values = self.buffer_zeroed::<T>(n)?;
        let mut lanes = self.buffer_zeroed::<u32>(n)?;
        self.run_checked(&mut work, "warp_arg_reduce", |k, _| {
            k.warp_arg_reduce(
                self.launch_width,
                T::KIND as u32,
                op_code(op),
                self.input(&input)?,
                n as u64,
                width,
                self.output(&mut values)?,
                self.output(&mut lanes)?,
            )
        })?;
        let v = self.read::<T>(&values.mem, n)?;
        let l = self.read::<u32>(&lanes.mem, n)?;
        zipped(v, l, |v, l| (v, l))
    }
}
