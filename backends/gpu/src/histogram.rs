//! The histogram on a GPU (`RawBackend::raw_histogram`, which imp.rs hands here).

use super::backend::{GpuBackend, Reports};
use super::buffer::GpuBuffer;
use super::ffi::{cptr, dptr};
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
        // SAFETY: the kernel reads the `keys.len` keys and zeroes, then counts into, `bins + 1`
        // u64s of `counts` (its length, checked above; a key past the bins counts in the last
        // slot); `counts` is borrowed exclusively.
        let r = self.launch(&mut work, "histogram", Reports::Nothing, |s, st| unsafe {
            (self.table.histogram)(
                s,
                st,
                cptr(keys.device_ptr()),
                keys.len as u64,
                bins,
                dptr(counts.device_ptr()),
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
