//! The backend's calls on the look-back collectives' own scratch (tagged_pool.rs): growing it,
//! launching with the next tag, reserving it ahead of a call.

use super::backend::GpuBackend;
use super::buffer::DeviceMem;
use super::launch::{Launch, TaggedScratch};
use super::queue::Reports;
use super::runtime::GpuRuntime;
use super::tagged_pool::Tagged;
use super::workspace::{Pools, Work};
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};

impl<R: GpuRuntime> GpuBackend<R> {
    /// Makes `which`'s scratch at least `bytes` long (it only ever grows; a new allocation
    /// forgets the tags).
    pub(crate) fn ensure_tagged_pool(
        &self,
        pools: &mut Pools<R>,
        which: Tagged,
        bytes: u64,
    ) -> Result<()> {
        let bytes = usize::try_from(bytes).map_err(|_| WavekitError::OutOfMemory { bytes })?;
        let pool = &mut pools.tagged[which as usize];
        if pool.mem.bytes < bytes {
            let grown = bytes.max(pool.mem.bytes.saturating_mul(2));
            // Freeing the old scratch waits for the work queued on it (cuMemFree, hipFree).
            pool.mem = DeviceMem::new(&self.cache, 0)?;
            pool.tags.forget();
            pool.mem = self.mem(grown)?;
        }
        Ok(())
    }

    /// One launch of `which`'s launcher on its own scratch for `n` elements of `T`: `f` gets
    /// the launch, the scratch with the call's tag, and the scratch bytes the call needs.
    /// After a failed launch whether it ran is not known, so the tags are forgotten and the
    /// next call zeroes.
    pub(crate) fn launch_tagged<T: Element>(
        &self,
        work: &mut Work<R>,
        which: Tagged,
        n: usize,
        call: &'static str,
        f: impl FnOnce(&Launch<'_>, TaggedScratch<'_>, u64) -> Result<i32>,
    ) -> Result<()> {
        let bytes = self.scratch_bytes(which.algo(), T::KIND, n);
        let launched = self.launch(work, call, Reports::Errors, |k, pools| {
            self.ensure_tagged_pool(pools, which, bytes)?;
            let pool = &mut pools.tagged[which as usize];
            let tag = pool.tags.next(T::KIND as u32, bytes);
            let scratch = TaggedScratch::new(&mut pool.mem, tag, T::KIND as u32, which.launcher());
            f(k, scratch, bytes)
        });
        if launched.is_err() {
            work.pools.tagged[which as usize].tags.forget();
        }
        launched
    }

    /// The sizes `reserve` makes each collective's scratch for `n` elements of `T`.
    pub(crate) fn reserve_tagged<T: Element>(&self, pools: &mut Pools<R>, n: usize) -> Result<()> {
        for which in Tagged::ALL {
            let bytes = self.scratch_bytes(which.algo(), T::KIND, n);
            self.ensure_tagged_pool(pools, which, bytes)?;
        }
        Ok(())
    }
}
