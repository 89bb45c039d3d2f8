//! `CpuBuffer`: host memory that is either owned (a `Vec`) or borrowed from the caller
//! (`CpuBackend::view`, `view_mut`, `slice`, `slice_mut`), so CPU collectives run directly on a
//! user's slices. A borrowed buffer only ever exists inside a `View` (read-only: nothing hands
//! out `&mut` to its data) or a `ViewMut` (anchored: refused once moved out of it).

use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::{Anchored, DeviceBuffer};

enum Store<T> {
    Owned(Vec<T>),
    /// Borrowed read-only for the life of the enclosing `View`.
    Shared {
        ptr: *const T,
        len: usize,
    },
    /// Borrowed exclusively for the life of the enclosing `ViewMut`, usable only at `home`
    /// (0 until the view anchors it).
    Exclusive {
        ptr: *mut T,
        len: usize,
        home: usize,
    },
}

/// A CPU "device" buffer: host memory, owned or borrowed from the caller inside a
/// [`View`](wavekit_core::View) or [`ViewMut`](wavekit_core::ViewMut).
pub struct CpuBuffer<T> {
    store: Store<T>,
}

// SAFETY: an owned buffer is a Vec<T>; a borrowed one stands for `&[T]` or `&mut [T]`. All three
// are Send and Sync when T is both, which every Element is.
unsafe impl<T: Send + Sync> Send for CpuBuffer<T> {}
// SAFETY: as for Send: `&CpuBuffer<T>` gives only `&[T]` access, Sync when T is.
unsafe impl<T: Send + Sync> Sync for CpuBuffer<T> {}

/// The message of the one panic a moved-out view buffer can cause (`as_slice`, `clone`).
const MOVED_OUT: &str = "a CpuBuffer moved out of its ViewMut (std::mem::swap) can no longer \
                         be read: its memory may be gone";

impl<T: Element> CpuBuffer<T> {
    /// An owned buffer holding `data`.
    ///
    /// ```
    /// use wavekit_cpu::CpuBuffer;
    /// let buf = CpuBuffer::from_vec(vec![1u32, 2]);
    /// assert_eq!(buf.as_slice(), [1, 2]);
    /// ```
    pub fn from_vec(data: Vec<T>) -> Self {
        CpuBuffer {
            store: Store::Owned(data),
        }
    }

    /// # Safety
    /// `data` stays valid and unwritten while the buffer lives (the enclosing `View`'s `'a`).
    pub(crate) unsafe fn shared(data: &[T]) -> Self {
        CpuBuffer {
            store: Store::Shared {
                ptr: data.as_ptr(),
                len: data.len(),
            },
        }
    }

    /// # Safety
    /// `data` stays valid and used by nobody else while the buffer lives (the enclosing
    /// `ViewMut`'s `'a`).
    pub(crate) unsafe fn exclusive(data: &mut [T]) -> Self {
        CpuBuffer {
            store: Store::Exclusive {
                ptr: data.as_mut_ptr(),
                len: data.len(),
                home: 0,
            },
        }
    }

    /// The elements, or `ForeignBuffer` for a buffer moved out of its `ViewMut`.
    pub(crate) fn data(&self) -> Result<&[T]> {
        match self.store {
            Store::Owned(ref v) => Ok(v),
            // SAFETY: the enclosing View keeps the borrow alive and unwritten.
            Store::Shared { ptr, len } => Ok(unsafe { std::slice::from_raw_parts(ptr, len) }),
            Store::Exclusive { ptr, len, .. } if self.at_anchor() => {
                // SAFETY: at its anchor, so inside the ViewMut that holds the exclusive borrow.
                Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
            }
            Store::Exclusive { .. } => Err(WavekitError::ForeignBuffer),
        }
    }

    /// The elements, writable; `ForeignBuffer` for a buffer moved out of its `ViewMut`. A
    /// read-only view never reaches here (only `&` to it exists), but is refused all the same.
    pub(crate) fn data_mut(&mut self) -> Result<&mut [T]> {
        let at_anchor = self.at_anchor();
        match self.store {
            Store::Owned(ref mut v) => Ok(v),
            Store::Exclusive { ptr, len, .. } if at_anchor => {
                // SAFETY: at its anchor, so inside the ViewMut that holds the exclusive borrow,
                // and `&mut self` makes this the only access.
                Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
            }
            _ => Err(WavekitError::ForeignBuffer),
        }
    }

    /// The elements.
    ///
    /// ```
    /// use wavekit_cpu::CpuBackend;
    /// use wavekit_core::WarpWidth;
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let data = [5i64, 6, 7];
    /// assert_eq!(cpu.view(&data).as_slice(), [5, 6, 7]);
    /// ```
    ///
    /// # Panics
    /// For a buffer moved out of its `ViewMut` (`std::mem::swap(&mut owned, &mut *view)`),
    /// whose memory may be gone.
    pub fn as_slice(&self) -> &[T] {
        self.data().expect(MOVED_OUT)
    }

    /// The elements, writable in place (the buffer's length is fixed).
    ///
    /// ```
    /// use wavekit_cpu::CpuBuffer;
    /// let mut buf = CpuBuffer::from_vec(vec![1u32, 2]);
    /// buf.as_mut_slice()[0] = 7;
    /// assert_eq!(buf.as_slice(), [7, 2]);
    /// ```
    ///
    /// # Panics
    /// As [`CpuBuffer::as_slice`], and for a read-only view's buffer (only reachable through
    /// `&`, so never in practice).
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.data_mut().expect(MOVED_OUT)
    }

    /// The elements as a `Vec`: the buffer's own for an owned buffer, a copy for a view.
    ///
    /// ```
    /// use wavekit_cpu::CpuBuffer;
    /// assert_eq!(CpuBuffer::from_vec(vec![3u32]).into_vec(), [3]);
    /// ```
    ///
    /// # Panics
    /// As [`CpuBuffer::as_slice`].
    pub fn into_vec(self) -> Vec<T> {
        match self.store {
            Store::Owned(v) => v,
            _ => self.as_slice().to_vec(),
        }
    }

    /// Whether this buffer borrows its memory (it came from a view or a slice).
    ///
    /// ```
    /// use wavekit_cpu::{CpuBackend, CpuBuffer};
    /// use wavekit_core::WarpWidth;
    /// assert!(!CpuBuffer::from_vec(vec![1u32]).is_borrowed());
    /// assert!(CpuBackend::new(WarpWidth::W32).view(&[1u32]).is_borrowed());
    /// ```
    pub fn is_borrowed(&self) -> bool {
        !matches!(self.store, Store::Owned(_))
    }
}

// SAFETY: `home` is the address recorded by `anchor`, and `data`/`data_mut` refuse an
// exclusive buffer anywhere else (as_slice and clone panic through `data`).
unsafe impl<T> Anchored for CpuBuffer<T> {
    fn anchor(&mut self) {
        let here = self as *const Self as usize;
        if let Store::Exclusive { ref mut home, .. } = self.store {
            *home = here;
        }
    }

    fn at_anchor(&self) -> bool {
        matches!(self.store, Store::Exclusive { home, .. } if home == self as *const Self as usize)
    }
}

impl<T: Element> DeviceBuffer<T> for CpuBuffer<T> {
    fn len(&self) -> usize {
        match self.store {
            Store::Owned(ref v) => v.len(),
            Store::Shared { len, .. } | Store::Exclusive { len, .. } => len,
        }
    }
}

/// A deep copy that owns its memory, also of a view (so a clone never shares a borrow).
impl<T: Element> Clone for CpuBuffer<T> {
    fn clone(&self) -> Self {
        CpuBuffer::from_vec(self.as_slice().to_vec())
    }
}

impl<T: Element> PartialEq for CpuBuffer<T> {
    fn eq(&self, other: &Self) -> bool {
        self.data().ok() == other.data().ok()
    }
}

impl<T: Element> std::fmt::Debug for CpuBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.store {
            Store::Owned(_) => "owned",
            Store::Shared { .. } => "view",
            Store::Exclusive { .. } => "view_mut",
        };
        match self.data() {
            Ok(d) => write!(f, "CpuBuffer<{kind}>({d:?})"),
            Err(_) => write!(f, "CpuBuffer<{kind}>(moved out of its view)"),
        }
    }
}
