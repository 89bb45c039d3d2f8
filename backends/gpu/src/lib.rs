//! wavekit-gpu: the GPU backend written once. `GpuBackend<R>` implements wavekit-core's
//! `Backend` and `RawBackend` over a vendor [`GpuRuntime`] (memory, stream, device attributes)
//! and the launcher table of that vendor's compiled csrc object ([`ffi`], generated from
//! csrc/wavekit/launchers.def).
//!
//! How it fits: it depends on wavekit-core only; wavekit-cuda (cudarc), wavekit-hip
//! (libamdhip64) and wavekit-simt (the CPU executor) each provide a runtime and the compiled
//! kernels, and the `wavekit` facade re-exports them.
//!
//! Launching: each collective's file (named as the collective is everywhere else: vote.rs,
//! device_reduce.rs, ...) checks its arguments, then runs its launcher as a method of the
//! `Launch` the backend lends it (launch.rs, generated from launchers.def with a typed `unsafe
//! fn` wrapper per launcher on [`ffi::Launchers`]), which checks every memory argument against
//! what the launcher reaches before the call. So the collectives' files hold no pointer casts
//! and, but for the three launchers whose device data the host cannot check, no `unsafe`.
//!
//! Across devices: the device steps of wavekit-dist's collectives are wavekit-core's
//! `SliceDevice`, which this backend implements (`RawSliceDevice`, slice_device/), not
//! methods of its own. What a transport between GPUs needs beyond them (wavekit-nccl) is
//! public here: the peer kernel's allreduce ([`GpuBackend::peer_all_reduce`],
//! [`GpuBackend::peer_flags`], [`GpuBackend::peer_quiet`], [`PeerCall`]) and memory shared
//! between processes ([`GpuBackend::ipc_export`], [`GpuBackend::ipc_open`], [`PeerMapping`]).

#![warn(missing_docs)]
#![warn(missing_debug_implementations)]

// The backend: its state and workspace, how it launches, its memory and buffers.
mod adopt;
mod backend;
mod buffer;
mod buffer_calls;
mod cached_memory;
pub mod device;
pub mod ffi;
mod ipc;
mod launch;
mod mem_cache;
mod memory;
mod queue;
mod raw_backend;
pub mod rtc;
pub mod runtime;
mod tagged_launch;
mod tagged_pool;
mod warp;
mod workspace;

// One file a collective, named as in wavekit-core's API, the CPU backend and csrc/kernels.
mod activemask;
mod arg_reduce;
mod atomic_agg_inc;
mod block_reduce;
mod by_key;
mod compact;
mod count_if;
mod device_reduce;
mod device_scan;
mod histogram;
mod look_back_probe;
mod r#match;
mod partition;
mod partition_reversed;
mod peer_all_reduce;
mod runs;
mod segmented_reduce;
mod segmented_sort;
mod shfl;
mod sort;
mod spmv;
mod syncwarp_transpose;
mod tile;
mod top_k;
mod vote;
mod warp_reduce;
mod warp_reduce_sync;
mod warp_scan;

// The device steps of the collectives across devices (`RawSliceDevice`) and what they call.
mod slice_device;

pub use backend::GpuBackend;
pub use buffer::{GpuBuffer, OnDrop};
pub use ipc::PeerMapping;
pub use look_back_probe::TileStatus;
pub use peer_all_reduce::{MAX_PEERS, PEER_FLAG_WORDS, PeerCall};
pub use runtime::{DevPtr, GpuRuntime, IPC_HANDLE_BYTES, IpcHandle};
pub use slice_device::{MAX_MERGE_RUNS, MAX_REDUCE_ROWS};
/// [`MAX_REDUCE_ROWS`] under its former name.
#[deprecated(since = "0.1.0", note = "renamed MAX_REDUCE_ROWS")]
pub const MAX_BFLY_ROWS: usize = MAX_REDUCE_ROWS;
