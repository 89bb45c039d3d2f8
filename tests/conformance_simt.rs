//! The conformance suite on the SIMT executor, the real csrc kernels run on the CPU, on
//! `Scale::Small` inputs: at 32 lanes with CUDA's native primitives and at 64 lanes with AMD's
//! (the emulated uni, match, syncwarp and activemask), both under independent thread
//! scheduling in a seeded random order, and at 64 lanes in lockstep as AMD hardware runs; then
//! through the AMD code path itself, the real arch_hip.h on the executor's AMDGCN builtins, at
//! 64 lanes (gfx90a/gfx942) in lockstep and at 32 (gfx1030) in a random lane order. A case
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

// arch_hip.h as gfx90a/gfx942 run it: wave64, lanes in lockstep.
wavekit_conformance::instantiate!(
    hip_w64,
    simt::open_arch(Arch::Hip, WarpWidth::W64).expect("executor"),
    scale = Small,
    after = no_hazards
);

// arch_hip.h at 32 lanes as gfx1030 runs it (a wave moves as one), with each wave's lanes in a
// random order within a step: shared-memory accesses interleave differently, results must not
// change. Lockstep is one of those orders; hip_w64 runs it. (A third instance, wave64 in a
// random order, ran every case again at -O0 for 4 of CI's minutes; wave32 covers the
// interleavings at half the lanes.)
wavekit_conformance::instantiate!(
    hip_w32_random,
    simt::open_arch_with(Arch::Hip, WarpWidth::W32, Schedule::Random(0xa3d_5eed))
        .expect("executor"),
    scale = Small,
    after = no_hazards
);
