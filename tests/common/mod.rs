//! Shared test support: `instantiate_conformance!` turns the generic conformance suite into one
//! `#[test]` per case for a backend, so every case passes or fails on its own line and nothing
//! is skipped silently (a backend that needs a device is `#[ignore]`d with the reason).
//!
//! ```ignore
//! instantiate_conformance!(cpu_w32, wavekit::cpu::CpuBackend::new(WarpWidth::W32));
//! instantiate_conformance!(cuda, wavekit::cuda::CudaBackend::new(0).unwrap(), ignore = "needs a CUDA device");
//! instantiate_conformance!(simt, Simt::new(), scale = Small);
//! ```

#![allow(unused_macros)]

/// One module `$module` with a `#[test]` per conformance case, running on the backend that
/// `$ctor` builds (evaluated afresh in each test). `scale` defaults to `Full`.
macro_rules! instantiate_conformance {
    ($module:ident, $ctor:expr $(,)?) => {
        instantiate_conformance!($module, $ctor, scale = Full);
    };
    ($module:ident, $ctor:expr, ignore = $reason:literal $(,)?) => {
        instantiate_conformance!($module, $ctor, scale = Full, ignore = $reason);
    };
    ($module:ident, $ctor:expr, scale = $scale:ident $(,)?) => {
        mod $module {
            #[allow(unused_imports)]
            use super::*;
            wavekit::conformance_cases!(conformance_tests; ($ctor) $scale);
        }
    };
    ($module:ident, $ctor:expr, scale = $scale:ident, ignore = $reason:literal $(,)?) => {
        mod $module {
            #[allow(unused_imports)]
            use super::*;
            wavekit::conformance_cases!(conformance_tests; ($ctor) $scale ignore $reason);
        }
    };
}

/// The callback `wavekit::conformance_cases!` calls with every case name.
macro_rules! conformance_tests {
    ([($ctor:expr) $scale:ident] $($case:ident)*) => {
        $(
            #[test]
            fn $case() {
                conformance_test_body!($ctor, $scale, $case);
            }
        )*
    };
    ([($ctor:expr) $scale:ident ignore $reason:literal] $($case:ident)*) => {
        $(
            #[test]
            #[ignore = $reason]
            fn $case() {
                conformance_test_body!($ctor, $scale, $case);
            }
        )*
    };
}

macro_rules! conformance_test_body {
    ($ctor:expr, $scale:ident, $case:ident) => {
        let backend = $ctor;
        let result = wavekit::conformance::run_case(
            stringify!($case),
            &backend,
            wavekit::conformance::Scale::$scale,
            wavekit::conformance::cases::$case,
        );
        assert!(result.passed, "{}", result.detail);
    };
}

/// The CPU oracle at warp width `w`, for property tests.
#[allow(dead_code)]
pub fn cpu(w: wavekit::WarpWidth) -> wavekit::cpu::CpuBackend {
    wavekit::cpu::CpuBackend::new(w)
}
