//! Freed device memory kept for the next allocation of a like size. A fresh `cuMemAlloc` or
//! `hipMalloc` of a large region costs milliseconds, and so does its free, and a call that
//! returns a new buffer (a sort, a distributed sort's exchange and merge) would pay both every
//! time. A block comes back here only once the work queued on its stream is done (and, for
//! memory another stream used, the device's), exactly when the runtime's free would have run,
//! so the next owner finds it idle, as it would find fresh memory. Like fresh memory its
//! contents are undefined.
//!
//! A backend's cache holds at most its limit (unbounded on CUDA and HIP, as a CUDA caching
//! allocator is; none on the SIMT executor, whose bounds checks need every buffer exactly its
//! own allocation) and gives everything back when an allocation finds the device full, on
//! [`GpuBackend::release_cached_memory`](crate::GpuBackend::release_cached_memory), and when the
//! backend and its last buffer are dropped. Memory exported to another process
//! ([`GpuBackend::ipc_export`](crate::GpuBackend::ipc_export)) is never kept: a process that
//! mapped it could still read it.

use super::runtime::{DevPtr, GpuRuntime};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard};
use wavekit_core::error::{Result, WavekitError};

/// The device memory a backend allocated: blocks in use and blocks kept for reuse.
pub(crate) struct MemCache<R: GpuRuntime> {
    pub(crate) rt: Arc<R>,
    inner: Mutex<Blocks>,
}

#[derive(Default)]
struct Blocks {
    /// Most bytes kept for reuse.
    limit: usize,
    /// Bytes in `free`.
    cached: usize,
    /// Kept blocks, smallest first: (bytes, address).
    free: BTreeSet<(usize, DevPtr)>,
    /// Blocks in use: address to (bytes, exported to another process).
    live: BTreeMap<DevPtr, (usize, bool)>,
}

/// Whether a kept block of `block` bytes serves a request of `bytes`: at most an eighth larger
/// (and a few bytes for tiny requests), so a reused block wastes little.
fn fits(block: usize, bytes: usize) -> bool {
    block >= bytes && block - bytes <= bytes / 8 + 256
}

impl<R: GpuRuntime> MemCache<R> {
    pub(crate) fn new(rt: Arc<R>) -> Self {
        let limit = rt.memory_cache_limit();
        MemCache {
            rt,
            inner: Mutex::new(Blocks {
                limit,
                ..Blocks::default()
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Blocks> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A region of at least `bytes > 0` bytes, idle: a kept block or a fresh allocation (after
    /// giving the kept blocks back, if the device is full).
    pub(crate) fn take(&self, bytes: usize) -> Result<DevPtr> {
        {
            let mut b = self.lock();
            let found = b.free.range((bytes, 0)..).next().copied();
            if let Some((size, ptr)) = found.filter(|&(size, _)| fits(size, bytes)) {
                b.free.remove(&(size, ptr));
                b.cached -= size;
                b.live.insert(ptr, (size, false));
                return Ok(ptr);
            }
        }
        let ptr = match self.rt.alloc(bytes) {
            Err(WavekitError::OutOfMemory { .. }) if self.release() > 0 => self.rt.alloc(bytes)?,
            other => other?,
        };
        self.lock().live.insert(ptr, (bytes, false));
        Ok(ptr)
    }

    /// Takes back the block at `ptr` (from [`Self::take`], no longer used): kept if there is room
    /// and its stream has finished with it, freed otherwise.
    ///
    /// # Safety
    /// `ptr` came from `take` of this cache and is not used afterwards.
    pub(crate) unsafe fn put(&self, ptr: DevPtr) {
        let (size, exported) = self.lock().live.remove(&ptr).unwrap_or((usize::MAX, true));
        // The runtime's free waits for the stream; a kept block must be as idle.
        let idle = !exported && self.rt.make_current().is_ok() && self.rt.synchronize().is_ok();
        // Room is judged after the wait, under the lock, so racing puts cannot pass the limit.
        let kept = idle && {
            let mut b = self.lock();
            let room = size <= b.limit.saturating_sub(b.cached);
            if room {
                b.cached += size;
                b.free.insert((size, ptr));
            }
            room
        };
        if !kept {
            // SAFETY: allocated by this runtime in `take`; the caller no longer uses it.
            unsafe { self.rt.free(ptr) };
        }
    }

    /// Never keeps the block holding `ptr` once it is put back (memory another process maps).
    pub(crate) fn mark_exported(&self, ptr: DevPtr) {
        let mut b = self.lock();
        if let Some((&start, block)) = b.live.range_mut(..=ptr).next_back()
            && ptr < start + block.0 as DevPtr
        {
            block.1 = true;
        }
    }

    /// Frees every kept block; returns their bytes.
    pub(crate) fn release(&self) -> usize {
        let (free, bytes) = {
            let mut b = self.lock();
            let bytes = std::mem::take(&mut b.cached);
            (std::mem::take(&mut b.free), bytes)
        };
        for (_, ptr) in free {
            // SAFETY: a kept block came from the runtime's alloc and nobody uses it.
            unsafe { self.rt.free(ptr) };
        }
        bytes
    }

    pub(crate) fn set_limit(&self, limit: usize) {
        let over = {
            let mut b = self.lock();
            b.limit = limit;
            b.cached > limit
        };
        if over {
            self.release();
        }
    }

    pub(crate) fn cached(&self) -> usize {
        self.lock().cached
    }
}

impl<R: GpuRuntime> Drop for MemCache<R> {
    fn drop(&mut self) {
        self.release();
    }
}
