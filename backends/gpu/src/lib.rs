//! wavekit-gpu: the GPU backend written once. `GpuBackend<R>` implements wavekit-core's
//! `Backend` and `RawBackend` over a vendor [`GpuRuntime`] (memory, stream, device attributes)
//! and the launcher table of that vendor's compiled csrc object ([`ffi`], generated from
//! csrc/wavekit/launchers.def).
//!
//! How it fits: it depends on wavekit-core only; wavekit-cuda (cudarc), wavekit-hip
//! (libamdhip64) and wavekit-simt (the CPU executor) each provide a runtime and the compiled
//! kernels, and the `wavekit` facade re-exports them.
//!
//! Across devices: the device steps of wavekit-dist's collectives are wavekit-core's
//! `SliceDevice`, which this backend implements (`RawSliceDevice`, slice_device.rs), not
//! methods of its own. What a transport between GPUs needs beyond them (wavekit-nccl) is
//! public here: the peer kernel's allreduce ([`GpuBackend::peer_all_reduce`],
//! [`GpuBackend::peer_flags`], [`GpuBackend::peer_quiet`], [`PeerCall`]) and memory shared
//! between processes ([`GpuBackend::ipc_export`], [`GpuBackend::ipc_open`], [`PeerMapping`]).

#![warn(missing_docs)]
#![warn(missing_debug_implementations)]

mod adopt;
mod arg_reduce;
mod atomic_agg_inc;
mod backend;
mod bfly_rows;
mod buffer;
mod buffer_calls;
mod by_key;
mod cached_memory;
mod compact;
pub mod device;
pub mod ffi;
mod histogram;
mod imp;
mod ipc;
mod mem_cache;
mod merge_runs;
mod partition;
mod peer_all_reduce;
mod probe;
mod reduce;
pub mod rtc;
mod runs;
pub mod runtime;
mod scan;
mod slice_device;
mod sort;
mod spmv;
mod strided;
mod tagged_launch;
mod tagged_pool;

pub use backend::GpuBackend;
pub use bfly_rows::MAX_BFLY_ROWS;
pub use buffer::{GpuBuffer, OnDrop};
pub use ipc::PeerMapping;
pub use merge_runs::MAX_MERGE_RUNS;
pub use peer_all_reduce::{MAX_PEERS, PEER_FLAG_WORDS, PeerCall};
pub use probe::TileStatus;
pub use runtime::{DevPtr, GpuRuntime, IPC_HANDLE_BYTES, IpcHandle};
