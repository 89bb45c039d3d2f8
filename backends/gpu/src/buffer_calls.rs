//! The buffer calls of the `Backend` trait for `GpuBackend`: its name and width, waiting for
//! its stream, and the device buffers (allocation, upload, download, write, views), and the
//! checked device-side copy and zero fill between its buffers: the safe forms of the runtime's
//! raw `GpuRuntime` copies. The collectives are `RawBackend`'s, in raw_backend.rs.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::runtime::GpuRuntime;
use std::ops::Range;
use wavekit_core::element::{Element, as_bytes};
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::width::WarpWidth;
use wavekit_core::{Backend, View, ViewMut};

impl<R: GpuRuntime> Backend for GpuBackend<R> {
    type Buffer<T: Element> = GpuBuffer<T, R>;

    fn name(&self) -> String {
        let emu = if self.emulation() {
            " [emulated primitives]"
        } else {
            ""
        };
        format!(
            "{}:{} ({}){emu}",
            R::BACKEND,
            self.rt.ordinal(),
            self.rt.device_name()
        )
    }

    fn warp_width(&self) -> WarpWidth {
        self.width
    }

    /// Waits for the work queued on this backend's stream, then returns the first error its
    /// kernels reported (see [`Collectives`](wavekit_core::Collectives)).
    fn synchronize(&self) -> Result<()> {
        self.synchronize_flushed()
    }

    fn alloc<T: Element>(&self, len: usize) -> Result<GpuBuffer<T, R>> {
        self.rt.make_current()?;
        let buf = self.buffer_zeroed(len)?;
        // The zero fill is queued on this stream: wait for it (as `upload` waits for its copy),
        // so that a backend on another stream of the device may write the buffer at once.
        // Without this, its kernel could run before the fill and be overwritten by zeros
        // (found by compute-sanitizer racecheck slowing the kernels in tests/fuzz_streams.rs).
        if len != 0 {
            self.rt.synchronize()?;
        }
        Ok(buf)
    }

    fn upload<T: Element>(&self, data: &[T]) -> Result<GpuBuffer<T, R>> {
        self.rt.make_current()?;
        self.buffer_from(data)
    }

    fn download<T: Element>(&self, buf: &GpuBuffer<T, R>) -> Result<Vec<T>> {
        self.own(buf)?;
        self.read_flushed(&buf.mem, buf.len)
    }

    fn write<T: Element>(&self, buf: &mut GpuBuffer<T, R>, data: &[T]) -> Result<()> {
        self.own(buf)?;
        if data.len() != buf.len {
            return Err(WavekitError::LengthMismatch {
                what: "write source",
                expected: buf.len,
                got: data.len(),
            });
        }
        self.rt.make_current()?;
        self.write_mem(&mut buf.mem, as_bytes(data))
    }

    fn slice<'a, T: Element>(
        &self,
        buf: &'a GpuBuffer<T, R>,
        range: Range<usize>,
    ) -> Result<View<'a, GpuBuffer<T, R>>> {
        self.slice_of(buf, range)
    }

    fn slice_mut<'a, T: Element>(
        &self,
        buf: &'a mut GpuBuffer<T, R>,
        range: Range<usize>,
    ) -> Result<ViewMut<'a, GpuBuffer<T, R>>> {
        self.slice_mut_of(buf, range)
    }
}

impl<R: GpuRuntime> GpuBackend<R> {
    /// Copies `src` into `dst` on the device, queued on this backend's stream after the work
    /// queued before (it returns without waiting, like the `_into` collectives; `download`
    /// and `synchronize` wait). The lengths must match; copy between ranges with views.
    /// The checked form of [`GpuRuntime::copy_dtod`].
    ///
    /// ```
    /// use wavekit_core::{Backend, WarpWidth};
    /// let b = wavekit_simt::open(WarpWidth::W32)?;
    /// let src = b.upload(&[1u32, 2, 3, 4])?;
    /// let mut dst = b.alloc::<u32>(6)?;
    /// // Elements 1..3 of `src` into elements 4..6 of `dst`.
    /// let (part, mut tail) = (b.slice(&src, 1..3)?, b.slice_mut(&mut dst, 4..6)?);
    /// b.copy(&part, &mut tail)?;
    /// drop(tail);
    /// assert_eq!(b.download(&dst)?, [0, 0, 0, 0, 2, 3]);
    /// // Lengths that differ are refused before anything is copied.
    /// assert!(b.copy(&src, &mut dst).is_err());
    /// assert_eq!(b.download(&dst)?, [0, 0, 0, 0, 2, 3]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` when `dst.len() != src.len()`; `ForeignBuffer` for a buffer of another
    /// device (or one moved out of its view); a `Device` error.
    pub fn copy<T: Element>(&self, src: &GpuBuffer<T, R>, dst: &mut GpuBuffer<T, R>) -> Result<()> {
        self.own(src)?;
        self.own(dst)?;
        if dst.len != src.len {
            return Err(WavekitError::LengthMismatch {
                what: "copy destination (the source's length)",
                expected: src.len,
                got: dst.len,
            });
        }
        let bytes = dst.bytes();
        if bytes == 0 {
            return Ok(());
        }
        self.rt.make_current()?;
        // SAFETY: each buffer's memory is `len * size_of::<T>()` = `bytes` bytes of one live
        // region (DeviceMem's invariant: an allocation of at least that size, a checked part
        // of one, or memory an `adopt` caller vouched for), reachable by this runtime (`own`
        // checked the device). They do not overlap: `dst` is borrowed exclusively, and the
        // only safe handles to parts of one allocation are views that borrow their parent, so
        // no `&` to memory overlapping `dst` coexists with it (adopted memory is kept apart by
        // `adopt_mut`'s contract). For the same reason nothing else writes `src` or uses `dst`:
        // kernels queued earlier on this stream are ordered before the copy, and freeing
        // either buffer afterwards waits for this stream (DeviceMem's drop).
        unsafe { self.rt.copy_dtod(dst.device_ptr(), src.device_ptr(), bytes) }
    }

    /// Sets every element of `buf` to zero (all bits clear: 0, or +0.0 for the floats) on the
    /// device, queued on this backend's stream (it returns without waiting). The checked form
    /// of [`GpuRuntime::memset_zero`]; `Backend::alloc` already returns zeroed buffers.
    ///
    /// ```
    /// use wavekit_core::{Backend, WarpWidth};
    /// let b = wavekit_simt::open(WarpWidth::W32)?;
    /// let mut buf = b.upload(&[1.5f32, 2.5, 3.5])?;
    /// let mut tail = b.slice_mut(&mut buf, 1..3)?;
    /// b.fill_zero(&mut tail)?;
    /// drop(tail);
    /// assert_eq!(b.download(&buf)?, [1.5, 0.0, 0.0]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `ForeignBuffer`; a `Device` error.
    pub fn fill_zero<T: Element>(&self, buf: &mut GpuBuffer<T, R>) -> Result<()> {
        self.own(buf)?;
        self.rt.make_current()?;
        let bytes = buf.bytes();
        self.zero_mem(&mut buf.mem, bytes)
    }
}
