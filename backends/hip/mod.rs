//! HIP/ROCm backend: the shared GPU backend over a hand-written HIP runtime FFI.
//!
//! Layers, as in cudarc: `sys` (raw extern declarations of libamdhip64 and of the ABI shim
//! abi.cpp), `result` (each call checked, hipError_t turned into `WavekitError`), `runtime`
//! (`HipRuntime`, the safe `GpuRuntime`). The hip-rs crate is not used: see README.md.

pub mod result;
pub mod runtime;
pub mod sys;

pub use runtime::HipRuntime;
