//! argmin / argmax on a GPU (`RawBackend`'s `raw_arg_reduce`, `raw_segmented_arg_reduce`,
//! `raw_warp_arg_reduce`, which imp.rs hands here): every length checked again against the
//! buffers, one launcher each (csrc/kernels/arg_reduce.cu). The device form takes its scratch
//! (one (key, index) partial per block) from the backend's pool and enqueues its two launches
//! on the stream; the segmented form enqueues one; the warp form uploads, runs and reads back.

use super::backend::{GpuBackend, Reports};
use super::buffer::GpuBuffer;
use super::ffi::{self, cptr, dptr};
use super::runtime::GpuRuntime;
use std::ffi::c_void;
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
        let bytes = self.scratch_bytes(ffi::ALGO_ARG_REDUCE, T::KIND, n);
        let scratch = self.ensure_pool(&mut work, bytes)?;
        // SAFETY: the launcher reads the n elements of `input`, uses `bytes` bytes of scratch (the
        // pool, at least `bytes` long after ensure_pool, owned by the locked workspace) and writes
        // one value and one index, the lengths of `value` and `index` (checked above); the outputs
        // are borrowed exclusively, so nothing aliases them.
        self.launch(&mut work, "arg_reduce", Reports::Errors, |s, st| unsafe {
            (self.table.arg_reduce)(
                s,
                st,
                self.launch_width,
                T::KIND as u32,
                op_code(op),
                cptr::<c_void>(input.device_ptr()),
                n as u64,
                dptr(scratch),
                bytes,
                dptr(value.device_ptr()),
                dptr(index.device_ptr()),
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
        let (offsets, size, count, vector) = self.segment_args(segments)?;
        check_len(
            "segmented arg_reduce values (one per segment)",
            count,
            values.len,
        )?;
        check_len(
            "segmented arg_reduce indices (one per segment)",
            count,
            indices.len,
        )?;
        let mut work = self.lock();
        // As segmented_reduce: the kernel checks the offsets against the input again (an
        // offset past it comes back at the next synchronisation, clamped meanwhile).
        let reports = match offsets {
            0 => Reports::Errors,
            _ => Reports::Index {
                what: "segment offset",
                limit: n as u64 + 1,
            },
        };
        // SAFETY: the kernels read `input` only below n (offsets, count + 1 of them as segment_args
        // checked, are clamped to it and reported; fixed segments end at it) and write one value
        // and one index per segment, `count` of each = the outputs' lengths (checked above), which
        // are borrowed exclusively.
        self.launch(&mut work, "segmented_arg_reduce", reports, |s, st| unsafe {
            (self.table.segmented_arg_reduce)(
                s,
                st,
                self.launch_width,
                T::KIND as u32,
                op_code(op),
                cptr::<c_void>(input.device_ptr()),
                n as u64,
                cptr::<u32>(offsets),
                size,
                count as u64,
                vector,
                dptr(values.device_ptr()),
                dptr(indices.device_ptr()),
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
        let values = self.buffer_zeroed::<T>(n)?;
        let lanes = self.buffer_zeroed::<u32>(n)?;
        // SAFETY: the launcher reads the n values of `input` (a fresh upload of `vals`) and writes
        // n values and n lanes to `values` and `lanes` (fresh, n each); nothing else holds them.
        self.run_checked(&mut work, "warp_arg_reduce", |s, st| unsafe {
            (self.table.warp_arg_reduce)(
                s,
                st,
                self.launch_width,
                T::KIND as u32,
                op_code(op),
                cptr::<c_void>(input.device_ptr()),
                n as u64,
                width,
                dptr(values.device_ptr()),
                dptr(lanes.device_ptr()),
            )
        })?;
        let v = self.read::<T>(&values.mem, n)?;
        let l = self.read::<u32>(&lanes.mem, n)?;
        super::imp::zipped(v, l, |v, l| (v, l))
    }
}
