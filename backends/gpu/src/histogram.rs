//! The histogram on a GPU (`RawBackend::raw_histogram`, which raw_backend.rs hands here): the
//! counts checked again, csrc/kernels/histogram.cu's launch enqueued on the stream.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::queue::Reports;
use super::runtime::GpuRuntime;
use wavekit_core::api::check_len;
use wavekit_core::element::as_bytes;
use wavekit_core::error::{Result, WavekitError};

impl<R: GpuRuntime> GpuBackend<R> {
    /// What `RawBackend::raw_histogram` does on this backend.
    pub(crate) fn histogram_enqueue(
        &self,
        keys: &GpuBuffer<u32, R>,
        bins: u32,
        counts: &mut GpuBuffer<u64, R>,
    ) -> Result<()> {
        self.own(keys)?;
        self.own(counts)?;
        if bins == 0 {
            return Err(WavekitError::ZeroBins);
        }
        let slots = (bins as usize).saturating_add(1);
        check_len("histogram counts (bins + 1)", slots, counts.len)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        if keys.len == 0 {
            return self.zero_mem(&mut counts.mem, slots * size_of::<u64>());
        }
        // The histogram launcher zeroes the counts before its kernel, whose launch can still
        // run out of memory on the executor: there, the counts are kept and put back on error.
        let saved = if R::LAUNCH_ALLOCATES {
            Some(self.read::<u64>(&counts.mem, slots)?)
        } else {
            None
        };
        // The histogram launcher does not pass the status word.
        let r = self.launch(&mut work, "histogram", Reports::Nothing, |k, _| {
            k.histogram(
                self.input(keys)?,
                keys.len as u64,
                bins,
                self.output(counts)?,
            )
        });
        if let (Err(_), Some(saved)) = (&r, saved) {
            // The launch's error is the one to report; on the executor, whose memory is the
            // host's, putting the counts back is a checked memcpy.
            let _ = self.write_mem(&mut counts.mem, as_bytes(&saved));
        }
        r
    }
}
