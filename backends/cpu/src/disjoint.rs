//! An output that parallel chunks write in disjoint parts: the one unsafe hand-out the CPU
//! backend's chunked collectives (look-back scans, compaction, partition, by-key, the parallel
//! helpers in par.rs and the scratch) share.

/// An output that chunks write in disjoint parts, from whichever thread runs them.
pub(crate) struct Disjoint<'a, T> {
    ptr: *mut T,
    len: usize,
    _out: std::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: `part` hands out only ranges its callers promise are disjoint (see there).
unsafe impl<T: Send> Sync for Disjoint<'_, T> {}

impl<'a, T> Disjoint<'a, T> {
    pub(crate) fn new(out: &'a mut [T]) -> Self {
        Disjoint {
            ptr: out.as_mut_ptr(),
            len: out.len(),
            _out: std::marker::PhantomData,
        }
    }

    /// `out[start..start + len]`.
    ///
    /// # Safety
    /// No other live part may overlap this one.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn part(&self, start: usize, len: usize) -> &mut [T] {
        assert!(
            start <= self.len && len <= self.len - start,
            "part past the output"
        );
        // SAFETY: in bounds (checked above); exclusive by the caller's promise, and the whole
        // output is borrowed mutably for 'a.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(start), len) }
    }
}
