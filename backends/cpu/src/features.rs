//! Which vector kernels this CPU may run, asked once per call at run time
//! (`is_x86_feature_detected!`), so one binary runs everywhere: a CPU without AVX2 takes the
//! scalar code, which gives the same bits (every vector kernel combines the same pairs in the
//! same order). Tests cap the kernels at a lower level on a CPU that has more, to check every
//! path.

#[cfg(test)]
use std::sync::atomic::{AtomicU8, Ordering};

/// The widest kernels a path may take: tests set it to reach the narrower paths.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Vectors {
    /// Every kernel takes its scalar path.
    Scalar = 0,
    /// AVX2 kernels, not AVX-512.
    Avx2 = 1,
    /// Whatever the CPU has.
    Widest = 2,
}

/// Set by tests (a `Vectors` as u8).
#[cfg(test)]
static CAP: AtomicU8 = AtomicU8::new(Vectors::Widest as u8);

#[cfg(test)]
fn capped_below(level: Vectors) -> bool {
    CAP.load(Ordering::Relaxed) < level as u8
}

/// True when the CPU has AVX2 (and POPCNT, which every AVX2 CPU has but which is a separate
/// feature bit): a kernel compiled with `#[target_feature(enable = "avx2")]` may run.
#[inline]
pub(crate) fn avx2() -> bool {
    #[cfg(test)]
    if capped_below(Vectors::Avx2) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// True when the CPU has AVX-512F as well as AVX2: a kernel compiled with
/// `#[target_feature(enable = "avx512f")]` may run.
#[inline]
pub(crate) fn avx512() -> bool {
    #[cfg(test)]
    if capped_below(Vectors::Widest) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        avx2() && std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Runs `f` with the vector kernels capped at `cap`, one caller at a time. Other tests running
/// meanwhile may take the narrower paths too, which they must pass as well: every path gives
/// the same bits.
#[cfg(test)]
pub(crate) fn with_vectors<R>(cap: Vectors, f: impl FnOnce() -> R) -> R {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            CAP.store(Vectors::Widest as u8, Ordering::Relaxed);
        }
    }
    let _reset = Reset;
    CAP.store(cap as u8, Ordering::Relaxed);
    f()
}
