//! The vocabulary of wavekit's collectives: the plain types that name what a collective does
//! or returns, shared by the raw layer (raw.rs, the backends) and the validated API (api/)
//! alike, so they live below both and import neither.
//!
//! - How elements combine or are selected: [`ReduceOp`], [`ArgOp`] (ops.rs).
//! - The kinds of warp primitive: [`Vote`], [`Shfl`], [`Match`] (warp.rs).
//! - How a sort orders its keys: [`SortOrder`] and, validated, [`SortSpec`] (sort.rs).
//! - Whether a scan includes its own element, [`ScanKind`]; what a histogram returns,
//!   [`HistogramResult`] (here).
//!
//! Their older homes still name them (`wavekit_core::op::ReduceOp`, `backend::ScanKind`,
//! `api::SortOrder`, `raw::SortSpec`, ...): those paths are re-exports of these.

mod ops;
mod sort;
mod warp;

pub use ops::{ArgOp, ReduceOp};
pub use sort::{SortOrder, SortSpec};
pub use warp::{Match, Shfl, Vote};

/// Whether element i of a scan includes input i.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScanKind {
    /// Output i combines inputs `0..=i`.
    Inclusive,
    /// Output i combines inputs `0..i`; output 0 is the op's identity.
    Exclusive,
}

/// The counts of a histogram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistogramResult {
    /// `counts[k]` is how many keys equal `k`, one entry per bin.
    pub counts: Vec<u64>,
    /// Keys at or beyond the bin count, counted here instead of dropped.
    pub outside: u64,
}
