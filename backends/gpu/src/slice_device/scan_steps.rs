//! The sharded scan's device steps on this backend (`SliceDevice::scan_aggregates_into`,
//! `scan_carried_into`, `fold_left_into`; docs/SEMANTICS.md "dist_scan"): one launch each on
//! the stream, nothing read back, the arguments checked again.

use crate::backend::GpuBackend;
use crate::buffer::GpuBuffer;
use crate::ffi::kind;
use crate::queue::Reports;
use crate::runtime::GpuRuntime;
use wavekit_core::api::check_scan_steps;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::{ReduceOp, ScanKind};

impl<R: GpuRuntime> GpuBackend<R> {
    /// `out[t]` = the aggregate `A_t` of tile `t` of `input` (docs/SEMANTICS.md "device_scan",
    /// steps 1-4; tiles of `SCAN_TILE`, the last padded with the identity), bit for bit the
    /// last value of the tile's own scan.
    ///
    /// # Errors
    /// `UnsupportedType` (f16, bf16), `UnsupportedOp`, `EmptyInput`, `LengthMismatch` unless
    /// `out` has one slot a tile, `ForeignBuffer`, `Device`. Nothing is written on error.
    pub(crate) fn scan_aggregates_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        op: ReduceOp,
        out: &mut GpuBuffer<T, R>,
    ) -> Result<()> {
        self.scan_step_enqueue("scan_aggregates", input, op, out)
    }

    /// The device scan of `input` as the continuation of an array whose earlier tiles fold to
    /// `carry[0]` (device_scan step 5 with `X_0 = carry[0]`; exclusive: `output[0] = carry[0]`).
    ///
    /// # Errors
    /// As [`GpuBackend::scan_aggregates_enqueue`]; `LengthMismatch` unless `output` is the
    /// input's length and `carry` one element.
    pub(crate) fn scan_carried_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        output: &mut GpuBuffer<T, R>,
        op: ReduceOp,
        scan: ScanKind,
        carry: &GpuBuffer<T, R>,
    ) -> Result<()> {
        check_scan_steps::<T>("scan_carried", op, input.len, output.len, Some(carry.len))?;
        self.device_scan_enqueue(input, output, op, scan, Some(carry))
    }

    /// `out[0]` = the left fold `op(…op(op(input[0], input[1]), input[2])…)` of `input`, in
    /// order (float Sum and Product: one GPU thread, the chain of device_scan's tile prefixes;
    /// the ops whose result no order changes, integers' and float Min / Max: one block).
    ///
    /// # Errors
    /// As [`GpuBackend::scan_aggregates_enqueue`]; `LengthMismatch` unless `out` is one element.
    pub(crate) fn fold_left_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        op: ReduceOp,
        out: &mut GpuBuffer<T, R>,
    ) -> Result<()> {
        self.scan_step_enqueue("fold_left", input, op, out)
    }

    /// The aggregates' or the fold's launch: the same arguments, one input and one output.
    fn scan_step_enqueue<T: Element>(
        &self,
        step: &'static str,
        input: &GpuBuffer<T, R>,
        op: ReduceOp,
        out: &mut GpuBuffer<T, R>,
    ) -> Result<()> {
        check_scan_steps::<T>(step, op, input.len, out.len, None)?;
        self.own(input)?;
        self.own(out)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let aggregates = step == "scan_aggregates";
        let call = if aggregates {
            "device_scan_aggregates"
        } else {
            "fold_left"
        };
        self.launch(&mut work, call, Reports::Errors, |k, _| {
            let (dt, code, n) = (kind::<T>(), op as u32, input.len as u64);
            let (src, dst) = (self.input(input)?, self.output(out)?);
            if aggregates {
                k.device_scan_aggregates(dt, code, src, n, dst)
            } else {
                k.fold_left(dt, code, src, n, dst)
            }
        })
    }
}
