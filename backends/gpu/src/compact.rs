//! count_if and stream compaction on a GPU (`RawBackend::raw_count_if`, `raw_compact`, which
//! imp.rs hands here): lengths checked again, launches enqueued on the stream.

use super::backend::{GpuBackend, Reports, Work};
use super::buffer::GpuBuffer;
use super::ffi::{cptr, dptr, kind};
use super::runtime::{DevPtr, GpuRuntime};
use super::tagged_pool::Tagged;
use wavekit_core::Predicate;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};

impl<R: GpuRuntime> GpuBackend<R> {
    /// Enqueues the count_if kernel over `input`, its count into the `u64` at `out`; an empty
    /// input writes 0 without a launch (the kernels need one element).
    ///
    /// # Safety
    /// `out..out + 8` lies in one live device region of this backend's device, aligned for a
    /// `u64`, and nothing else reads or writes it until the work queued here has run (work
    /// queued later on this backend's stream is ordered after it).
    pub(crate) unsafe fn enqueue_count_if<T: Element>(
        &self,
        work: &mut Work<R>,
        call: &'static str,
        input: &GpuBuffer<T, R>,
        pred: Predicate<T>,
        out: DevPtr,
    ) -> Result<()> {
        if input.len == 0 {
            // SAFETY: the 8 bytes at `out` the caller vouches for.
            return unsafe { self.rt.memset_zero(out, size_of::<u64>()) };
        }
        let (code, a, b) = pred.encode();
        // The count_if launcher does not pass the status word to its kernel.
        // SAFETY: the kernel reads the `input.len` elements of `input` and writes one u64 at `out`,
        // the 8 bytes the caller vouches for (no scratch: null, 0 bytes).
        self.launch(work, call, Reports::Nothing, |s, st| unsafe {
            (self.table.count_if)(
                s,
                st,
                kind::<T>(),
                code,
                a,
                b,
                cptr(input.device_ptr()),
                input.len as u64,
                std::ptr::null_mut(),
                0,
                dptr(out),
            )
        })
    }

    /// What `RawBackend::raw_count_if` does on this backend.
    pub(crate) fn count_if_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        pred: Predicate<T>,
        count: &mut GpuBuffer<u64, R>,
    ) -> Result<()> {
        self.own(input)?;
        self.own(count)?;
        check_len("count_if output (one element)", 1, count.len)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        // SAFETY: `count` holds one u64 (checked above), borrowed exclusively for the call, so
        // only the work queued here (and later work on this stream) touches it.
        unsafe { self.enqueue_count_if(&mut work, "count_if", input, pred, count.device_ptr()) }
    }

    /// What `RawBackend::raw_compact` does on this backend.
    pub(crate) fn compact_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        pred: Predicate<T>,
        stable: bool,
        output: &mut GpuBuffer<T, R>,
        count: &mut GpuBuffer<u64, R>,
    ) -> Result<()> {
        self.own(input)?;
        self.own(output)?;
        self.own(count)?;
        if output.len < input.len {
            return Err(WavekitError::LengthMismatch {
                what: "compaction output (at least the input's length)",
                expected: input.len,
                got: output.len,
            });
        }
        check_len("compaction count (one element)", 1, count.len)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = input.len;
        if n == 0 {
            return self.zero_mem(&mut count.mem, size_of::<u64>());
        }
        let (code, a, b) = pred.encode();
        let (src, dst, cnt) = (
            cptr(input.device_ptr()),
            dptr(output.device_ptr()),
            dptr(count.device_ptr()),
        );
        if !stable {
            // No scratch: tiles reserve their output with atomics on the count.
            // SAFETY: the kernel reads the n elements of `input` and writes at most n to `output`
            // (its length is at least n, checked above) and one u64 to `count` (one element,
            // checked); the outputs are borrowed exclusively, so nothing aliases them.
            return self.launch(&mut work, "compact", Reports::Errors, |s, st| unsafe {
                (self.table.compact)(
                    s,
                    st,
                    self.launch_width,
                    kind::<T>(),
                    code,
                    a,
                    b,
                    0,
                    src,
                    n as u64,
                    std::ptr::null_mut(),
                    0,
                    dst,
                    cnt,
                )
            });
        }
        self.launch_tagged::<T>(
            &mut work,
            Tagged::Compact,
            n,
            "compact",
            // SAFETY: as above for input, output and count; `scratch` is `bytes` bytes of the
            // compaction's own tagged pool (launch_tagged sized it for n), owned by the locked
            // workspace.
            |s, st, scratch, bytes, tag| unsafe {
                (self.table.compact_tagged)(
                    s,
                    st,
                    self.launch_width,
                    kind::<T>(),
                    code,
                    a,
                    b,
                    src,
                    n as u64,
                    dptr(scratch),
                    bytes,
                    tag,
                    dst,
                    cnt,
                )
            },
        )
    }
}
