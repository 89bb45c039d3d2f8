//! Shared GPU backend: placeholder until the CUDA issue.
pub mod runtime;
