//! Zeroed buffers that cost nothing until they are written. `alloc` used to reserve and then
//! write every zero, so a fresh 64 MiB buffer spent about 100 ms in page faults and a memset
//! before a collective (a compaction allocates its output) touched it (measured on the 2-core
//! host, where copying 64 MiB takes about 7 ms). Memory from the allocator's zeroed path is
//! not written again (large blocks come from the OS already zero), and large blocks ask for
//! transparent huge pages, so the pages a collective writes fault in 2 MiB at a time.

use std::alloc::Layout;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::host;

/// Bytes from which a block asks for huge pages.
const HUGE_FROM: usize = 4 << 20;

/// `len` zeros of T, or [`WavekitError::OutOfMemory`] instead of an abort when `len` is past
/// the core's host limit or memory runs out.
pub(crate) fn zeroed<T: Element>(len: usize) -> Result<Vec<T>> {
    host::check::<T>(len)?;
    let out_of_memory = || WavekitError::OutOfMemory {
        bytes: host::bytes_of::<T>(len),
    };
    let layout = Layout::array::<T>(len).map_err(|_| out_of_memory())?;
    if layout.size() == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: the layout's size is not zero (checked above).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    if ptr.is_null() {
        return Err(out_of_memory());
    }
    if layout.size() >= HUGE_FROM {
        advise_huge_pages(ptr, layout.size());
    }
    // SAFETY: `ptr` comes from the global allocator with the layout of `len` T, which
    // `Vec::from_raw_parts` frees it with; all its bytes are zero, and zero bits are a valid
    // value of every Element (primitive integers and floats).
    Ok(unsafe { Vec::from_raw_parts(ptr.cast::<T>(), len, len) })
}

/// Asks Linux to back the whole 2 MiB pages inside `[ptr, ptr + bytes)` with huge pages. Only
/// a hint: where it is refused or unsupported nothing changes.
#[cfg(target_os = "linux")]
fn advise_huge_pages(ptr: *mut u8, bytes: usize) {
    const HUGE_PAGE: usize = 2 << 20;
    /// MADV_HUGEPAGE in <sys/mman.h> on every Linux architecture.
    const MADV_HUGEPAGE: i32 = 14;
    unsafe extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
    let end = (ptr as usize + bytes) / HUGE_PAGE * HUGE_PAGE;
    if end > start {
        // SAFETY: the range lies inside a block this process owns, and MADV_HUGEPAGE changes
        // how its pages are backed, never their contents.
        unsafe {
            madvise(
                ptr.add(start - ptr as usize).cast(),
                end - start,
                MADV_HUGEPAGE,
            )
        };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_ptr: *mut u8, _bytes: usize) {}

/// Asks for `s` in the core's L2 without waiting for it: the input of the chunk a worker does
/// next, fetched a piece at a time while the current one is worked from cache, so memory and
/// computation overlap.
#[inline(always)]
pub(crate) fn prefetch<T>(s: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T1, _mm_prefetch};
        const LINE: usize = 64;
        let p = s.as_ptr().cast::<i8>();
        for at in (0..size_of_val(s)).step_by(LINE) {
            // SAFETY: a prefetch never faults and changes no memory; the address is inside `s`.
            unsafe { _mm_prefetch::<_MM_HINT_T1>(p.add(at)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = s;
}
