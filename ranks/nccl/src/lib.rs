//! wavekit-nccl: NCCL (CUDA) and RCCL (HIP) as a wavekit-dist [`Transport`] over the shared GPU
//! backend: the device buffers of `GpuBackend<R>` go to the library as they are, on the
//! backend's own stream. The facade re-exports it as `wavekit::dist::nccl` (features `nccl`,
//! `rccl`); it depends on wavekit-dist (the transport contract), wavekit-gpu (the buffers, the
//! stream and the peer kernel) and libloading (the library, found at run time).
//!
//! Two launch modes, as cluster jobs run them:
//! - one process driving several GPUs: [`NcclTransport::init_all`], then one thread per rank;
//! - one process per GPU: [`NcclTransport::from_launch`] with a [`Launch`] read from the
//!   environment (torchrun's `RANK`/`WORLD_SIZE`/`LOCAL_RANK` or Open MPI's
//!   `OMPI_COMM_WORLD_*`), the unique id shared over a file or TCP (`bootstrap.rs`);
//!   `scripts/launch-local.sh N cmd` starts N such processes on one host.
//!
//! The two-value combines of the reproducible collectives run as NCCL reduce-scatter or
//! allreduce on two-rank communicators split off the world once (`ncclCommSplit`): with two
//! values per element every NCCL algorithm computes the same `op(a, b)`.
//!
//! No hang: every call (its enqueue, which with several ranks in one process may wait on the
//! host for the others, and the wait for the stream) runs under a watchdog that aborts the
//! communicator after the timeout (a rank that never joined leaves NCCL spinning); the
//! communicator is then unusable and each later call fails at once. Float Min/Max over NCCL
//! follow NCCL's NaN rules, not docs/SEMANTICS.md's (NaN propagation is not guaranteed).

#![warn(missing_docs)]
#![warn(missing_debug_implementations)]

mod board;
mod bootstrap;
mod ffi;
mod file_board;
mod init;
mod library;
mod peer;
mod watchdog;

pub use bootstrap::{Exchange, Launch};
pub use ffi::{UNIQUE_ID_BYTES, UniqueId};
pub use library::Vendor;
pub use peer::{ONE_SHOT_MAX_BYTES, PEER_MAX_BYTES};

use board::Board;
use ffi::{Comm, SPLIT_NOCOLOR, SendComm, data_type, red_op};
use file_board::FileBoard;
use library::Library;
use std::ffi::{c_int, c_void};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use watchdog::Watchdog;
use wavekit_core::api::check_len;
use wavekit_core::{Backend, DeviceBuffer, Element, ReduceOp, Result, WavekitError};
use wavekit_dist::Transport;
use wavekit_dist::transport::{check_all_to_all, check_within};
use wavekit_gpu::{GpuBackend, GpuBuffer, GpuRuntime};

/// How long a rank waits for the others (joining or inside a collective) unless told otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// One rank of an NCCL/RCCL communicator, computing on its own GPU backend.
pub struct NcclTransport<R: GpuRuntime> {
    lib: &'static Library,
    backend: GpuBackend<R>,
    comm: SendComm,
    rank: usize,
    world: usize,
    timeout: Duration,
    /// Two-rank communicators `(peer, comm)`, split off the world on the first pair call.
    pairs: Mutex<Option<Vec<(usize, SendComm)>>>,
    /// Aborts a communicator whose call outlives the timeout.
    watchdog: Watchdog,
    /// Inside [`Transport::batch`]: calls are queued on the stream without waiting for it.
    queued: AtomicBool,
    /// Where ranks exchange small data without the GPU, when they share memory.
    board: Option<HostBoard>,
    /// The peer kernel's allreduce (`peer.rs`): where this rank stands, what the caller set.
    peer: Mutex<peer::State<R>>,
    peer_config: peer::Config,
}

/// The ranks' shared memory for small exchanges: the threads of one process (`init_all`), or
/// the processes of one host (`from_launch` with every rank on this machine).
enum HostBoard {
    Threads(Arc<Board>),
    Files(FileBoard),
}

/// The library version string, for `wavekit info`-style reports ("2.27.7 from /path").
pub fn library_version(vendor: Vendor) -> Result<String> {
    let lib = Library::get(vendor)?;
    Ok(format!("{} from {}", lib.version()?, lib.path))
}

/// A fresh unique id (rank 0 makes it; every rank needs the same one).
pub fn unique_id(vendor: Vendor) -> Result<UniqueId> {
    let lib = Library::get(vendor)?;
    let mut id = UniqueId {
        internal: [0; UNIQUE_ID_BYTES],
    };
    lib.check(
        // SAFETY: writes one ncclUniqueId.
        unsafe { (lib.get_unique_id)(&mut id) },
        "ncclGetUniqueId",
        None,
    )?;
    Ok(id)
}

fn ptr<T: Element, R: GpuRuntime>(b: &GpuBuffer<T, R>) -> *mut c_void {
    b.device_ptr() as *mut c_void
}

/// The address of element `i` of `b` (`i <= b.len()`, checked by the caller).
fn at<T: Element, R: GpuRuntime>(b: &GpuBuffer<T, R>, i: usize) -> *mut c_void {
    (b.device_ptr() + (i * size_of::<T>()) as u64) as *mut c_void
}

impl<R: GpuRuntime> std::fmt::Debug for NcclTransport<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NcclTransport")
            .field("rank", &self.rank)
            .field("world", &self.world)
            .field("timeout", &self.timeout)
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl<R: GpuRuntime> NcclTransport<R> {
    /// Whether the ranks are threads of this process (`init_all`): their device addresses
    /// mean the same to all of them.
    fn shares_process(&self) -> bool {
        matches!(self.board, Some(HostBoard::Threads(_)))
    }

    /// Every rank's `mine` through the GPU (an allgather): for the transport's own setup.
    fn gather_words(&self, mine: &[u64]) -> Result<Vec<u64>> {
        let send = self.backend.upload(mine)?;
        let mut all = self.backend.alloc::<u64>(mine.len() * self.world)?;
        self.all_gather(&send, &mut all)?;
        self.backend.download(&all)
    }

    /// How long a call waits before it aborts the communicator.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The library and version this transport runs on.
    pub fn library(&self) -> Result<String> {
        Ok(format!("{} from {}", self.lib.version()?, self.lib.path))
    }

    /// Runs `enqueue` (NCCL calls on the backend's stream), then waits for the stream (inside
    /// a batch, the batch's end waits instead); a watchdog aborts the communicator if that
    /// takes longer than the timeout.
    fn run(&self, call: &str, comm: Comm, enqueue: impl FnOnce() -> c_int) -> Result<()> {
        let queued = self.queued.load(Ordering::Relaxed);
        self.wait_under_watchdog(call, vec![SendComm(comm)], || {
            self.lib.check(enqueue(), call, Some(comm))?;
            if queued {
                return Ok(());
            }
            self.backend.synchronize()
        })
    }

    /// Runs `wait` (which may block on the other ranks) under the watchdog for `comms`.
    fn wait_under_watchdog(
        &self,
        call: &str,
        comms: Vec<SendComm>,
        wait: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        if !self.watchdog.fired().is_empty() {
            return Err(WavekitError::RankLost {
                peer: None,
                reason: "the communicator was aborted by an earlier timeout".into(),
            });
        }
        self.backend.runtime().make_current()?;
        // Armed from before the enqueue: with several ranks in one process, NCCL may wait on
        // the host for the others inside the call itself.
        let synced = self.watchdog.guard(comms, self.timeout, wait);
        if !self.watchdog.fired().is_empty() {
            return Err(WavekitError::RankLost {
                peer: None,
                reason: format!(
                    "{call} did not complete within {} s on rank {} of {}: a rank did not \
                     join; the communicator was aborted",
                    self.timeout.as_secs(),
                    self.rank,
                    self.world
                ),
            });
        }
        synced
    }

    /// Every communicator of this rank: the world's and the pairs split off it.
    fn comms(&self) -> Vec<SendComm> {
        let mut comms = vec![self.comm];
        let pairs = self.pairs.lock().unwrap_or_else(PoisonError::into_inner);
        comms.extend(pairs.iter().flatten().map(|(_, c)| *c));
        comms
    }

    /// The two-rank communicator shared with `peer`, splitting them all off on first use.
    /// Every rank makes its first pair call at the same point of the same collective, so every
    /// rank takes part in the same splits in the same order.
    fn pair_comm(&self, peer: usize) -> Result<Comm> {
        let mut pairs = self.pairs.lock().unwrap_or_else(PoisonError::into_inner);
        if pairs.is_none() {
            let p = 1usize << self.world.ilog2();
            let r = self.rank;
            let mut out = Vec::new();
            // The fold of ranks P.. into 0.., then the halving steps d = P/2 .. 1.
            let mut splits: Vec<(c_int, usize)> = Vec::new();
            let fold_peer = if r >= p {
                Some(r - p)
            } else if r + p < self.world {
                Some(r + p)
            } else {
                None
            };
            splits.push(match fold_peer {
                Some(q) => ((r.min(q)) as c_int, q),
                None => (SPLIT_NOCOLOR, usize::MAX),
            });
            let mut d = p / 2;
            while d >= 1 {
                splits.push(if r < p {
                    ((r & !d) as c_int, r ^ d)
                } else {
                    (SPLIT_NOCOLOR, usize::MAX)
                });
                d /= 2;
            }
            for (color, peer) in splits {
                let mut comm: Comm = std::ptr::null_mut();
                self.backend.runtime().make_current()?;
                // SAFETY: a collective split of the world communicator; NULL config.
                let code = unsafe {
                    (self.lib.comm_split)(
                        self.comm.0,
                        color,
                        r as c_int,
                        &mut comm,
                        std::ptr::null_mut(),
                    )
                };
                self.lib.check(code, "ncclCommSplit", Some(self.comm.0))?;
                if color != SPLIT_NOCOLOR {
                    out.push((peer, SendComm(comm)));
                }
            }
            *pairs = Some(out);
        }
        pairs
            .as_ref()
            .and_then(|v| v.iter().find(|(q, _)| *q == peer))
            .map(|(_, c)| c.0)
            .ok_or(WavekitError::IndexOutOfRange {
                what: "peer rank (no pair communicator)",
                value: peer as u64,
                limit: self.world as u64,
            })
    }
}

impl<R: GpuRuntime> Drop for NcclTransport<R> {
    fn drop(&mut self) {
        let fired: Vec<Comm> = self.watchdog.fired().iter().map(|c| c.0).collect();
        let destroy = if !fired.is_empty() {
            self.lib.comm_abort
        } else {
            self.lib.comm_destroy
        };
        let _ = self.backend.runtime().make_current();
        self.peer_release();
        let pairs = self.pairs.get_mut().unwrap_or_else(PoisonError::into_inner);
        let comms = pairs.take().unwrap_or_default().into_iter().map(|(_, c)| c);
        for c in comms.chain([self.comm]) {
            // Those the watchdog aborted are gone already.
            if !fired.contains(&c.0) {
                // SAFETY: owned here, used by no one after this.
                unsafe { destroy(c.0) };
            }
        }
    }
}

impl<R: GpuRuntime> Transport for NcclTransport<R> {
    type Backend = GpuBackend<R>;

    fn backend(&self) -> &GpuBackend<R> {
        &self.backend
    }

    fn rank(&self) -> usize {
        self.rank
    }

    fn world(&self) -> usize {
        self.world
    }

    fn all_gather<T: Element>(
        &self,
        send: &GpuBuffer<T, R>,
        recv: &mut GpuBuffer<T, R>,
    ) -> Result<()> {
        check_len("allgather output", send.len() * self.world, recv.len())?;
        let stream = self.backend.runtime().stream();
        // SAFETY: NCCL reads `send.len()` elements of `send` and writes `world` times that to
        // `recv`, whose length was checked to be exactly that; both are this rank's buffers,
        // `recv` borrowed exclusively, and the call is queued on the backend's stream.
        self.run("ncclAllGather", self.comm.0, || unsafe {
            (self.lib.all_gather)(
                ptr(send),
                ptr(recv),
                send.len(),
                data_type(T::KIND),
                self.comm.0,
                stream,
            )
        })
    }

    fn pair_reduce_scatter<T: Element>(
        &self,
        peer: usize,
        send: &GpuBuffer<T, R>,
        recv: &mut GpuBuffer<T, R>,
        op: ReduceOp,
    ) -> Result<()> {
        check_len("pair reduce-scatter input", 2 * recv.len(), send.len())?;
        let comm = self.pair_comm(peer)?;
        let nop = red_op(op, T::KIND)?;
        let stream = self.backend.runtime().stream();
        // SAFETY: as in all_gather; the pair communicator has two ranks.
        self.run("ncclReduceScatter (pair)", comm, || unsafe {
            (self.lib.reduce_scatter)(
                ptr(send),
                ptr(recv),
                recv.len(),
                data_type(T::KIND),
                nop,
                comm,
                stream,
            )
        })
    }

    fn pair_reduce_scatter_within<T: Element>(
        &self,
        peer: usize,
        buf: &mut GpuBuffer<T, R>,
        src: Range<usize>,
        dst: Range<usize>,
        op: ReduceOp,
    ) -> Result<()> {
        check_within(buf.len(), &src, &dst)?;
        let comm = self.pair_comm(peer)?;
        let nop = red_op(op, T::KIND)?;
        let stream = self.backend.runtime().stream();
        self.run(
            "ncclReduceScatter (pair, within one buffer)",
            comm,
            // SAFETY: two disjoint ranges inside `buf` (checked above), on this rank's GPU.
            || unsafe {
                (self.lib.reduce_scatter)(
                    at(buf, src.start),
                    at(buf, dst.start),
                    dst.len(),
                    data_type(T::KIND),
                    nop,
                    comm,
                    stream,
                )
            },
        )
    }

    fn all_gather_in_place<T: Element>(&self, recv: &mut GpuBuffer<T, R>, m: usize) -> Result<()> {
        check_len(
            "in-place allgather buffer (world × part)",
            m * self.world,
            recv.len(),
        )?;
        let stream = self.backend.runtime().stream();
        // SAFETY: NCCL's in-place form: the send part is recv + rank * m, inside `recv`.
        self.run("ncclAllGather (in place)", self.comm.0, || unsafe {
            (self.lib.all_gather)(
                at(recv, self.rank * m),
                ptr(recv),
                m,
                data_type(T::KIND),
                self.comm.0,
                stream,
            )
        })
    }

    fn pair_all_reduce<T: Element>(
        &self,
        peer: usize,
        send: &GpuBuffer<T, R>,
        recv: &mut GpuBuffer<T, R>,
        op: ReduceOp,
    ) -> Result<()> {
        check_len("pair allreduce output", send.len(), recv.len())?;
        let comm = self.pair_comm(peer)?;
        self.nccl_all_reduce("ncclAllReduce (pair)", comm, send, recv, op)
    }

    fn all_to_all_v<T: Element>(
        &self,
        send: &GpuBuffer<T, R>,
        send_counts: &[usize],
        recv: &mut GpuBuffer<T, R>,
        recv_counts: &[usize],
    ) -> Result<()> {
        let world = self.world;
        check_all_to_all(world, send_counts, send.len(), recv_counts, recv.len())?;
        let stream = self.backend.runtime().stream();
        let dt = data_type(T::KIND);
        let recv = &*recv;
        // SAFETY: every part lies inside its buffer (the counts sum to the lengths, checked
        // above), on this rank's GPU; one group, so no pair of ranks waits on another.
        self.run("ncclSend/ncclRecv (all-to-all)", self.comm.0, || unsafe {
            let mut rc = (self.lib.group_start)();
            let (mut s_at, mut r_at) = (0, 0);
            for peer in 0..world {
                let p = peer as c_int;
                if rc == 0 && send_counts[peer] > 0 {
                    rc = (self.lib.send)(
                        at(send, s_at),
                        send_counts[peer],
                        dt,
                        p,
                        self.comm.0,
                        stream,
                    );
                }
                if rc == 0 && recv_counts[peer] > 0 {
                    rc = (self.lib.recv)(
                        at(recv, r_at),
                        recv_counts[peer],
                        dt,
                        p,
                        self.comm.0,
                        stream,
                    );
                }
                s_at += send_counts[peer];
                r_at += recv_counts[peer];
            }
            let end = (self.lib.group_end)();
            if rc != 0 { rc } else { end }
        })
    }

    fn all_reduce_native<T: Element>(
        &self,
        send: &GpuBuffer<T, R>,
        recv: &mut GpuBuffer<T, R>,
        op: ReduceOp,
    ) -> Result<()> {
        check_len("allreduce output", send.len(), recv.len())?;
        self.nccl_all_reduce("ncclAllReduce", self.comm.0, send, recv, op)
    }

    fn check_native_op<T: Element>(&self, op: ReduceOp) -> Result<()> {
        red_op(op, T::KIND).map(|_| ())
    }

    fn fused_words<T: Element>(&self, send: &GpuBuffer<T, R>, recv: &GpuBuffer<T, R>) -> [u64; 2] {
        [send.device_ptr(), recv.device_ptr()]
    }

    fn all_reduce_fused<T: Element>(
        &self,
        send: &GpuBuffer<T, R>,
        recv: &mut GpuBuffer<T, R>,
        op: ReduceOp,
        words: &[[u64; 2]],
    ) -> Option<Result<()>> {
        self.peer_all_reduce(send, recv, op, words)
    }

    fn exchange_host(&self, mine: &[u64]) -> Option<Result<Vec<u64>>> {
        let board = self.board.as_ref()?;
        if !self.watchdog.fired().is_empty() {
            return Some(Err(WavekitError::RankLost {
                peer: None,
                reason: "the communicator was aborted after a rank was lost".into(),
            }));
        }
        let all = match board {
            HostBoard::Threads(b) => b.exchange(self.rank, mine, self.timeout),
            // Every rank passes the same length, so every rank takes the same path.
            HostBoard::Files(_) if mine.len() > file_board::MAX_WORDS => return None,
            HostBoard::Files(b) => b.exchange(mine, self.timeout),
        };
        if all.is_err() {
            // A rank is lost: the communicators go as a timed-out call's would, so later calls
            // fail at once and dropping the transport does not wait for the lost rank.
            self.watchdog.abort_now(self.lib, self.comms());
        }
        Some(all)
    }

    fn enqueue<T>(&self, steps: impl FnOnce() -> Result<T>) -> Result<T> {
        if self.queued.swap(true, Ordering::Relaxed) {
            // Nested: the outer call decides when to wait.
            return steps();
        }
        // Cleared however the steps end (an unwinding panic included): a later call must wait.
        struct Clear<'a>(&'a AtomicBool);
        impl Drop for Clear<'_> {
            fn drop(&mut self) {
                self.0.store(false, Ordering::Relaxed);
            }
        }
        let _clear = Clear(&self.queued);
        steps()
    }

    fn wait(&self) -> Result<()> {
        if self.queued.load(Ordering::Relaxed) {
            // Inside a batch or an enqueue: the outermost one waits (or its caller).
            return Ok(());
        }
        // The steps may have queued calls on any communicator: a peer that is gone leaves one
        // of them spinning, so the watchdog holds them all.
        self.wait_under_watchdog("the queued calls", self.comms(), || {
            self.backend.synchronize()
        })
    }
}

impl<R: GpuRuntime> NcclTransport<R> {
    fn nccl_all_reduce<T: Element>(
        &self,
        call: &str,
        comm: Comm,
        send: &GpuBuffer<T, R>,
        recv: &mut GpuBuffer<T, R>,
        op: ReduceOp,
    ) -> Result<()> {
        let nop = red_op(op, T::KIND)?;
        let stream = self.backend.runtime().stream();
        // SAFETY: NCCL reads and writes `send.len()` elements; both callers checked that `recv`
        // is as long as `send`. Both are this rank's buffers, `recv` borrowed exclusively (so
        // they do not overlap), and the call is queued on the backend's stream.
        self.run(call, comm, || unsafe {
            (self.lib.all_reduce)(
                ptr(send),
                ptr(recv),
                send.len(),
                data_type(T::KIND),
                nop,
                comm,
                stream,
            )
        })
    }
}
