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

/// Asks for the line holding `s[at]` (or `s`'s last element when `at` is past it) in L1 without
/// waiting: for a loop that reads `s` in order with many stores of its own between its loads,
/// which keeps fewer of its reads in flight than the hardware's stream prefetcher needs.
#[inline(always)]
pub(crate) fn prefetch_at<T>(s: &[T], at: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(last) = s.len().checked_sub(1) {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch never faults and changes no memory; the address is inside `s`.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(s.as_ptr().add(at.min(last)).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (s, at);
}

/// Bytes of a piece `read_ahead` hands out: 16 lines, as many as a core's L1 fill buffers.
const READ_PIECE: usize = 1 << 10;
/// How far ahead of the piece being read its prefetches are: past the 4 KiB page boundary at
/// which the hardware's stream prefetcher stops, so the next page is under way when reached.
pub(crate) const READ_AHEAD: usize = 4 << 10;

/// Calls `f` on `s` in order, a piece of `READ_PIECE` bytes at a time, each after asking for
/// the piece `READ_AHEAD` bytes beyond it: the shape for loops that read large inputs once.
#[inline(always)]
pub(crate) fn read_ahead<T>(s: &[T], mut f: impl FnMut(&[T])) {
    let size = size_of::<T>().max(1);
    let piece = (READ_PIECE / size).max(1);
    for (i, p) in s.chunks(piece).enumerate() {
        let at = i * piece + READ_AHEAD / size;
        if at < s.len() {
            for line in (0..READ_PIECE).step_by(64) {
                prefetch_at(s, at + line / size);
            }
        }
        f(p);
    }
}

/// Bytes of input from which scans and compactions write their output with non-temporal stores
/// (`stream_copy`): an ordinary store first reads the line it writes into cache (the host copy
/// the benches compare with does not), a third memory transfer per element that caps a
/// read-and-write collective at two-thirds of a copy. Below this size the output is likelier to
/// be read again from cache.
pub(crate) const STREAM_FROM: usize = 32 << 20;

/// Whether the output of a collective over `len` T is written with `stream_copy`.
pub(crate) fn streams<T>(len: usize) -> bool {
    cfg!(target_arch = "x86_64") && len.saturating_mul(size_of::<T>()) >= STREAM_FROM
}

/// `dst.copy_from_slice(src)` with non-temporal stores for the 16-byte-aligned body of `dst`:
/// the lines go to memory without being read first. `stream_fence` must follow before the
/// memory is handed to another thread.
pub(crate) fn stream_copy<T: Copy>(dst: &mut [T], src: &[T]) {
    assert_eq!(dst.len(), src.len(), "stream_copy of equal lengths");
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
        const V: usize = 16;
        let bytes = size_of_val(dst);
        let d = dst.as_mut_ptr().cast::<u8>();
        let s = src.as_ptr().cast::<u8>();
        let head = ((d as usize).next_multiple_of(V) - d as usize).min(bytes);
        let body = (bytes - head) / V * V;
        // SAFETY: every offset below stays inside the `bytes` bytes of both slices, which do
        // not overlap (one is borrowed mutably); the streamed addresses are 16-byte aligned,
        // and SSE2 is part of x86_64.
        unsafe {
            std::ptr::copy_nonoverlapping(s, d, head);
            let mut at = head;
            while at < head + body {
                let v = _mm_loadu_si128(s.add(at).cast::<__m128i>());
                _mm_stream_si128(d.add(at).cast::<__m128i>(), v);
                at += V;
            }
            std::ptr::copy_nonoverlapping(s.add(at), d.add(at), bytes - at);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    dst.copy_from_slice(src);
}

/// Orders this thread's earlier `stream_copy` stores before its later stores (non-temporal
/// stores are not ordered by the usual release/acquire), so the worker that finishes a chunk
/// hands it over complete.
pub(crate) fn stream_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of x86_64; a fence changes no memory.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}
