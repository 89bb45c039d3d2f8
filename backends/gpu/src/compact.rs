//! Stream compaction on a GPU (`RawBackend::raw_compact`, which raw_backend.rs hands here):
//! lengths checked again, csrc/kernels/compact.cu's launch enqueued on the stream (the stable
//! form with its own tagged scratch, tagged_pool.rs).

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::ffi::kind;
use super::launch::Out;
use super::queue::Reports;
use super::runtime::GpuRuntime;
use super::tagged_pool::Tagged;
use wavekit_core::Predicate;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};

impl<R: GpuRuntime> GpuBackend<R> {
    /// What `RawBackend::raw_compact` does on this backend.
    pub(crate) fn compact_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        pred: Predicate<T>,
        stable: bool,
        output: &mut GpuBuffer<T, R>,
        count: &mut GpuBuffer<u64, R>,
    ) -> Result<()> {
        self.own(input)?;
        self.own(output)?;
        self.own(count)?;
        if output.len < input.len {
            return Err(WavekitError::LengthMismatch {
                what: "compaction output (at least the input's length)",
                expected: input.len,
                got: output.len,
            });
        }
        check_len("compaction count (one element)", 1, count.len)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = input.len;
        if n == 0 {
            return self.zero_mem(&mut count.mem, size_of::<u64>());
        }
        let (code, a, b) = pred.encode();
        if !stable {
            // No scratch: tiles reserve their output with atomics on the count.
            return self.launch(&mut work, "compact", Reports::Errors, |k, _| {
                k.compact(
                    self.launch_width,
                    kind::<T>(),
                    code,
                    a,
                    b,
                    0,
                    self.input(input)?,
                    n as u64,
                    Out::NULL,
                    0,
                    self.output(output)?,
                    self.output(count)?,
                )
            });
        }
        self.launch_tagged::<T>(
            &mut work,
            Tagged::Compact,
            n,
            "compact",
            |k, scratch, bytes| {
                k.compact_tagged(
                    self.launch_width,
                    kind::<T>(),
                    code,
                    a,
                    b,
                    self.input(input)?,
                    n as u64,
                    scratch,
                    bytes,
                    self.output(output)?,
                    self.output(count)?,
                )
            },
        )
    }
}
