//! The CPU backend's type: its construction, the caller's slices as buffers without a copy, and
//! the buffer calls of `Backend` (allocation, upload, download, write, views). The collectives
//! are `RawBackend`'s, in lib.rs, each delegating to its own module.

use crate::buffer::CpuBuffer;
use crate::memory;
use crate::scratch::Scratch;
use std::ops::Range;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::host;
use wavekit_core::view::check_range;
use wavekit_core::width::WarpWidth;
use wavekit_core::{Backend, DeviceBuffer, View, ViewMut};

/// The CPU backend, simulating warps of 32 or 64 lanes.
pub struct CpuBackend {
    pub(crate) width: WarpWidth,
    pub(crate) scratch: Scratch,
    /// The workers' buffers of the scans (the 16-bit floats' inputs and results widened to
    /// f32, the float tiles' running folds) and of the half reduce (half.rs).
    pub(crate) wide: Scratch,
}

impl std::fmt::Debug for CpuBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The scratch is a cache of allocations, not state a caller sees.
        f.debug_struct("CpuBackend")
            .field("width", &self.width)
            .finish_non_exhaustive()
    }
}

/// `CpuBackend::new(width)`: what a world of ranks made from a warp width alone asks of its
/// backend (wavekit-dist's `ThreadWorld::run`).
///
/// ```
/// use wavekit_core::{Backend, WarpWidth};
/// let cpu = wavekit_cpu::CpuBackend::from(WarpWidth::W64);
/// assert_eq!(cpu.name(), "cpu/w64");
/// ```
impl From<WarpWidth> for CpuBackend {
    fn from(width: WarpWidth) -> CpuBackend {
        CpuBackend::new(width)
    }
}

impl CpuBackend {
    /// A CPU backend whose warps have `width` lanes. Every call runs on rayon's global pool
    /// and has finished when it returns.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W64);
    /// assert_eq!(cpu.warp_width().lanes(), 64);
    /// assert_eq!(cpu.name(), "cpu/w64");
    /// // Buffers are host memory; upload copies a slice in, download copies it out.
    /// let buf = cpu.upload(&[1u32, 2, 3])?;
    /// assert_eq!(buf.as_slice(), [1, 2, 3]);
    /// assert_eq!(cpu.reduce(&buf, ReduceOp::Sum)?, 6);
    /// assert_eq!(cpu.download(&buf)?, [1, 2, 3]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    pub fn new(width: WarpWidth) -> CpuBackend {
        CpuBackend {
            width,
            scratch: Scratch::default(),
            wide: Scratch::default(),
        }
    }

    /// The caller's slice as a read-only buffer, without a copy: every collective that takes
    /// an input buffer runs directly on `data`.
    ///
    /// ```
    /// use wavekit_cpu::CpuBackend;
    /// use wavekit_core::{Backend, Collectives, Predicate, ReduceOp, WarpWidth};
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let data: Vec<f32> = (1..=100).map(|i| i as f32).collect();
    /// let input = cpu.view(&data);
    /// assert_eq!(cpu.reduce(&input, ReduceOp::Sum)?, 5050.0);
    /// assert_eq!(cpu.count_if(&input, Predicate::Gt(50.0))?, 50);
    /// // A range of it, still without a copy:
    /// let first_ten = cpu.slice(&input, 0..10)?;
    /// assert_eq!(cpu.reduce(&first_ten, ReduceOp::Max)?, 10.0);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    pub fn view<'a, T: Element>(&self, data: &'a [T]) -> View<'a, CpuBuffer<T>> {
        // SAFETY: `data` is borrowed for 'a and only read through a View.
        unsafe { View::new(CpuBuffer::shared(data)) }
    }

    /// The caller's slice as a writable buffer, without a copy: collectives that write an
    /// output buffer write straight into `data`.
    ///
    /// ```
    /// use wavekit_cpu::CpuBackend;
    /// use wavekit_core::{Collectives, ReduceOp, ScanKind, WarpWidth};
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let data = [3i32, 1, 4, 1, 5];
    /// let mut sums = [0i32; 5];
    /// cpu.scan(&cpu.view(&data), &mut cpu.view_mut(&mut sums), ReduceOp::Sum, ScanKind::Inclusive)?;
    /// assert_eq!(sums, [3, 4, 8, 9, 14]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    pub fn view_mut<'a, T: Element>(&self, data: &'a mut [T]) -> ViewMut<'a, CpuBuffer<T>> {
        // SAFETY: `data` is borrowed exclusively for 'a.
        unsafe { ViewMut::new(CpuBuffer::exclusive(data)) }
    }
}

impl Backend for CpuBackend {
    type Buffer<T: Element> = CpuBuffer<T>;

    fn name(&self) -> String {
        format!("cpu/w{}", self.width.lanes())
    }

    fn warp_width(&self) -> WarpWidth {
        self.width
    }

    fn synchronize(&self) -> Result<()> {
        // Every call has finished its work before it returns.
        Ok(())
    }

    fn alloc<T: Element>(&self, len: usize) -> Result<CpuBuffer<T>> {
        Ok(CpuBuffer::from_vec(memory::zeroed(len)?))
    }

    fn upload<T: Element>(&self, data: &[T]) -> Result<CpuBuffer<T>> {
        let mut v = host::with_capacity(data.len())?;
        v.extend_from_slice(data);
        Ok(CpuBuffer::from_vec(v))
    }

    fn download<T: Element>(&self, buf: &CpuBuffer<T>) -> Result<Vec<T>> {
        let mut v = host::with_capacity(buf.len())?;
        v.extend_from_slice(buf.data()?);
        Ok(v)
    }

    fn write<T: Element>(&self, buf: &mut CpuBuffer<T>, data: &[T]) -> Result<()> {
        if buf.len() != data.len() {
            return Err(WavekitError::LengthMismatch {
                what: "write source",
                expected: buf.len(),
                got: data.len(),
            });
        }
        buf.data_mut()?.copy_from_slice(data);
        Ok(())
    }

    fn slice<'a, T: Element>(
        &self,
        buf: &'a CpuBuffer<T>,
        range: Range<usize>,
    ) -> Result<View<'a, CpuBuffer<T>>> {
        check_range(&range, buf.len())?;
        let data = &buf.data()?[range];
        // SAFETY: `data` is borrowed from `buf` for 'a, read-only.
        Ok(unsafe { View::new(CpuBuffer::shared(data)) })
    }

    fn slice_mut<'a, T: Element>(
        &self,
        buf: &'a mut CpuBuffer<T>,
        range: Range<usize>,
    ) -> Result<ViewMut<'a, CpuBuffer<T>>> {
        check_range(&range, buf.len())?;
        let data = &mut buf.data_mut()?[range];
        // SAFETY: `data` is borrowed exclusively from `buf` for 'a.
        Ok(unsafe { ViewMut::new(CpuBuffer::exclusive(data)) })
    }
}
