//! wavekit-bench: the benchmark harness behind `wavekit bench` and `cargo bench`.
//!
//! - [`job`]: one collective call as a value, so `wavekit bench` and the criterion bench time the
//!   same work.
//! - [`case`]: what a case is (a collective on one type, checked bit for bit against
//!   wavekit-conformance's reference before it is timed: a wrong result gets no number).
//! - [`cases`] (the list of them all), [`sort`], [`runs`], [`by_key`], [`partition`]: every
//!   collective at a size, its input made and its expected result computed.
//! - [`timing`]: the harness and the same-run copy/read baselines; a backend joins by
//!   implementing [`timing::BenchBackend`] (done here for the CPU, the executor, CUDA and HIP).
//! - [`runner`], [`report`]: running the cases on a backend and printing/CSV/SVG of the rows.
//! - `cuda` (feature `cuda`): device-event timing, CUB baselines, the seed ladder and kernel
//!   variants from csrc/bench, compiled by this crate's build script.
//!
//! How it fits: it sits above the `wavekit` facade (and uses the conformance reference); the
//! `wavekit` command line and the criterion bench in benches/ are its users. Nothing here is
//! part of the library users link.

#![warn(missing_debug_implementations)]

pub mod by_key;
pub mod case;
pub mod cases;
#[cfg(feature = "cuda")]
pub mod cuda;
// The executor and HIP share its copy baseline; a CUDA-only build has neither.
#[cfg(any(feature = "simt", feature = "hip"))]
mod gpu;
pub mod job;
pub mod partition;
pub mod plot;
pub mod report;
pub mod runner;
pub mod runs;
pub mod sort;
#[cfg(test)]
mod tests;
pub mod timing;

pub use report::{Layout, Outcome, Row, csv, show_n, speedup};
pub use runner::{Progress, Selection, bench_one};
