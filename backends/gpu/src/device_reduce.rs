//! device_reduce on a GPU (`RawBackend::raw_device_reduce`, which raw_backend.rs hands here):
//! the output checked again, csrc/kernels/device_reduce.cu's launch enqueued on the stream
//! with its own zeroed scratch (workspace.rs) and the caller's output. The levels of its tree
//! that wavekit-dist's sharded reduce takes apart are slice_device/reduce_partials.rs.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::ffi::kind;
use super::queue::Reports;
use super::runtime::GpuRuntime;
use wavekit_core::ReduceOp;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::Result;

impl<R: GpuRuntime> GpuBackend<R> {
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

    /// The device reduce's launch, checked by the caller: to one value of `T` (`levels` 0, the
    /// device_reduce launcher; `O` is `T`) or up to level `levels` (device_reduce_partials;
    /// `O` is `T::Acc`).
    pub(crate) fn reduce_levels_enqueue<T: Element, O: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        op: ReduceOp,
        levels: u32,
        out: &mut GpuBuffer<O, R>,
    ) -> Result<()> {
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = input.len;
        let call = if levels == 0 {
            "device_reduce"
        } else {
            "device_reduce_partials"
        };
        // Neither launcher passes the status word to its kernels.
        self.launch(&mut work, call, Reports::Nothing, |k, pools| {
            let scratch = self.reduce_scratch::<T>(pools, n)?;
            let bytes = scratch.bytes();
            let (dt, code, src) = (kind::<T>(), op as u32, self.input(input)?);
            if levels == 0 {
                k.device_reduce(dt, code, src, n as u64, scratch, bytes, self.output(out)?)
            } else {
                k.device_reduce_partials(
                    dt,
                    code,
                    src,
                    n as u64,
                    levels,
                    scratch,
                    bytes,
                    self.output(out)?,
                )
            }
        })
    }
}
