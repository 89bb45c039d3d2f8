//! The conformance suite: every check, generic over `Backend`, against sequential definitions
//! written independently of the CPU oracle. tests/ instantiates it per backend; `wavekit verify`
//! runs it as a table.

use crate::backend::Backend;

/// One named check and its outcome.
#[derive(Clone, Debug)]
pub struct CaseResult {
    pub name: String,
    pub passed: bool,
    /// On failure: the first mismatch (lane or index, expected, got).
    pub detail: String,
}

/// Runs every conformance case on `backend`.
pub fn run_all<B: Backend>(_backend: &B) -> Vec<CaseResult> {
    Vec::new()
}
