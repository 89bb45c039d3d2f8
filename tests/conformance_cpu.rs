//! The conformance suite on the CPU oracle at both warp widths: one test per case.

#[macro_use]
mod common;

use wavekit::WarpWidth;
use wavekit::cpu::CpuBackend;

instantiate_conformance!(cpu_w32, CpuBackend::new(WarpWidth::W32));
instantiate_conformance!(cpu_w64, CpuBackend::new(WarpWidth::W64));
// The shrunken inputs slow backends run (a simulated SIMT executor) must pass on the oracle too.
instantiate_conformance!(
    cpu_w32_small,
    CpuBackend::new(WarpWidth::W32),
    scale = Small
);
instantiate_conformance!(
    cpu_w64_small,
    CpuBackend::new(WarpWidth::W64),
    scale = Small
);
