//! The conformance suite on the CPU oracle at both warp widths: one test per case.

#[macro_use]
mod common;

use wavekit::WarpWidth;
use wavekit::cpu::CpuBackend;

instantiate_conformance!(cpu_w32, CpuBackend::new(WarpWidth::W32));
instantiate_conformance!(cpu_w64, CpuBackend::new(WarpWidth::W64));
