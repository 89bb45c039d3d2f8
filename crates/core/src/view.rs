//! Buffers that borrow memory instead of owning it: a caller's slice, a sub-range of another
//! buffer, device memory adopted from another library. A [`View`] is read-only, a [`ViewMut`]
//! writable; both dereference to the backend's own buffer type, so every collective that takes
//! `&B::Buffer<T>` or `&mut B::Buffer<T>` takes them unchanged (`b.reduce(&view, op)` by
//! deref coercion, or `&*view`, `&mut *view`).
//!
//! Backends make them (`Backend::slice`, `CpuBackend::view`, `GpuBackend::adopt`, the CUDA
//! crate's cudarc adapters); the constructors here are `unsafe` because only the backend knows
//! that the buffer inside borrows memory that stays valid for `'a`.
//!
//! Why a `ViewMut` keeps its buffer in a box: `&mut B::Buffer<T>` lets safe code move the
//! buffer out (`std::mem::swap` with an owned buffer), and a buffer type has no lifetime to stop
//! the moved-out borrow from outliving the memory. So the buffer inside a `ViewMut` is
//! [`Anchored`]: it records the address it was placed at, and its backend refuses it
//! (`ForeignBuffer`) anywhere else. A `ViewMut` that finds its buffer gone when dropped leaks
//! the box, so that address is never reused and the moved-out buffer stays refused for good.

use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut, Range};

use crate::error::{Result, WavekitError};

/// A read-only buffer of a backend that borrows its memory for `'a` and frees nothing: a
/// caller's slice, a range of another buffer, or adopted device memory. Dereferences to the
/// backend's buffer type, so it goes wherever `&B::Buffer<T>` does.
///
/// ```
/// use wavekit_core::{Backend, Collectives, ReduceOp};
/// # use wavekit_core::Result;
/// # fn run<B: Collectives>(b: &B) -> Result<()> {
/// let buf = b.upload(&[1i32, 2, 3, 4, 5])?;
/// let middle = b.slice(&buf, 1..4)?; // elements 2, 3, 4: no copy
/// assert_eq!(b.reduce(&middle, ReduceOp::Sum)?, 9);
/// # Ok(()) }
/// ```
pub struct View<'a, B> {
    inner: B,
    _borrow: PhantomData<&'a B>,
}

impl<'a, B> View<'a, B> {
    /// Wraps a buffer that borrows memory.
    ///
    /// # Safety
    /// `inner` reads memory that stays valid, and is not written by anyone, for all of `'a`;
    /// dropping `inner` frees none of it; nothing can obtain `&mut` to `inner`'s memory
    /// through `&inner` (the backend's methods only read an input buffer), and a clone of
    /// `inner` owns a copy.
    pub unsafe fn new(inner: B) -> Self {
        View {
            inner,
            _borrow: PhantomData,
        }
    }
}

impl<B> Deref for View<'_, B> {
    type Target = B;
    fn deref(&self) -> &B {
        &self.inner
    }
}

impl<B: std::fmt::Debug> std::fmt::Debug for View<'_, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("View").field(&self.inner).finish()
    }
}

/// A buffer type that a [`ViewMut`] can hold: it remembers where the view placed it and can
/// tell whether it is still there (see the module docs for why).
///
/// # Safety
/// After `anchor`, `at_anchor` is true exactly while the value sits at the address `anchor`
/// recorded, and the backend refuses the buffer (`ForeignBuffer`, or a documented panic in a
/// slice accessor) everywhere it would touch its memory while `at_anchor` is false.
pub unsafe trait Anchored {
    /// Records the buffer's current address as the only one it may be used at.
    fn anchor(&mut self);
    /// Whether this is an anchored buffer at the address `anchor` recorded.
    fn at_anchor(&self) -> bool;
}

/// A writable buffer of a backend that borrows its memory exclusively for `'a` and frees
/// nothing. Dereferences (mutably) to the backend's buffer type, so it goes wherever
/// `&mut B::Buffer<T>` does. Moving the buffer out of it (`std::mem::swap`) is safe but leaves
/// a buffer every backend refuses.
///
/// ```
/// use wavekit_core::{Backend, Collectives, ReduceOp, ScanKind};
/// # use wavekit_core::Result;
/// # fn run<B: Collectives>(b: &B) -> Result<()> {
/// let input = b.upload(&[1i32, 2, 3])?;
/// let mut out = b.alloc::<i32>(5)?;
/// {
///     let mut tail = b.slice_mut(&mut out, 2..5)?; // scan into elements 2..5 only
///     b.scan(&input, &mut tail, ReduceOp::Sum, ScanKind::Inclusive)?;
/// }
/// assert_eq!(b.download(&out)?, [0, 0, 1, 3, 6]);
/// # Ok(()) }
/// ```
pub struct ViewMut<'a, B: Anchored> {
    inner: ManuallyDrop<Box<B>>,
    _borrow: PhantomData<&'a mut B>,
}

impl<'a, B: Anchored> ViewMut<'a, B> {
    /// Wraps a buffer that borrows memory exclusively, anchoring it at its new address.
    ///
    /// # Safety
    /// `inner` reads and writes memory that stays valid, and that nobody else reads or writes,
    /// for all of `'a`; dropping `inner` frees none of it.
    pub unsafe fn new(inner: B) -> Self {
        let mut inner = Box::new(inner);
        inner.anchor();
        ViewMut {
            inner: ManuallyDrop::new(inner),
            _borrow: PhantomData,
        }
    }
}

impl<B: Anchored> Deref for ViewMut<'_, B> {
    type Target = B;
    fn deref(&self) -> &B {
        &self.inner
    }
}

impl<B: Anchored> DerefMut for ViewMut<'_, B> {
    fn deref_mut(&mut self) -> &mut B {
        &mut self.inner
    }
}

impl<B: Anchored> Drop for ViewMut<'_, B> {
    fn drop(&mut self) {
        if self.inner.at_anchor() {
            // SAFETY: dropped once, here, and never touched again.
            unsafe { ManuallyDrop::drop(&mut self.inner) };
        }
        // Otherwise our buffer was moved out and lives on somewhere, refused because it is not
        // at this address: the box is leaked so the address stays taken and it can never be
        // here again. (What was swapped in leaks with it; only a misuse gets here.)
    }
}

impl<B: Anchored + std::fmt::Debug> std::fmt::Debug for ViewMut<'_, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ViewMut").field(&*self.inner).finish()
    }
}

/// `range` checked against a buffer of `len` elements: `InvalidRange` unless
/// `start <= end <= len`. Shared by every backend's `slice` and `slice_mut`.
///
/// # Errors
/// `InvalidRange` with the range and the length.
pub fn check_range(range: &Range<usize>, len: usize) -> Result<()> {
    if range.start <= range.end && range.end <= len {
        Ok(())
    } else {
        Err(WavekitError::InvalidRange {
            start: range.start,
            end: range.end,
            len,
        })
    }
}
