//! Which vector kernels this CPU may run, asked once per call at run time
//! (`is_x86_feature_detected!`), so one binary runs everywhere: a CPU without AVX2 takes the
//! scalar code, which gives the same bits (every vector kernel combines the same pairs in the
//! same order). Tests force the scalar code on a CPU that has AVX2 to check both paths.

#[cfg(test)]
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by tests: every kernel takes its scalar path.
#[cfg(test)]
static FORCE_SCALAR: AtomicBool = AtomicBool::new(false);

/// True when the CPU has AVX2 (and POPCNT, which every AVX2 CPU has but which is a separate
/// feature bit): a kernel compiled with `#[target_feature(enable = "avx2")]` may run.
#[inline]
pub(crate) fn avx2() -> bool {
    #[cfg(test)]
    if FORCE_SCALAR.load(Ordering::Relaxed) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Runs `f` with every vector kernel switched off (`on == false`) or left to detection, one
/// caller at a time. Other tests running meanwhile may take the scalar path too, which they
/// must pass as well: both paths give the same bits.
#[cfg(test)]
pub(crate) fn with_vectors<R>(on: bool, f: impl FnOnce() -> R) -> R {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            FORCE_SCALAR.store(false, Ordering::Relaxed);
        }
    }
    let _reset = Reset;
    FORCE_SCALAR.store(!on, Ordering::Relaxed);
    f()
}
