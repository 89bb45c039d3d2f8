//! wavekit-core: everything wavekit's layers agree on, and the validated API users call.
//!
//! - Types: element types and their exact combining rules ([`element`]), predicates
//!   ([`predicate`]), lane masks that know their width ([`mask`]), warp widths ([`width`]),
//!   the canonical-order constants ([`canonical`]), errors ([`error`]).
//! - The vocabulary of the collectives ([`vocab`]): reduction ops, the arg-reduce selection,
//!   the warp primitives' kinds, scan kinds, sort orders, histogram counts. Below both the raw
//!   layer and the API; `op`, `arg_op`, `backend`, `api` and `raw` re-export what they held.
//! - The lane rules: which lane a shuffle or the transpose reads ([`lanes`]).
//! - The backend contract: [`Backend`] (device memory and identity) and [`RawBackend`] (the
//!   unvalidated kernel entry points, callable only from this crate); for the collectives
//!   across devices, [`RawSliceDevice`] (copies between buffers and the sharded collectives'
//!   device steps, sealed the same way).
//! - Borrowed memory: [`View`] and [`ViewMut`] ([`view`]), buffers that wrap a caller's
//!   memory or a range of another buffer without a copy.
//! - The validated API every backend gets for free: [`WarpPrimitives`] and [`Collectives`]
//!   ([`api`]), which check every argument, turn undefined lanes into `None`, and only then call
//!   the backend; and [`SliceDevice`] for every backend that implements [`RawSliceDevice`].
//!
//! How it fits: the backends (`wavekit-cpu`, `wavekit-gpu` with `wavekit-simt`,
//! `wavekit-cuda`, `wavekit-hip`) depend on this crate and implement its raw traits; the
//! `wavekit` facade re-exports this crate and the backends; the conformance suite, the bench
//! harness and the command line sit above the facade. Semantics: docs/SEMANTICS.md.

#![warn(missing_docs)]
#![warn(missing_debug_implementations)]
#![warn(clippy::missing_errors_doc)]

pub mod api;
pub mod arg_op;
pub mod backend;
pub mod canonical;
pub mod element;
pub mod error;
pub mod host;
pub mod lanes;
pub mod mask;
pub mod op;
pub mod predicate;
pub mod raw;
mod raw_args;
mod raw_slices;
pub mod view;
pub mod vocab;
pub mod width;

pub use api::{
    ArgReduce, ByKey, Collectives, Compacted, Csr, Partition, PartitionReversed, Partitioned,
    Partitioned3, Partitioned3Reversed, ReducedByKey, RunLengths, Runs, SegmentedSort, Segments,
    SliceDevice, Sort, TopK, UniqueByKey, VectorSize, VoteResult, WarpPrimitives,
};
pub use backend::{Backend, DeviceBuffer};
pub use element::{ElemKind, Element, bf16, f16};
pub use error::{Result, WavekitError};
pub use mask::LaneMask;
pub use predicate::Predicate;
pub use raw::{
    ByKeyOut, RawBackend, RawSliceDevice, RunsOut, SegmentSpec, SortSpec, Validated, WarpLaunch,
};
pub use view::{Anchored, View, ViewMut};
pub use vocab::{ArgOp, HistogramResult, Match, ReduceOp, ScanKind, Shfl, SortOrder, Vote};
pub use width::WarpWidth;
