//! Device memory of a GPU backend: owned (freed through the runtime that allocated it) or
//! borrowed (a slice of another buffer, or memory adopted from the caller, freed by nobody
//! here), and the typed buffer over it.

use super::mem_cache::MemCache;
use super::runtime::{DevPtr, GpuRuntime};
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use wavekit_core::element::Element;
use wavekit_core::{Anchored, DeviceBuffer};

/// Work run when a borrowed buffer is dropped, e.g. ordering the memory owner's stream after
/// the work queued on this backend's stream (the CUDA crate's cudarc adapters).
pub type OnDrop = Box<dyn FnOnce() + Send + Sync>;

/// Raw device bytes; a zero-byte allocation holds no device memory.
pub(crate) struct DeviceMem<R: GpuRuntime> {
    pub(crate) ptr: DevPtr,
    pub(crate) bytes: usize,
    pub(crate) rt: Arc<R>,
    /// The cache owned memory goes back to (and that a slice of it marks exported); `None`
    /// for adopted memory.
    cache: Option<Arc<MemCache<R>>>,
    /// `None` for memory this value frees; for borrowed memory (views, adopted memory), what
    /// runs instead. Boxed, so owned memory (every backend's scratch) stays small.
    borrowed: Option<Box<Option<OnDrop>>>,
    /// Set once a backend other than the allocating one (another stream) used the memory or a
    /// slice of it (slices share the flag): freeing it then waits for the whole device first.
    pub(crate) crossed: Arc<AtomicBool>,
}

impl<R: GpuRuntime> DeviceMem<R> {
    pub(crate) fn new(cache: &Arc<MemCache<R>>, bytes: usize) -> wavekit_core::Result<Self> {
        let ptr = if bytes == 0 { 0 } else { cache.take(bytes)? };
        Ok(DeviceMem {
            ptr,
            bytes,
            rt: Arc::clone(&cache.rt),
            cache: Some(Arc::clone(cache)),
            borrowed: None,
            crossed: Arc::new(AtomicBool::new(false)),
        })
    }

    /// Memory this value does not own: nothing is freed on drop, `on_drop` runs instead.
    pub(crate) fn adopted(rt: &Arc<R>, ptr: DevPtr, bytes: usize, on_drop: Option<OnDrop>) -> Self {
        DeviceMem {
            ptr,
            bytes,
            rt: Arc::clone(rt),
            cache: None,
            borrowed: Some(Box::new(on_drop)),
            crossed: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Drops the on-drop hook without running it (a buffer moved out of its ViewMut: the hook
    /// may refer to memory borrowed for the view's lifetime only).
    fn forget_hook(&mut self) {
        if let Some(hook) = self.borrowed.as_mut().and_then(|b| b.take()) {
            std::mem::forget(hook);
        }
    }

    /// Keeps the memory holding this from being reused once freed (another process maps it).
    pub(crate) fn mark_exported(&self) {
        if let Some(cache) = &self.cache {
            cache.mark_exported(self.ptr);
        }
    }

    /// `bytes` bytes from `offset` of this memory, borrowed: sharing the owner's runtime and
    /// its `crossed` flag, so the owner's free still waits for another stream's use of them.
    pub(crate) fn part(&self, offset: usize, bytes: usize) -> Self {
        DeviceMem {
            ptr: self.ptr + offset as DevPtr,
            bytes,
            rt: Arc::clone(&self.rt),
            cache: self.cache.clone(),
            borrowed: Some(Box::new(None)),
            crossed: Arc::clone(&self.crossed),
        }
    }
}

impl<R: GpuRuntime> Drop for DeviceMem<R> {
    fn drop(&mut self) {
        if let Some(on_drop) = self.borrowed.take() {
            if let Some(f) = *on_drop {
                f();
            }
            return;
        }
        if self.bytes != 0 {
            if self.crossed.load(Ordering::Acquire) {
                // Another stream may still have queued work on this memory, and the runtime's
                // free does not promise to wait for other streams (cuMemFree "may" synchronise):
                // wait for the device. An error here is reported by the next checked call.
                let _ = self.rt.make_current();
                let _ = self.rt.synchronize_device();
            }
            if let Some(cache) = &self.cache {
                // SAFETY: taken from this cache in `new` and owned only here.
                unsafe { cache.put(self.ptr) };
            }
        }
    }
}

/// `len` elements of `T` in device memory: owned, or borrowed inside a
/// [`View`](wavekit_core::View)/[`ViewMut`](wavekit_core::ViewMut).
pub struct GpuBuffer<T: Element, R: GpuRuntime> {
    pub(crate) mem: DeviceMem<R>,
    pub(crate) len: usize,
    /// For a buffer inside a ViewMut: the address it may be used at (0 until anchored).
    home: Option<usize>,
    _elem: PhantomData<T>,
}

impl<T: Element, R: GpuRuntime> GpuBuffer<T, R> {
    /// The memory back, for a backend that lends it again (a result slot): the buffer is owned
    /// and outside any view, so there is no hook to run or forget.
    pub(crate) fn into_mem(self) -> DeviceMem<R> {
        let this = std::mem::ManuallyDrop::new(self);
        // SAFETY: `this` is never used or dropped again; `mem` is read out exactly once and the
        // other fields hold nothing to free.
        unsafe { std::ptr::read(&this.mem) }
    }

    pub(crate) fn from_mem(mem: DeviceMem<R>, len: usize) -> Self {
        GpuBuffer {
            mem,
            len,
            home: None,
            _elem: PhantomData,
        }
    }

    /// A buffer for a ViewMut: refused by the backend anywhere but where the view anchors it.
    pub(crate) fn exclusive(mem: DeviceMem<R>, len: usize) -> Self {
        GpuBuffer {
            mem,
            len,
            home: Some(0),
            _elem: PhantomData,
        }
    }

    /// The device address of element 0, for a launch or a library call of the caller's own
    /// (cudarc, NCCL, a kernel compiled with `rtc`). Getting it is safe, as `Vec::as_ptr` is;
    /// using it is the caller's `unsafe`, which must uphold:
    ///
    /// - **Bounds.** The buffer is `len * size_of::<T>()` bytes from this address; nothing
    ///   past that belongs to it.
    /// - **Lifetime.** The address is valid while the buffer lives (and a view's, while its
    ///   view does); after the buffer is dropped the backend may reuse or free the memory.
    /// - **Ordering.** wavekit queues its work on the backend's stream and the `_into` calls
    ///   return before it has run: work of the caller's on another stream must wait for it
    ///   (`Backend::synchronize`, or an event on the stream), and work on that stream is
    ///   ordered with wavekit's already.
    /// - **Aliasing.** Writing through the address while the buffer is borrowed, or reading
    ///   it while it is borrowed mutably, breaks the guarantees that the borrows give the
    ///   safe API (on the SIMT executor, device memory is host memory: a data race).
    ///
    /// The checked forms of the copies are `Backend::download`, `Backend::write`,
    /// [`GpuBackend::copy`](crate::GpuBackend::copy) and
    /// [`GpuBackend::fill_zero`](crate::GpuBackend::fill_zero).
    pub fn device_ptr(&self) -> DevPtr {
        self.mem.ptr
    }

    /// Whether the buffer borrows its memory (a slice, or adopted memory) instead of owning it.
    pub fn is_borrowed(&self) -> bool {
        self.mem.borrowed.is_some()
    }

    /// False only for a buffer moved out of its ViewMut, which the backend refuses.
    pub(crate) fn usable(&self) -> bool {
        self.home.is_none() || self.at_anchor()
    }

    pub(crate) fn bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }
}

impl<T: Element, R: GpuRuntime> Drop for GpuBuffer<T, R> {
    fn drop(&mut self) {
        // A hook runs only where the view that made it is dropped, inside the view's lifetime;
        // a buffer moved out of its ViewMut may be dropped after that.
        if !self.usable() {
            self.mem.forget_hook();
        }
    }
}

// SAFETY: `home` is the address recorded by `anchor`; `GpuBackend::own`, which every method
// that touches a buffer's memory calls first, refuses a buffer that is not `usable`.
unsafe impl<T: Element, R: GpuRuntime> Anchored for GpuBuffer<T, R> {
    fn anchor(&mut self) {
        let here = self as *const Self as usize;
        if let Some(home) = self.home.as_mut() {
            *home = here;
        }
    }

    fn at_anchor(&self) -> bool {
        self.home == Some(self as *const Self as usize)
    }
}

impl<T: Element, R: GpuRuntime> DeviceBuffer<T> for GpuBuffer<T, R> {
    fn len(&self) -> usize {
        self.len
    }
}

impl<T: Element, R: GpuRuntime> std::fmt::Debug for GpuBuffer<T, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "GpuBuffer<{}>({} on {}, {:#x}{})",
            T::KIND.name(),
            self.len,
            R::BACKEND,
            self.mem.ptr,
            if self.is_borrowed() { ", borrowed" } else { "" }
        )
    }
}
