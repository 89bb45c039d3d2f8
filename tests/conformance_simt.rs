//! The conformance suite on the SIMT executor, the real csrc kernels run on the CPU, on
//! `Scale::Small` inputs: at 32 lanes with CUDA's native primitives and at 64 lanes with AMD's
//! (the emulated uni, match, syncwarp and activemask), both under independent thread
//! scheduling in a seeded random order, and at 64 lanes in lockstep as AMD hardware runs; then
//! through the AMD code path itself, the real arch_hip.h on the executor's AMDGCN builtins, at
//! 64 lanes (gfx90a/gfx940) and 32 (gfx1030), in lockstep and in a random lane order. A case
//! passes only if it agrees with the suite's reference and the executor reported no hazard
//! during it.

#![cfg(feature = "simt")]

use wavekit::WarpWidth;
use wavekit::simt::{self, Arch, Schedule, SimtBackend};

/// Fails the case if the executor reported a hazard during it.
fn no_hazards(backend: &SimtBackend) -> Result<(), String> {
    let hazards = backend.runtime().take_hazards();
    if hazards.is_empty() {
        return Ok(());
    }
    let listed: String = hazards.iter().map(|r| format!("\n  {r}")).collect();
    Err(format!(
        "{} hazard(s) on {}:{listed}",
        hazards.len(),
        wavekit::Backend::name(backend)
    ))
}

wavekit_conformance::instantiate!(
    simt_w32,
    simt::open(WarpWidth::W32).expect("executor"),
    scale = Small,
    after = no_hazards
);

wavekit_conformance::instantiate!(
    simt_w64,
    simt::open(WarpWidth::W64)
        .expect("executor")
        .with_emulation(true),
    scale = Small,
    after = no_hazards
);

// AMD's wavefronts as the hardware runs them: lanes in lockstep, one shared access at a time.
wavekit_conformance::instantiate!(
    simt_w64_lockstep,
    simt::open_with(WarpWidth::W64, Schedule::Lockstep)
        .expect("executor")
        .with_emulation(true),
    scale = Small,
    after = no_hazards
);

// arch_hip.h as gfx90a/gfx940 run it: wave64, lanes in lockstep.
wavekit_conformance::instantiate!(
    hip_w64,
    simt::open_arch(Arch::Hip, WarpWidth::W64).expect("executor"),
    scale = Small,
    after = no_hazards
);

// arch_hip.h as gfx1030 runs it: wave32, lanes in lockstep.
wavekit_conformance::instantiate!(
    hip_w32,
    simt::open_arch(Arch::Hip, WarpWidth::W32).expect("executor"),
    scale = Small,
    after = no_hazards
);

// arch_hip.h with each wave's lanes in a random order within a step (a wave still moves as
// one): shared-memory accesses interleave differently, results must not change.
wavekit_conformance::instantiate!(
    hip_w64_random,
    simt::open_arch_with(Arch::Hip, WarpWidth::W64, Schedule::Random(0xa3d_5eed))
        .expect("executor"),
    scale = Small,
    after = no_hazards
);
