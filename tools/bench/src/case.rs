//! What a bench case is and how each one checks its result: a case is a collective on one
//! element type, run, compared bit for bit with the reference and only then timed. Every file of
//! cases (cases.rs, sort.rs, runs.rs, by_key.rs, partition.rs, the CUDA variants) builds on this
//! one, and cases.rs lists them all.

use super::timing::{Baseline, BenchBackend, Harness, Timing};
use rayon::prelude::*;
use wavekit::element::Element;
use wavekit::error::WavekitError;
use wavekit::host;

/// A timed, checked case.
#[derive(Clone, Debug)]
pub struct Measured {
    /// The call's timed samples.
    pub timing: Timing,
    /// Bytes the collective must move: its input read once, plus what it writes.
    pub bytes: u64,
    /// Bytes of the input: the size of the copy (and read) it is compared with.
    pub input_bytes: u64,
    /// The same work done another way in the same run (CUB, plain atomics), if the backend has it.
    pub baseline: Option<Baseline>,
    /// The collective only reads its input, so a read of the same bytes is its ceiling.
    pub read_only: bool,
}

/// Why a case has no number.
#[derive(Clone, Debug)]
pub enum Refused {
    /// The backend's result differs from the reference (the first difference).
    Wrong(String),
    /// The backend refused or failed the call.
    Error(WavekitError),
}

impl From<WavekitError> for Refused {
    fn from(e: WavekitError) -> Self {
        Refused::Error(e)
    }
}

/// A case's outcome: its measurement, or why it has none.
pub type CaseResult = Result<Measured, Refused>;

/// One collective on one element type, for backend `B`.
#[derive(Debug)]
pub struct Case<B> {
    /// The row's name (the collective and its shape), which `--only` matches.
    pub collective: &'static str,
    /// The element type's name.
    pub elem: &'static str,
    /// Makes the input, checks the result and times the call at a size.
    pub run: fn(&B, &Harness, usize) -> CaseResult,
}

/// Cases only some backends have (variants of their kernels), run after the common ones. A
/// trait of its own rather than a method of `BenchBackend`, so that the timing layer does not
/// depend on the cases it times.
pub trait ExtraCases: BenchBackend {
    /// This backend's own cases; none by default.
    fn extra_cases() -> Vec<Case<Self>> {
        Vec::new()
    }
}

impl ExtraCases for wavekit::cpu::CpuBackend {}

/// `n` random values of stream `stream` (distinct streams give unrelated arrays).
pub fn random<T: Element>(n: usize, stream: u64) -> Vec<T> {
    (0..n as u64)
        .into_par_iter()
        .map(|i| T::from_seed(stream << 40 | i))
        .collect()
}

/// [`random`] allocated fallibly: a size past host memory (or past
/// `host::HOST_ALLOC_LIMIT`) is a `Refused::Error(OutOfMemory)` row, not an abort.
pub fn try_random<T: Element>(n: usize, stream: u64) -> Result<Vec<T>, Refused> {
    let mut v = host::with_capacity(n)?;
    v.par_extend(
        (0..n as u64)
            .into_par_iter()
            .map(|i| T::from_seed(stream << 40 | i)),
    );
    Ok(v)
}

/// Bytes of `n` elements of `T` (saturated: a byte count for the report, never an overflow).
pub fn size_of<T: Element>(n: usize) -> u64 {
    (n as u64).saturating_mul(T::KIND.size() as u64)
}

/// Whether the bench can make its arrays of `n` elements: every case holds arrays of `n`
/// values of up to 8 bytes, each one host allocation, which must be within
/// `host::HOST_ALLOC_LIMIT`. The message names the size as the user wrote it.
pub fn check_size(n: usize) -> Result<(), String> {
    host::check::<u64>(n).map_err(|_| {
        format!(
            "size {} is too large: an array of {} 8-byte elements is past the host's limit of {} \
             GiB for one allocation",
            crate::show_n(n),
            n,
            host::HOST_ALLOC_LIMIT >> 30
        )
    })
}

/// The result `got` bit for bit equal to `expected`, or why not.
pub fn check_one<T: Element>(expected: T, got: T) -> Result<(), Refused> {
    if expected.same(got) {
        Ok(())
    } else {
        Err(Refused::Wrong(format!(
            "expected {expected:?}, got {got:?}"
        )))
    }
}

/// Every result bit for bit equal to the expected one (and as many), or the first difference.
pub fn check_all<T: Element>(expected: &[T], got: &[T]) -> Result<(), Refused> {
    if expected.len() != got.len() {
        return Err(Refused::Wrong(format!(
            "expected {} results, got {}",
            expected.len(),
            got.len()
        )));
    }
    match expected.iter().zip(got).position(|(e, g)| !e.same(*g)) {
        None => Ok(()),
        Some(i) => Err(Refused::Wrong(format!(
            "index {i}: expected {:?}, got {:?}",
            expected[i], got[i]
        ))),
    }
}
