//! wavekit: warp- and wavefront-level GPU primitives and the collectives built on them, behind
//! one trait API with CUDA, HIP/ROCm, a rayon CPU oracle and a SIMT executor that runs the real
//! kernels on the CPU at 32 and 64 lanes.
//!
//! This is the crate to depend on. It re-exports the layers below it:
//!
//! | module | crate | what |
//! |---|---|---|
//! | (root), [`api`], [`element`], ... | `wavekit-core` | types, the `Backend` traits, the validated API |
//! | [`cpu`] | `wavekit-cpu` | the rayon CPU backend, the reference oracle (always built) |
//! | [`gpu`] | `wavekit-gpu` | the GPU backend written once over a vendor runtime |
//! | [`simt`] | `wavekit-simt` | the SIMT executor (feature `simt`, on by default; needs C++17) |
//! | `cuda` | `wavekit-cuda` | NVIDIA, through cudarc (feature `cuda`) |
//! | `hip` | `wavekit-hip` | AMD, through libamdhip64 (feature `hip`) |
//! | `dist` | `wavekit-dist` | collectives across ranks and devices, reproducible (feature `dist`) |
//!
//! Semantics, undefined lanes and the canonical combining order: docs/SEMANTICS.md.

pub use wavekit_core::{
    Backend, Collectives, Compacted, Csr, DeviceBuffer, ElemKind, Element, HistogramResult,
    LaneMask, Match, Predicate, ReduceOp, Result, ScanKind, Segments, Shfl, VectorSize, Vote,
    View, ViewMut, VoteResult, WarpPrimitives, WarpWidth, WavekitError,
};
pub use wavekit_core::{
    api, backend, canonical, element, error, host, lanes, mask, op, predicate, raw, view, width,
};

pub use wavekit_cpu as cpu;
#[cfg(feature = "cuda")]
pub use wavekit_cuda as cuda;
#[cfg(feature = "dist")]
pub use wavekit_dist as dist;
pub use wavekit_gpu as gpu;
#[cfg(feature = "hip")]
pub use wavekit_hip as hip;
#[cfg(feature = "simt")]
pub use wavekit_simt as simt;

pub mod safety;

/// Every collective's two forms, inputs, outputs and their lengths, what is asynchronous and
/// what allocates (docs/COLLECTIVES.md).
#[doc = include_str!("../docs/COLLECTIVES.md")]
pub mod collectives {}

/// The traits and types most programs use: `use wavekit::prelude::*;`.
pub mod prelude {
    pub use crate::cpu::CpuBackend;
    pub use crate::{
        Backend, Collectives, DeviceBuffer, ElemKind, Element, LaneMask, Predicate, ReduceOp,
        ScanKind, Shfl, VectorSize, Vote, WarpPrimitives, WarpWidth,
    };
}
