//! The conformance suite on the SIMT executor, the real csrc kernels run on the CPU, on
//! `Scale::Small` inputs: at 32 lanes with CUDA's native primitives and at 64 lanes with AMD's
//! (the emulated uni, match, syncwarp and activemask), both under independent thread
//! scheduling in a seeded random order, and at 64 lanes in lockstep as AMD hardware runs. A
//! case passes only if it agrees with the suite's reference and the executor reported no
//! hazard during it.

use wavekit::WarpWidth;
use wavekit::conformance::{CaseFn, Scale, run_case};
use wavekit::simt::{self, SimtBackend};

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
        simt::open_with(WarpWidth::W64, simt::Schedule::Lockstep).expect("executor").with_emulation(true));
}
