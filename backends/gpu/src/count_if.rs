//! count_if on a GPU (`RawBackend::raw_count_if`, which raw_backend.rs hands here): the count
//! checked again, csrc/kernels/count_if.cu's launch enqueued on the stream. atomic_agg_inc.rs
//! counts its bad slots with it too, into the workspace's result slot.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::ffi::kind;
use super::launch::Out;
use super::queue::Reports;
use super::runtime::GpuRuntime;
use super::workspace::Work;
use wavekit_core::Predicate;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::Result;

/// Where a count goes: the caller's one-element buffer, or the workspace's result slot (read
/// back under the same lock).
pub(crate) enum CountInto<'a, R: GpuRuntime> {
    Buffer(&'a mut GpuBuffer<u64, R>),
    ResultSlot,
}

impl<R: GpuRuntime> GpuBackend<R> {
    /// Enqueues the count_if kernel over `input`, its count into `into`; an empty input writes
    /// 0 without a launch (the kernels need one element).
    pub(crate) fn enqueue_count_if<T: Element>(
        &self,
        work: &mut Work<R>,
        call: &'static str,
        input: &GpuBuffer<T, R>,
        pred: Predicate<T>,
        into: CountInto<'_, R>,
    ) -> Result<()> {
        if input.len == 0 {
            let mem = match into {
                CountInto::Buffer(b) => &mut b.mem,
                CountInto::ResultSlot => &mut work.pools.result,
            };
            return self.zero_mem(mem, size_of::<u64>());
        }
        let (code, a, b) = pred.encode();
        // The count_if launcher does not pass the status word to its kernel; it takes no
        // scratch (NULL, 0 bytes).
        self.launch(work, call, Reports::Nothing, |k, pools| {
            let out = match into {
                CountInto::Buffer(b) => self.output(b)?,
                CountInto::ResultSlot => self.output_mem(&mut pools.result)?,
            };
            k.count_if(
                kind::<T>(),
                code,
                a,
                b,
                self.input(input)?,
                input.len as u64,
                Out::NULL,
                0,
                out,
            )
        })
    }

    /// What `RawBackend::raw_count_if` does on this backend.
    pub(crate) fn count_if_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        pred: Predicate<T>,
        count: &mut GpuBuffer<u64, R>,
    ) -> Result<()> {
        self.own(input)?;
        self.own(count)?;
        check_len("count_if output (one element)", 1, count.len)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        self.enqueue_count_if(&mut work, "count_if", input, pred, CountInto::Buffer(count))
    }
}
