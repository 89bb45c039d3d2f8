//! The conformance suite on the SIMT executor, the real csrc kernels run on the CPU, on
//! `Scale::Small` inputs: at 32 lanes with CUDA's native primitives and at 64 lanes with AMD's
//! (the emulated uni, match, syncwarp and activemask), both under independent thread
//! scheduling in a seeded random order, and at 64 lanes in lockstep as AMD hardware runs; then
//! through the AMD code path itself, the real arch_hip.h on the executor's AMDGCN builtins, at
//! 64 lanes (gfx90a/gfx940) and 32 (gfx1030), in lockstep and in a random lane order. A case
//! passes only if it agrees with the suite's reference and the executor reported no hazard
//! during it.

use wavekit::WarpWidth;
use wavekit::conformance::{CaseFn, Scale, run_case};
use wavekit::simt::{self, Arch, Schedule, SimtBackend};

fn run(backend: &SimtBackend, name: &str, case: CaseFn<SimtBackend>) {
    let result = run_case(name, backend, Scale::Small, case);
    let hazards = backend.runtime().take_hazards();
    let listed: String = hazards.iter().map(|r| format!("\n  {r}")).collect();
    assert!(
        hazards.is_empty(),
        "{name} on {}: {} hazard(s):{listed}",
        wavekit::Backend::name(backend),
        hazards.len()
    );
    assert!(result.passed, "{}", result.detail);
}

macro_rules! simt_cases {
    ([$ctor:expr] $($case:ident)*) => {
        $(
            #[test]
            fn $case() {
                let backend: SimtBackend = $ctor;
                run(&backend, stringify!($case), wavekit::conformance::cases::$case);
            }
        )*
    };
}

mod simt_w32 {
    use super::*;
    wavekit::conformance_cases!(simt_cases; simt::open(WarpWidth::W32).expect("executor"));
}

mod simt_w64 {
    use super::*;
    wavekit::conformance_cases!(simt_cases; simt::open(WarpWidth::W64).expect("executor").with_emulation(true));
}

/// AMD's wavefronts as the hardware runs them: lanes in lockstep, one shared access at a time.
mod simt_w64_lockstep {
    use super::*;
    wavekit::conformance_cases!(simt_cases;
        simt::open_with(WarpWidth::W64, Schedule::Lockstep).expect("executor").with_emulation(true));
}

/// arch_hip.h as gfx90a/gfx940 run it: wave64, lanes in lockstep.
mod hip_w64 {
    use super::*;
    wavekit::conformance_cases!(simt_cases; simt::open_arch(Arch::Hip, WarpWidth::W64).expect("executor"));
}

/// arch_hip.h as gfx1030 runs it: wave32, lanes in lockstep.
mod hip_w32 {
    use super::*;
    wavekit::conformance_cases!(simt_cases; simt::open_arch(Arch::Hip, WarpWidth::W32).expect("executor"));
}

/// arch_hip.h with each wave's lanes in a random order within a step (a wave still moves as
/// one): shared-memory accesses interleave differently, results must not change.
mod hip_w64_random {
    use super::*;
    wavekit::conformance_cases!(simt_cases;
        simt::open_arch_with(Arch::Hip, WarpWidth::W64, Schedule::Random(0xa3d_5eed)).expect("executor"));
}
