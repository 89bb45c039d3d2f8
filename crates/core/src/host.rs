//! Host allocations sized by a caller's number (a thread count, a bin count, a buffer length):
//! always through a fallible path with a limit, so a huge or overflowing size comes back as
//! [`WavekitError::OutOfMemory`] instead of aborting the process. Linux overcommits memory, so
//! `try_reserve` alone would hand out a 34 GB vector that the first write then turns into an
//! OOM kill: the limit refuses such sizes before the allocator sees them.

use crate::error::{Result, WavekitError};

/// The most bytes one allocation sized by a caller may take on the host (16 GiB). Larger
/// requests fail with [`WavekitError::OutOfMemory`]; smaller ones fail the same way when the
/// allocator refuses them.
pub const HOST_ALLOC_LIMIT: usize = 1 << 34;

// A lower limit for one thread, so that tests reach every fallible path with small sizes (the
// fuzz harness's allocation-failure family). Only the calling thread's checks see it.
#[cfg(feature = "test-hooks")]
thread_local! {
    static TEST_LIMIT: std::cell::Cell<usize> = const { std::cell::Cell::new(HOST_ALLOC_LIMIT) };
}

/// The limit in force: [`HOST_ALLOC_LIMIT`], or a lower one set by `with_limit`.
#[cfg(feature = "test-hooks")]
fn limit() -> usize {
    TEST_LIMIT.with(std::cell::Cell::get)
}

/// The limit in force: [`HOST_ALLOC_LIMIT`].
#[cfg(not(feature = "test-hooks"))]
fn limit() -> usize {
    HOST_ALLOC_LIMIT
}

/// Test hook: `f()` with this thread's limit lowered to `bytes` (never raised past
/// [`HOST_ALLOC_LIMIT`]), as if the host had no more memory for one allocation; allocations
/// made on other threads (a backend's workers) keep the real limit.
#[cfg(feature = "test-hooks")]
#[doc(hidden)]
pub fn with_limit<R>(bytes: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            TEST_LIMIT.with(|l| l.set(self.0));
        }
    }
    let _restore = Restore(TEST_LIMIT.with(|l| l.replace(bytes.min(HOST_ALLOC_LIMIT))));
    f()
}

/// Bytes for `len` values of `T`, saturated at `u64::MAX` when that overflows.
pub fn bytes_of<T>(len: usize) -> u64 {
    (len as u128 * size_of::<T>() as u128).min(u64::MAX as u128) as u64
}

/// Checks that `len` values of `T` fit in one allocation under [`HOST_ALLOC_LIMIT`].
///
/// # Errors
/// [`WavekitError::OutOfMemory`] with the bytes asked for when they are past the limit.
pub fn check<T>(len: usize) -> Result<()> {
    let bytes = bytes_of::<T>(len);
    if bytes > limit() as u64 {
        return Err(WavekitError::OutOfMemory { bytes });
    }
    Ok(())
}

/// An empty vector with room for `len` values.
///
/// # Errors
/// [`WavekitError::OutOfMemory`] when `len` values are past [`HOST_ALLOC_LIMIT`] or the
/// allocator refuses them.
pub fn with_capacity<T>(len: usize) -> Result<Vec<T>> {
    check::<T>(len)?;
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| WavekitError::OutOfMemory {
            bytes: bytes_of::<T>(len),
        })?;
    Ok(v)
}

/// `len` copies of `value`.
///
/// # Errors
/// As [`with_capacity`].
pub fn filled<T: Clone>(len: usize, value: T) -> Result<Vec<T>> {
    let mut v = with_capacity(len)?;
    v.resize(len, value);
    Ok(v)
}

/// `f(i)` for `i` in `0..len`, collected without an unchecked allocation.
///
/// # Errors
/// As [`with_capacity`].
pub fn from_fn<T>(len: usize, f: impl FnMut(usize) -> T) -> Result<Vec<T>> {
    let mut v = with_capacity(len)?;
    v.extend((0..len).map(f));
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_limit_is_out_of_memory() {
        let r = with_capacity::<u64>(1 << 38);
        assert_eq!(r.unwrap_err(), WavekitError::OutOfMemory { bytes: 1 << 41 });
        let r = filled(usize::MAX, 0u64);
        assert_eq!(
            r.unwrap_err(),
            WavekitError::OutOfMemory { bytes: u64::MAX }
        );
        let at_limit = HOST_ALLOC_LIMIT;
        assert!(check::<u8>(at_limit).is_ok());
        assert!(check::<u8>(at_limit + 1).is_err());
    }

    #[test]
    fn within_the_limit_allocates() {
        assert_eq!(filled(3, 7u32).unwrap(), [7, 7, 7]);
        assert_eq!(from_fn(4, |i| i * 2).unwrap(), [0, 2, 4, 6]);
        assert_eq!(with_capacity::<u8>(0).unwrap().capacity(), 0);
    }
}
