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
//! | `simt` | `wavekit-simt` | the SIMT executor (feature `simt`; needs C++17) |
//! | `cuda` | `wavekit-cuda` | NVIDIA, through cudarc (feature `cuda`) |
//! | `hip` | `wavekit-hip` | AMD, through libamdhip64 (feature `hip`) |
//! | `dist` | `wavekit-dist` | collectives across ranks and devices, reproducible (feature `dist`) |
//! | `dist::nccl` | `wavekit-nccl` | NCCL / RCCL as their transport on GPUs (features `nccl`, `rccl`) |
//!
//! Semantics, undefined lanes and the canonical combining order: [`semantics`]
//! (docs/SEMANTICS.md). What the safe API guarantees: [`safety`].
//!
//! ```
//! use wavekit::prelude::*;
//!
//! // The CPU backend needs no GPU; `wavekit::cuda::open(0)` (feature `cuda`) gives the same
//! // methods on an NVIDIA GPU, `wavekit::simt::open(width)` on the SIMT executor.
//! let cpu = CpuBackend::new(WarpWidth::W32);
//! let data: Vec<u32> = (1..=100).collect();
//! let input = cpu.upload(&data)?;
//! assert_eq!(cpu.reduce(&input, ReduceOp::Sum)?, 5050);
//!
//! let mut prefix = cpu.alloc::<u32>(data.len())?;
//! cpu.scan(&input, &mut prefix, ReduceOp::Sum, ScanKind::Inclusive)?;
//! assert_eq!(cpu.download(&prefix)?[..4], [1, 3, 6, 10]);
//! # Ok::<(), wavekit::WavekitError>(())
//! ```
//!
//! Features: none by default (the CPU backend is always built); `simt` (the executor),
//! `cuda`, `hip`, `dist`, `nccl`, `rccl`.
//!
//! Runnable programs: `examples/` (`cargo run --example reduce_scan`, `spmv`; `warp_lanes`
//! with `--features simt`).

#![warn(missing_docs)]
#![warn(missing_debug_implementations)]

pub use wavekit_core::{
    ArgOp, ArgReduce, Backend, ByKey, Collectives, Compacted, Csr, DeviceBuffer, ElemKind, Element,
    HistogramResult, LaneMask, Match, Partition, PartitionReversed, Partitioned, Partitioned3,
    Partitioned3Reversed, Predicate, ReduceOp, ReducedByKey, Result, RunLengths, Runs, ScanKind,
    SegmentedSort, Segments, Shfl, SliceDevice, Sort, SortOrder, TopK, UniqueByKey, VectorSize,
    View, ViewMut, Vote, VoteResult, WarpPrimitives, WarpWidth, WavekitError, bf16, f16,
};
pub use wavekit_core::{
    api, backend, canonical, element, error, host, lanes, mask, op, predicate, raw, view, vocab,
    width,
};
pub use wavekit_gpu::device;

pub use wavekit_cpu as cpu;
#[cfg(feature = "cuda")]
pub use wavekit_cuda as cuda;
pub use wavekit_gpu as gpu;
#[cfg(feature = "hip")]
pub use wavekit_hip as hip;
#[cfg(feature = "simt")]
pub use wavekit_simt as simt;

pub mod safety;

/// Collectives across ranks and devices (feature `dist`): everything of `wavekit-dist`, with
/// the thread transport's oracle on the CPU backend under short names, so that
/// `ThreadWorld::run(3, |rank| ...)` needs no type; the thread transport over any backend is
/// [`threads::ThreadWorld`](wavekit_dist::threads::ThreadWorld).
///
/// ```
/// use wavekit::dist::{Comm, Layout, Mode, ThreadWorld, Transport};
/// use wavekit::prelude::*;
///
/// let data: Vec<f32> = (0..10_000).map(|i| (i as f32).sin()).collect();
/// let layout = Layout::even(data.len(), 3);
/// let sums = ThreadWorld::run(3, |rank| {
///     let comm = Comm::new(rank);
///     let shard = comm.backend().upload(&data[layout.range(comm.rank())]).unwrap();
///     comm.all_reduce_value(&shard, ReduceOp::Sum, Mode::Reproducible).unwrap()
/// });
/// // The same bits on every rank, and those of the single-device reduce of the whole.
/// let cpu = CpuBackend::new(WarpWidth::W32);
/// let whole = cpu.reduce(&cpu.upload(&data)?, ReduceOp::Sum)?;
/// assert!(sums.into_iter().all(|s| s.unwrap().to_bits() == whole.to_bits()));
/// # Ok::<(), wavekit::WavekitError>(())
/// ```
#[cfg(feature = "dist")]
pub mod dist {
    pub use wavekit_dist::*;
    /// NCCL (CUDA) and RCCL (AMD) as the transport over GPUs (features `nccl`, `rccl`): the
    /// crate `wavekit-nccl`.
    #[cfg(any(feature = "nccl", feature = "rccl"))]
    pub use wavekit_nccl as nccl;

    /// The oracle's world: ranks as threads, each on its own [`CpuBackend`](crate::cpu::CpuBackend).
    pub type ThreadWorld = wavekit_dist::ThreadWorld<crate::cpu::CpuBackend>;
    /// One rank of a [`ThreadWorld`] on the CPU backend.
    pub type ThreadRank = wavekit_dist::ThreadRank<crate::cpu::CpuBackend>;
}

/// Every collective's two forms, inputs, outputs and their lengths, what is asynchronous and
/// what allocates (docs/COLLECTIVES.md).
#[doc = include_str!("../docs/COLLECTIVES.md")]
pub mod collectives {}

/// The traits and types most programs use: `use wavekit::prelude::*;`.
///
/// Backends: [`CpuBackend`](prelude::CpuBackend) (`CpuBackend::new(width)`), and with their
/// features `SimtBackend` (`wavekit::simt::open(width)`, feature `simt`), `CudaBackend`
/// (`wavekit::cuda::open(ordinal)`) and `HipBackend` (`wavekit::hip::open(ordinal)`).
///
/// ```
/// use wavekit::prelude::*;
///
/// // A 64-lane warp reduce on the CPU backend, and with the `simt` feature on the SIMT
/// // executor (the real kernels, on the CPU): the same result.
/// let cpu = CpuBackend::new(WarpWidth::W64);
/// let v: Vec<u32> = (0..64).collect();
/// assert_eq!(cpu.warp_reduce(&v, 64, ReduceOp::Sum)?, [2016]);
/// # #[cfg(feature = "simt")]
/// # {
/// let exec: SimtBackend = wavekit::simt::open(WarpWidth::W64)?;
/// assert_eq!(exec.warp_reduce(&v, 64, ReduceOp::Sum)?, [2016]);
/// # }
/// # Ok::<(), wavekit::WavekitError>(())
/// ```
pub mod prelude {
    pub use crate::cpu::{CpuBackend, CpuBuffer};
    #[cfg(feature = "cuda")]
    pub use crate::cuda::CudaBackend;
    #[cfg(feature = "hip")]
    pub use crate::hip::HipBackend;
    #[cfg(feature = "simt")]
    pub use crate::simt::SimtBackend;
    pub use crate::{
        ArgOp, ArgReduce, Backend, ByKey, Collectives, Compacted, Csr, DeviceBuffer, ElemKind,
        Element, HistogramResult, LaneMask, Partition, PartitionReversed, Partitioned,
        Partitioned3, Partitioned3Reversed, Predicate, ReduceOp, ReducedByKey, Result, RunLengths,
        Runs, ScanKind, SegmentedSort, Segments, Shfl, Sort, SortOrder, TopK, UniqueByKey,
        VectorSize, Vote, VoteResult, WarpPrimitives, WarpWidth, WavekitError, bf16, f16,
    };
}

/// What every primitive and collective computes, on every backend and warp width: the text of
/// docs/SEMANTICS.md, which the conformance suite checks each backend against.
#[doc = include_str!("../docs/SEMANTICS.md")]
pub mod semantics {}
