//! The `Backend` trait: the device memory and identity every backend (cpu, simt, cuda, hip)
//! gives users. The unvalidated kernel entry points are the separate `RawBackend` trait
//! (raw.rs); the kinds of primitive call ([`Vote`], [`Shfl`], [`Match`], [`ScanKind`]) and
//! [`HistogramResult`] live in [`vocab`](crate::vocab), re-exported here where they were.

use crate::element::Element;
use crate::error::Result;
use crate::view::{Anchored, View, ViewMut};
use crate::width::WarpWidth;
use std::ops::Range;

pub use crate::vocab::{HistogramResult, Match, ScanKind, Shfl, Vote};

/// Memory that lives on a backend's device between calls.
pub trait DeviceBuffer<T: Element>: Send + Sync {
    /// Elements in the buffer.
    fn len(&self) -> usize;
    /// `true` when the buffer holds no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A device wavekit runs on (the CPU, the SIMT executor, a CUDA or HIP GPU): its memory and
/// identity. The primitives and collectives come with it, from [`WarpPrimitives`] and
/// [`Collectives`].
///
/// [`WarpPrimitives`]: crate::WarpPrimitives
/// [`Collectives`]: crate::Collectives
pub trait Backend: Send + Sync + Sized {
    /// The backend's buffer: owned memory, or borrowed memory inside a [`View`]/[`ViewMut`].
    type Buffer<T: Element>: DeviceBuffer<T> + Anchored + std::fmt::Debug;

    /// A short name with the device, such as `cpu/w32` or `cuda:0 (NVIDIA H100)`.
    fn name(&self) -> String;
    /// The device's warp width, read at run time.
    fn warp_width(&self) -> WarpWidth;
    /// Waits for all work queued on the device (on a GPU backend: its stream), so that the
    /// outputs of asynchronous calls (the `_into` collectives, `scan`, `spmv`) hold their
    /// results.
    ///
    /// # Errors
    /// A `Device` error the runtime reports for queued work, or the first error, in launch
    /// order, that a queued kernel reported (an `IndexOutOfRange` or a `Device` error naming
    /// its call).
    fn synchronize(&self) -> Result<()>;

    /// A buffer of `len` zeroed elements.
    ///
    /// # Errors
    /// `OutOfMemory` when the device (or, for host-memory backends, the host limit) has no
    /// room for `len` elements, `u64::MAX` bytes when the size overflows; a `Device` error.
    fn alloc<T: Element>(&self, len: usize) -> Result<Self::Buffer<T>>;
    /// A device buffer holding a copy of `data`.
    ///
    /// # Errors
    /// `OutOfMemory`; a `Device` error.
    fn upload<T: Element>(&self, data: &[T]) -> Result<Self::Buffer<T>>;
    /// The buffer's elements, copied to the host once the work queued before has written
    /// them.
    ///
    /// # Errors
    /// `ForeignBuffer`; `OutOfMemory`; a `Device` error; as `synchronize`, the first error a
    /// queued kernel reported.
    fn download<T: Element>(&self, buf: &Self::Buffer<T>) -> Result<Vec<T>>;
    /// Overwrites `buf` with `data` (same length, checked by the caller).
    ///
    /// # Errors
    /// `LengthMismatch` when `data` is not the buffer's length (nothing is written);
    /// `ForeignBuffer`; a `Device` error.
    fn write<T: Element>(&self, buf: &mut Self::Buffer<T>, data: &[T]) -> Result<()>;

    /// Elements `range` of `buf` as a read-only buffer, without a copy: a collective given
    /// the view reads only that range.
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, ReduceOp};
    /// # fn run<B: Collectives>(b: &B) -> wavekit_core::Result<()> {
    /// let buf = b.upload(&[1u32, 2, 3, 4])?;
    /// let tail = b.slice(&buf, 2..4)?;
    /// assert_eq!(b.reduce(&tail, ReduceOp::Sum)?, 7);
    /// assert!(b.slice(&buf, 3..5).is_err()); // past the end: InvalidRange
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// `InvalidRange` unless `range.start <= range.end <= buf.len()`; `ForeignBuffer` for a
    /// buffer of another device (or one moved out of its [`ViewMut`]).
    fn slice<'a, T: Element>(
        &self,
        buf: &'a Self::Buffer<T>,
        range: Range<usize>,
    ) -> Result<View<'a, Self::Buffer<T>>>;
    /// Elements `range` of `buf` as a writable buffer, without a copy: a collective writing
    /// into the view writes only that range.
    ///
    /// # Errors
    /// As [`Backend::slice`].
    fn slice_mut<'a, T: Element>(
        &self,
        buf: &'a mut Self::Buffer<T>,
        range: Range<usize>,
    ) -> Result<ViewMut<'a, Self::Buffer<T>>>;
}
