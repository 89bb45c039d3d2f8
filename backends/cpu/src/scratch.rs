//! Scratch memory kept by the backend between calls, so a device reduce or scan does not
//! allocate its partials every time.

use super::disjoint::Disjoint;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::host;

/// One growable pool of 8-byte words, viewed as any element type. A call takes the pool out
/// for its duration; a concurrent call finds it empty and uses its own, and the larger of the
/// two is kept afterwards.
#[derive(Default)]
pub(crate) struct Scratch {
    pool: Mutex<Vec<u64>>,
}

impl Scratch {
    /// Runs `f` on `len` elements of scratch (contents unspecified).
    ///
    /// # Errors
    /// [`WavekitError::OutOfMemory`] when the pool cannot grow to `len` elements (past
    /// `host::HOST_ALLOC_LIMIT`, or refused by the allocator); `f` does not run then.
    pub(crate) fn with<T: Element, R>(
        &self,
        len: usize,
        f: impl FnOnce(&mut [T]) -> R,
    ) -> Result<R> {
        const { assert!(align_of::<T>() <= align_of::<u64>()) };
        // Checked first: `len * size_of::<T>()` below cannot overflow once this passes.
        host::check::<T>(len)?;
        let need = (len * size_of::<T>()).div_ceil(size_of::<u64>());
        let mut words = std::mem::take(&mut *self.lock());
        if words.len() < need {
            // Grown fallibly: the size is the caller's. A refusal leaves the pool as it was.
            if words.try_reserve_exact(need - words.len()).is_err() {
                self.keep(words);
                return Err(WavekitError::OutOfMemory {
                    bytes: host::bytes_of::<u64>(need),
                });
            }
            words.resize(need, 0);
        }
        // SAFETY: the pool holds at least `len * size_of::<T>()` initialised bytes, aligned
        // for T (checked above); every Element is a primitive integer or float for which any
        // bit pattern is valid, and the borrow of `words` is exclusive for the slice's life.
        let view = unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<T>(), len) };
        let out = f(view);
        self.keep(words);
        Ok(out)
    }

    /// Puts `words` back as the pool, unless a concurrent call left a larger one.
    fn keep(&self, words: Vec<u64>) {
        let mut kept = self.lock();
        if kept.len() < words.len() {
            *kept = words;
        }
    }

    /// Runs `f` with `count` disjoint buffers of `len` elements each (contents unspecified),
    /// which `Buffers::take` hands out one a call: one for each worker of a chained pass.
    pub(crate) fn with_buffers<T: Element, R>(
        &self,
        count: usize,
        len: usize,
        f: impl FnOnce(&Buffers<T>) -> R,
    ) -> Result<R> {
        let total = count
            .checked_mul(len)
            .ok_or(WavekitError::OutOfMemory { bytes: u64::MAX })?;
        self.with::<T, _>(total, |all| {
            f(&Buffers {
                all: Disjoint::new(all),
                count,
                len,
                taken: AtomicUsize::new(0),
            })
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<u64>> {
        // A panic inside `f` happens with the pool taken out, so the lock is never poisoned
        // with the pool in a broken state; recover the guard either way.
        self.pool.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Bytes currently held, for tests that check reuse.
    #[cfg(test)]
    pub(crate) fn held_bytes(&self) -> usize {
        self.lock().len() * size_of::<u64>()
    }
}

/// Buffers of one `Scratch::with_buffers` call, each handed out once.
pub(crate) struct Buffers<'a, T> {
    all: Disjoint<'a, T>,
    count: usize,
    len: usize,
    taken: AtomicUsize,
}

impl<T> Buffers<'_, T> {
    /// The next buffer not yet handed out.
    ///
    /// # Panics
    /// When all `count` are out: a caller starting more workers than it asked buffers for.
    #[allow(clippy::mut_from_ref)]
    pub(crate) fn take(&self) -> &mut [T] {
        let i = self.taken.fetch_add(1, Ordering::Relaxed);
        assert!(i < self.count, "more workers than buffers");
        // SAFETY: each index is taken once, so buffer i overlaps no other handed out.
        unsafe { self.all.part(i * self.len, self.len) }
    }
}
