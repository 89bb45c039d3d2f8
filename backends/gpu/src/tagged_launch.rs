//! The backend's calls on the look-back collectives' own scratch (tagged_pool.rs): growing it,
//! launching with the next tag, reserving it ahead of a call.

use super::backend::{GpuBackend, Reports, Work};
use super::buffer::DeviceMem;
use super::ffi::Status;
use super::runtime::{DevPtr, GpuRuntime};
use super::tagged_pool::Tagged;
use std::ffi::c_void;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};

impl<R: GpuRuntime> GpuBackend<R> {
    /// Makes `which`'s scratch at least `bytes` long (it only ever grows; a new allocation
    /// forgets the tags) and returns it.
    pub(crate) fn ensure_tagged_pool(
        &self,
        work: &mut Work<R>,
        which: Tagged,
        bytes: u64,
    ) -> Result<DevPtr> {
        let bytes = usize::try_from(bytes).map_err(|_| WavekitError::OutOfMemory { bytes })?;
        let pool = &mut work.tagged[which as usize];
        if pool.mem.bytes < bytes {
            let grown = bytes.max(pool.mem.bytes.saturating_mul(2));
            // Freeing the old scratch waits for the work queued on it (cuMemFree, hipFree).
            pool.mem = DeviceMem::new(&self.cache, 0)?;
            pool.tags.forget();
            pool.mem = self.mem(grown)?;
        }
        Ok(pool.mem.ptr)
    }

    /// One launch of `which` on its own scratch for `n` elements of `T`: `f` gets the stream,
    /// the status slot, the scratch's address and bytes and the call's tag. After a failed
    /// launch whether it ran is not known, so the tags are forgotten and the next call zeroes.
    pub(crate) fn launch_tagged<T: Element>(
        &self,
        work: &mut Work<R>,
        which: Tagged,
        n: usize,
        call: &'static str,
        f: impl FnOnce(*mut c_void, *mut Status, DevPtr, u64, u32) -> i32,
    ) -> Result<()> {
        let bytes = self.scratch_bytes(which.algo(), T::KIND, n);
        let scratch = self.ensure_tagged_pool(work, which, bytes)?;
        let tag = work.tagged[which as usize].tags.next(T::KIND as u32, bytes);
        let launched = self.launch(work, call, Reports::Errors, |s, st| {
            f(s, st, scratch, bytes, tag)
        });
        if launched.is_err() {
            work.tagged[which as usize].tags.forget();
        }
        launched
    }

    /// The sizes `reserve` makes each collective's scratch for `n` elements of `T`.
    pub(crate) fn reserve_tagged<T: Element>(&self, work: &mut Work<R>, n: usize) -> Result<()> {
        for which in Tagged::ALL {
            let bytes = self.scratch_bytes(which.algo(), T::KIND, n);
            self.ensure_tagged_pool(work, which, bytes)?;
        }
        Ok(())
    }
}
