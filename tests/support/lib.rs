//! wavekit-tests: the integration tests of the `wavekit` facade, one file per backend and
//! concern (conformance per backend in one line each, property tests against the reference,
//! executor hazards, CUDA and HIP device tests, `#[ignore]`d with the reason where they need a
//! device). This library holds what several test files share.
//!
//! How it fits: a test-only package at the top of the workspace, so the facade's own
//! dependency tree carries no test crates (`cargo tree -p wavekit`).

pub mod code_object;
pub mod corpus;
pub mod fuzz;
pub mod lookback;
pub mod raw_probes;

/// The CPU oracle at warp width `w`, for property tests.
pub fn cpu(w: wavekit::WarpWidth) -> wavekit::cpu::CpuBackend {
    wavekit::cpu::CpuBackend::new(w)
}
