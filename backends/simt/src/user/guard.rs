//! A buffer's elements placed against an inaccessible page, for [`Kernel::launch_guarded`]:
//! a kernel indexing past the end (or a page before the start) faults at once, which the
//! executor reports (`InvalidAccess`) and survives, instead of writing over whatever lies
//! beside the buffer in the program's heap.
//!
//! [`Kernel::launch_guarded`]: super::Kernel::launch_guarded

use std::ffi::{c_int, c_long, c_void};

unsafe extern "C" {
    fn mmap(
        addr: *mut c_void,
        len: usize,
        prot: c_int,
        flags: c_int,
        fd: c_int,
        off: c_long,
    ) -> *mut c_void;
    fn mprotect(addr: *mut c_void, len: usize, prot: c_int) -> c_int;
    fn munmap(addr: *mut c_void, len: usize) -> c_int;
}
const PROT_NONE: c_int = 0;
const PROT_RW: c_int = 1 | 2;
const MAP_PRIVATE_ANONYMOUS: c_int = 0x02 | 0x20;
const PAGE: usize = 4096;

/// A mapping of `[guard][data pages][guard]` whose data ends where the last guard begins.
pub(super) struct Guarded {
    base: *mut c_void,
    len: usize,
    data: *mut u8,
    bytes: usize,
}

impl Guarded {
    /// A guarded copy of `bytes` bytes at `src`; None if the mapping fails.
    pub(super) fn copy_of(src: *const u8, bytes: usize) -> Option<Guarded> {
        let pages = bytes.div_ceil(PAGE).max(1);
        let len = (pages + 2) * PAGE;
        // SAFETY: a fresh anonymous mapping, then the protection of its first and last page.
        let base = unsafe {
            mmap(
                std::ptr::null_mut(),
                len,
                PROT_RW,
                MAP_PRIVATE_ANONYMOUS,
                -1,
                0,
            )
        };
        if base.is_null() || base as isize == -1 {
            return None;
        }
        let b = base.cast::<u8>();
        // SAFETY: both pages lie inside the mapping; `data..data+bytes` lies in its data pages
        // (ending at the last guard page), and `src` holds `bytes` bytes.
        unsafe {
            mprotect(base, PAGE, PROT_NONE);
            mprotect(b.add(len - PAGE).cast(), PAGE, PROT_NONE);
            let data = b.add(len - PAGE - bytes);
            std::ptr::copy_nonoverlapping(src, data, bytes);
            Some(Guarded {
                base,
                len,
                data,
                bytes,
            })
        }
    }

    /// Where the kernel sees the elements.
    pub(super) fn data(&self) -> *mut u8 {
        self.data
    }

    /// Copies the elements back to `dst` (room for the same bytes).
    pub(super) fn copy_back(&self, dst: *mut u8) {
        // SAFETY: both hold `bytes` bytes and do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(self.data, dst, self.bytes) }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        // SAFETY: the mapping made in copy_of, unmapped once.
        unsafe { munmap(self.base, self.len) };
    }
}
