//! The conformance suite on the CPU oracle at both warp widths: one test per case.

use wavekit::WarpWidth;
use wavekit::cpu::CpuBackend;

wavekit_conformance::instantiate!(cpu_w32, CpuBackend::new(WarpWidth::W32));
wavekit_conformance::instantiate!(cpu_w64, CpuBackend::new(WarpWidth::W64));
// The shrunken inputs slow backends run (a simulated SIMT executor) must pass on the oracle too.
wavekit_conformance::instantiate!(
    cpu_w32_small,
    CpuBackend::new(WarpWidth::W32),
    scale = Small
);
wavekit_conformance::instantiate!(
    cpu_w64_small,
    CpuBackend::new(WarpWidth::W64),
    scale = Small
);
