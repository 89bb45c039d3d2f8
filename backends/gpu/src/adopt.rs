//! Device memory the caller owns, used by wavekit without a copy: raw device pointers adopted
//! as [`View`]/[`ViewMut`] buffers (the vendor crates build their typed adapters, such as
//! cudarc slices, on these), and ranges of existing buffers.

use super::backend::GpuBackend;
use super::buffer::{DeviceMem, GpuBuffer, OnDrop};
use super::runtime::{DevPtr, GpuRuntime};
use std::ops::Range;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::view::check_range;
use wavekit_core::{View, ViewMut};

/// The bytes of `len` elements of `T` at `ptr`, checked: `Misaligned` unless `ptr` is aligned
/// for `T`, `TooLarge` when the size or the end address overflows.
fn adopted_bytes<T: Element>(ptr: DevPtr, len: usize) -> Result<usize> {
    let align = align_of::<T>();
    if !ptr.is_multiple_of(align as DevPtr) {
        return Err(WavekitError::Misaligned { addr: ptr, align });
    }
    let too_large = || WavekitError::TooLarge {
        what: "adopted length",
        value: len as u64,
        limit: (DevPtr::MAX - ptr) / size_of::<T>() as u64,
    };
    let bytes = len.checked_mul(size_of::<T>()).ok_or_else(too_large)?;
    ptr.checked_add(bytes as DevPtr).ok_or_else(too_large)?;
    Ok(bytes)
}

impl<R: GpuRuntime> GpuBackend<R> {
    /// `len` elements of `T` at device address `ptr`, memory the caller owns, as a read-only
    /// buffer of this backend: no copy, nothing freed when the view drops. The kernels read it
    /// on this backend's stream; ordering against work on other streams is the caller's.
    ///
    /// ```
    /// use wavekit_core::{Collectives, ReduceOp, WarpWidth};
    /// let simt = wavekit_simt::open(WarpWidth::W32)?;
    /// let data = [1.5f64, 2.5, 3.0];
    /// // The executor's device memory is host memory, so a host address stands in for a
    /// // device pointer another library allocated.
    /// let view = unsafe { simt.adopt::<f64>(data.as_ptr() as u64, data.len())? };
    /// assert_eq!(simt.reduce(&view, ReduceOp::Sum)?, 7.0);
    /// // A misaligned address is refused before anything runs.
    /// assert!(unsafe { simt.adopt::<f64>(data.as_ptr() as u64 + 1, 1) }.is_err());
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Safety
    /// `ptr..ptr + len * size_of::<T>()` is memory of this backend's device, reachable by its
    /// kernels, holding initialised values of `T`; it stays allocated, and nobody writes it,
    /// until the view is dropped and the work this backend queued on it has finished (every
    /// call waits for its work today; call `synchronize` to be sure).
    ///
    /// # Errors
    /// `Misaligned` when `ptr` is not a multiple of `align_of::<T>()`; `TooLarge` when the
    /// byte size or the end address overflows.
    pub unsafe fn adopt<'a, T: Element>(
        &self,
        ptr: DevPtr,
        len: usize,
    ) -> Result<View<'a, GpuBuffer<T, R>>> {
        // SAFETY: the caller's contract is adopt_with's, with no hook.
        unsafe { self.adopt_with(ptr, len, None) }
    }

    /// As [`GpuBackend::adopt`], writable: the kernels may write the memory.
    ///
    /// ```
    /// use wavekit_core::{Collectives, ReduceOp, ScanKind, WarpWidth};
    /// let simt = wavekit_simt::open(WarpWidth::W32)?;
    /// let data = [1u32, 2, 3, 4];
    /// let mut out = [0u32; 4];
    /// let input = unsafe { simt.adopt::<u32>(data.as_ptr() as u64, 4)? };
    /// let mut output = unsafe { simt.adopt_mut::<u32>(out.as_mut_ptr() as u64, 4)? };
    /// simt.scan(&input, &mut output, ReduceOp::Sum, ScanKind::Exclusive)?;
    /// drop(output);
    /// assert_eq!(out, [0, 1, 3, 6]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Safety
    /// As [`GpuBackend::adopt`], and nobody else reads or writes the memory until the view is
    /// dropped and this backend's work on it has finished.
    ///
    /// # Errors
    /// As [`GpuBackend::adopt`].
    pub unsafe fn adopt_mut<'a, T: Element>(
        &self,
        ptr: DevPtr,
        len: usize,
    ) -> Result<ViewMut<'a, GpuBuffer<T, R>>> {
        // SAFETY: the caller's contract is adopt_mut_with's, with no hook.
        unsafe { self.adopt_mut_with(ptr, len, None) }
    }

    /// As [`GpuBackend::adopt`], running `on_drop` when the view is dropped (after the last
    /// use of the memory was queued): the vendor crates order the memory owner's stream after
    /// this backend's with it. On an error `on_drop` is dropped without running.
    ///
    /// `on_drop` runs inside `'a` or not at all (a view that is leaked never runs it; for
    /// [`GpuBackend::adopt_mut_with`], neither does a buffer moved out of its view), so it may
    /// use what is borrowed for `'a`, such as the memory owner's events.
    ///
    /// # Safety
    /// As [`GpuBackend::adopt`].
    ///
    /// # Errors
    /// As [`GpuBackend::adopt`].
    pub unsafe fn adopt_with<'a, T: Element>(
        &self,
        ptr: DevPtr,
        len: usize,
        on_drop: Option<OnDrop>,
    ) -> Result<View<'a, GpuBuffer<T, R>>> {
        let bytes = adopted_bytes::<T>(ptr, len)?;
        let mem = DeviceMem::adopted(&self.rt, ptr, bytes, on_drop);
        // SAFETY: the caller promises the memory for 'a, read-only; DeviceMem::adopted frees
        // nothing.
        Ok(unsafe { View::new(GpuBuffer::from_mem(mem, len)) })
    }

    /// As [`GpuBackend::adopt_mut`], running `on_drop` when the view is dropped (see
    /// [`GpuBackend::adopt_with`]).
    ///
    /// # Safety
    /// As [`GpuBackend::adopt_mut`].
    ///
    /// # Errors
    /// As [`GpuBackend::adopt`].
    pub unsafe fn adopt_mut_with<'a, T: Element>(
        &self,
        ptr: DevPtr,
        len: usize,
        on_drop: Option<OnDrop>,
    ) -> Result<ViewMut<'a, GpuBuffer<T, R>>> {
        let bytes = adopted_bytes::<T>(ptr, len)?;
        let mem = DeviceMem::adopted(&self.rt, ptr, bytes, on_drop);
        // SAFETY: the caller promises the memory for 'a, exclusively; nothing is freed.
        Ok(unsafe { ViewMut::new(GpuBuffer::exclusive(mem, len)) })
    }

    /// The memory of elements `range` of `buf`, borrowed (checked: same device, in range).
    fn part_of<T: Element>(
        &self,
        buf: &GpuBuffer<T, R>,
        range: &Range<usize>,
    ) -> Result<DeviceMem<R>> {
        self.own(buf)?;
        check_range(range, buf.len)?;
        Ok(buf
            .mem
            .part(range.start * size_of::<T>(), range.len() * size_of::<T>()))
    }

    /// `Backend::slice`: the range of `buf`, borrowed.
    pub(crate) fn slice_of<'a, T: Element>(
        &self,
        buf: &'a GpuBuffer<T, R>,
        range: Range<usize>,
    ) -> Result<View<'a, GpuBuffer<T, R>>> {
        let mem = self.part_of(buf, &range)?;
        // SAFETY: a read-only part of `buf`, which is borrowed for 'a; part() frees nothing.
        Ok(unsafe { View::new(GpuBuffer::from_mem(mem, range.len())) })
    }

    /// `Backend::slice_mut`: the range of `buf`, borrowed exclusively.
    pub(crate) fn slice_mut_of<'a, T: Element>(
        &self,
        buf: &'a mut GpuBuffer<T, R>,
        range: Range<usize>,
    ) -> Result<ViewMut<'a, GpuBuffer<T, R>>> {
        let mem = self.part_of(buf, &range)?;
        // SAFETY: a part of `buf`, which is borrowed exclusively for 'a; part() frees nothing.
        Ok(unsafe { ViewMut::new(GpuBuffer::exclusive(mem, range.len())) })
    }
}
