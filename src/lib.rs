//! wavekit: warp- and wavefront-level GPU primitives and the collectives built on them,
//! behind one trait API with CUDA, HIP/ROCm and a rayon CPU oracle.
//!
//! Semantics, undefined lanes and the canonical combining order: docs/SEMANTICS.md.

pub mod api;
pub mod backend;
pub mod canonical;
pub mod cli;
pub mod conformance;
pub mod element;
pub mod error;
pub mod mask;
pub mod op;
pub mod width;

#[path = "../backends/cpu/mod.rs"]
pub mod cpu;
#[cfg(feature = "cuda")]
#[path = "../backends/cuda/mod.rs"]
pub mod cuda;
/// Shared GPU backend over a vendor runtime (CUDA, HIP, or the SIMT executor, which is always
/// built).
#[path = "../backends/gpu/mod.rs"]
pub mod gpu;
#[cfg(feature = "hip")]
#[path = "../backends/hip/mod.rs"]
pub mod hip;
#[path = "../backends/simt/mod.rs"]
pub mod simt;

pub use api::{Collectives, Compacted, Csr, Segments, VectorSize, VoteResult, WarpPrimitives};
pub use backend::{Backend, DeviceBuffer, HistogramResult, Match, ScanKind, Shfl, Vote};
pub use element::{ElemKind, Element};
pub use error::{Result, WavekitError};
pub use mask::LaneMask;
pub use op::{Predicate, ReduceOp};
pub use width::WarpWidth;

pub mod prelude {
    pub use crate::{
        Backend, Collectives, DeviceBuffer, ElemKind, Element, LaneMask, Predicate, ReduceOp,
        ScanKind, Shfl, VectorSize, Vote, WarpPrimitives, WarpWidth,
    };
}
