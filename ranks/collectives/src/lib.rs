//! wavekit-dist: wavekit past one device. Each rank holds a contiguous shard of a logical array
//! (shard sizes may differ) or an equal-length buffer, and a [`Comm`] runs the collectives
//! across ranks over a [`Transport`]: ranks as threads of one process ([`ThreadWorld`]; over the
//! CPU backend the oracle CI runs at 1..8 ranks), or NCCL/RCCL over GPUs (the crate
//! `wavekit-nccl`, `wavekit::dist::nccl` with the facade's features `nccl`, `rccl`). The
//! collectives take any backend that has wavekit-core's [`SliceDevice`], and this crate names
//! none: a transport or a backend plugs in from its own crate.
//!
//! In the default [`Mode::Reproducible`] a float result is bit-identical for any rank count and
//! any shard split, and equal to the single-device result of the whole array
//! (docs/SEMANTICS.md, "dist"): sharded reduce and scan follow the canonical tiles of the
//! whole array; elementwise allreduce follows a fixed butterfly over ranks that no transport
//! algorithm can change. [`Mode::Fast`] is the transport's own allreduce.
//!
//! Every collective starts with a handshake: the ranks exchange what they were called with and
//! all of them fail with [`WavekitError::RankMismatch`] if they disagree, before any data
//! moves; a rank that never joins is reported as [`WavekitError::RankLost`] on the others.
//!
//! The distributed logic here moves small amounts of data through host memory (headers, the
//! elements of tiles that straddle shards, tile partials) with the backend's upload/download;
//! with the CPU backend that is free.
//!
//! ```
//! use wavekit_core::ReduceOp;
//! use wavekit_dist::{Comm, Layout, Mode, ThreadWorld, Transport};
//! use wavekit_core::Backend;
//! use wavekit_cpu::CpuBackend;
//!
//! let data: Vec<f32> = (0..10_000).map(|i| (i as f32).sin()).collect();
//! let layout = Layout::even(data.len(), 3);
//! let sums = ThreadWorld::<CpuBackend>::run(3, |rank| {
//!     let comm = Comm::new(rank);
//!     let shard = comm.backend().upload(&data[layout.range(comm.rank())]).unwrap();
//!     comm.all_reduce_value(&shard, ReduceOp::Sum, Mode::Reproducible).unwrap()
//! });
//! let sums: Vec<f32> = sums.into_iter().map(|r| r.unwrap()).collect();
//! assert!(sums.iter().all(|s| s.to_bits() == sums[0].to_bits()));
//! ```

#![warn(missing_docs)]
#![warn(missing_debug_implementations)]

mod device;
mod elementwise;
mod handshake;
mod layout;
mod mailbox;
mod reduce;
mod scan;
mod select;
mod sort;
pub mod threads;
pub mod transport;

pub use layout::Layout;
pub use reduce::ReducePlan;
pub use scan::ScanPlan;
pub use select::DistCompacted;
pub use select::{CountIfPlan, HistogramPlan};
pub use sort::{DistSorted, SortedPairs};
pub use threads::{DEFAULT_TIMEOUT, ThreadRank, ThreadWorld};
pub use transport::{Buf, Transport};
/// What the collectives need of a rank's device: wavekit-core's contract, which every backend
/// that runs them implements (the CPU and GPU backends).
pub use wavekit_core::SliceDevice;
pub use wavekit_core::{Result, WavekitError};

/// `LengthMismatch` unless `got == expected`.
pub(crate) fn check_len(what: &'static str, expected: usize, got: usize) -> Result<()> {
    if expected == got {
        Ok(())
    } else {
        Err(WavekitError::LengthMismatch {
            what,
            expected,
            got,
        })
    }
}

/// How float results are combined across ranks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// The canonical order of the whole array: the same bits for any rank count, shard split
    /// and transport algorithm.
    #[default]
    Reproducible,
    /// The transport's own algorithm (NCCL's ring or tree): fastest, but float bits may change
    /// with the rank count and the message size. Integers are exact either way.
    Fast,
}

/// One rank's handle on a communicator: the distributed collectives.
pub struct Comm<X: Transport> {
    x: X,
    /// Kept device buffers of the small exchanges (`mailbox.rs`).
    mailbox: std::sync::Mutex<mailbox::Mailbox<X>>,
    /// The last one-call reduce's plan and output (`reduce.rs`), of whatever element type.
    reduce_cache: std::sync::Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

impl<X: Transport> std::fmt::Debug for Comm<X> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Comm")
            .field("rank", &self.rank())
            .field("world", &self.world())
            .finish_non_exhaustive()
    }
}

impl<X: Transport> Comm<X> {
    /// This rank's handle over its transport endpoint.
    pub fn new(transport: X) -> Self {
        Comm {
            x: transport,
            mailbox: Default::default(),
            reduce_cache: Default::default(),
        }
    }

    /// This rank's index, `0..world()`.
    pub fn rank(&self) -> usize {
        self.x.rank()
    }

    /// Ranks in the communicator.
    pub fn world(&self) -> usize {
        self.x.world()
    }

    /// The device this rank computes on (to allocate and upload its shards).
    pub fn backend(&self) -> &X::Backend {
        self.x.backend()
    }

    /// The transport endpoint underneath.
    pub fn transport(&self) -> &X {
        &self.x
    }
}
