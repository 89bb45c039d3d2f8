//! The buffer calls of the `Backend` trait for `GpuBackend`: its name and width, waiting for
//! its stream, and the device buffers (allocation, upload, download, write, views). The
//! collectives are `RawBackend`'s, in imp.rs.

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
        self.read_flushed(buf.device_ptr(), buf.len)
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
        if buf.bytes() != 0 {
            self.rt.copy_htod(buf.device_ptr(), as_bytes(data))?;
        }
        Ok(())
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
