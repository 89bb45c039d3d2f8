//! The GPU backend shared by CUDA and HIP: `GpuBackend<R>` implements `Backend` once over a
//! vendor `GpuRuntime` and the launcher table of that vendor's compiled csrc object.

mod backend;
mod bench;
mod buffer;
pub mod ffi;
mod imp;
mod probe;
pub mod runtime;

pub use backend::GpuBackend;
pub use buffer::GpuBuffer;
pub use probe::TileStatus;
pub use runtime::{DevPtr, GpuRuntime};
