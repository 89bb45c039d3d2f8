//! Ranks as threads of one process, each computing on its own backend: the oracle transport
//! (over the CPU backend, CI runs every distributed collective at 1..8 ranks without a GPU),
//! and a way to run the collectives over any backend that has the device steps
//! ([`SliceDevice`]). Data moves through host memory with the backend's own `download` and
//! `write`. Each ordered pair of ranks has a FIFO mailbox; a send never blocks, a receive waits
//! at most the world's timeout, and a rank whose endpoint is dropped is reported at once to
//! every rank waiting on it.
//!
//! A lost rank (a receive that timed out, or a peer that left owing a message) aborts the
//! world, as the watchdog aborts an NCCL communicator: from then on every receive on every rank
//! fails at once with `RankLost`. Messages of the failed call may still be in flight (the late
//! rank's, or the others' to it), and a FIFO cannot tell them from the next call's: a world
//! that went on would hand them to the wrong call.

use crate::check_len;
use crate::transport::{Transport, check_all_to_all};
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};
use wavekit_core::element::{as_bytes, as_bytes_mut};
use wavekit_core::{
    Backend, DeviceBuffer, Element, ReduceOp, Result, SliceDevice, WarpWidth, WavekitError,
};

/// How long a rank waits for a peer before giving up, unless the world says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

struct Shared {
    world: usize,
    /// `boxes[src * world + dst]`: messages from src to dst, oldest first, and its wake-up.
    boxes: Vec<(Mutex<VecDeque<Vec<u8>>>, Condvar)>,
    /// Set when a rank's endpoint is dropped: it will never send again.
    gone: Vec<AtomicBool>,
    /// Set once, by the first rank that lost a peer: the peer and why.
    aborted: Mutex<Option<(usize, String)>>,
}

/// A communicator of ranks in one process, each rank a [`ThreadRank`] to move into its own
/// thread and computing on its own backend `B`. The facade names the CPU oracle
/// `wavekit::dist::ThreadWorld` (`B` = the CPU backend), so that `ThreadWorld::run(3, |rank|
/// ...)` needs no type.
///
/// ```
/// use wavekit_core::{Backend, ReduceOp, WarpWidth};
/// use wavekit_cpu::CpuBackend;
/// use wavekit_dist::{Comm, ThreadWorld, Transport};
///
/// // Three ranks, each on a CPU backend made from the warp width.
/// let sums = ThreadWorld::<CpuBackend>::run(3, |rank| {
///     let comm = Comm::new(rank);
///     let shard = comm.backend().upload(&[comm.rank() as u32 + 1; 4]).unwrap();
///     comm.count_if(&shard, wavekit_core::Predicate::Gt(1)).unwrap()
/// });
/// assert!(sums.into_iter().all(|s| s.unwrap() == 8));
/// // Or over backends made by the caller (any backend with the device steps).
/// let backends = (0..2).map(|_| CpuBackend::new(WarpWidth::W64));
/// let widths = ThreadWorld::run_on(backends, |rank| rank.backend().warp_width());
/// assert!(widths.into_iter().all(|w| w.unwrap() == WarpWidth::W64));
/// ```
pub struct ThreadWorld<B>(PhantomData<fn() -> B>);

impl<B> std::fmt::Debug for ThreadWorld<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ThreadWorld")
    }
}

impl<B: SliceDevice + 'static> ThreadWorld<B> {
    /// The endpoints of a new world of one rank a backend, rank 0 first; rank r computes on
    /// the r-th backend.
    pub fn endpoints_on(
        backends: impl IntoIterator<Item = B>,
        timeout: Duration,
    ) -> Vec<ThreadRank<B>> {
        let backends: Vec<B> = backends.into_iter().collect();
        let world = backends.len();
        let shared = Arc::new(Shared {
            world,
            boxes: (0..world * world)
                .map(|_| (Mutex::default(), Condvar::new()))
                .collect(),
            gone: (0..world).map(|_| AtomicBool::new(false)).collect(),
            aborted: Mutex::new(None),
        });
        backends
            .into_iter()
            .enumerate()
            .map(|(rank, backend)| ThreadRank {
                shared: Arc::clone(&shared),
                rank,
                timeout,
                backend,
            })
            .collect()
    }

    /// Runs `body` once per rank of a world over `backends` (one rank each), each on its own
    /// thread, with [`DEFAULT_TIMEOUT`], and returns the results in rank order.
    pub fn run_on<R: Send>(
        backends: impl IntoIterator<Item = B>,
        body: impl Fn(ThreadRank<B>) -> R + Sync,
    ) -> Vec<std::thread::Result<R>> {
        let ranks = Self::endpoints_on(backends, DEFAULT_TIMEOUT);
        std::thread::scope(|s| {
            let handles: Vec<_> = ranks
                .into_iter()
                .map(|r| {
                    let body = &body;
                    s.spawn(move || body(r))
                })
                .collect();
            handles.into_iter().map(|h| h.join()).collect()
        })
    }
}

/// A world whose backends are made from a warp width alone (the CPU backend's
/// `From<WarpWidth>`): the oracle's short forms.
impl<B: SliceDevice + From<WarpWidth> + 'static> ThreadWorld<B> {
    /// The endpoints of a new world of `world` ranks, rank 0 first, each on its own backend of
    /// `width` lanes.
    pub fn endpoints(world: usize, width: WarpWidth, timeout: Duration) -> Vec<ThreadRank<B>> {
        Self::endpoints_on((0..world).map(|_| B::from(width)), timeout)
    }

    /// Runs `body` once per rank of a world of `world` ranks (each on its own backend of 32
    /// lanes), each on its own thread, and returns the results in rank order.
    pub fn run<R: Send>(
        world: usize,
        body: impl Fn(ThreadRank<B>) -> R + Sync,
    ) -> Vec<std::thread::Result<R>> {
        Self::run_on((0..world).map(|_| B::from(WarpWidth::W32)), body)
    }
}

/// One rank of a [`ThreadWorld`], computing on its backend `B`.
pub struct ThreadRank<B> {
    shared: Arc<Shared>,
    rank: usize,
    timeout: Duration,
    backend: B,
}

impl<B: Backend> std::fmt::Debug for ThreadRank<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadRank")
            .field("rank", &self.rank)
            .field("world", &self.shared.world)
            .field("timeout", &self.timeout)
            .field("backend", &self.backend.name())
            .finish_non_exhaustive()
    }
}

impl<B> Drop for ThreadRank<B> {
    fn drop(&mut self) {
        self.shared.gone[self.rank].store(true, Ordering::SeqCst);
        for dst in 0..self.shared.world {
            // Taking the mailbox lock orders the flag before any waiter's next check.
            let _guard = self.mailbox(self.rank, dst);
            self.shared.boxes[self.rank * self.shared.world + dst]
                .1
                .notify_all();
        }
    }
}

impl<B> ThreadRank<B> {
    fn mailbox(&self, src: usize, dst: usize) -> std::sync::MutexGuard<'_, VecDeque<Vec<u8>>> {
        self.shared.boxes[src * self.shared.world + dst]
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn send_bytes(&self, dst: usize, bytes: Vec<u8>) {
        self.mailbox(self.rank, dst).push_back(bytes);
        self.shared.boxes[self.rank * self.shared.world + dst]
            .1
            .notify_all();
    }

    fn recv_bytes(&self, src: usize) -> Result<Vec<u8>> {
        let deadline = Instant::now() + self.timeout;
        let mut mb = self.mailbox(src, self.rank);
        let reason = loop {
            if let Some(e) = self.aborted() {
                return Err(e);
            }
            if let Some(m) = mb.pop_front() {
                return Ok(m);
            }
            if self.shared.gone[src].load(Ordering::SeqCst) {
                break "it left the communicator".to_string();
            }
            let now = Instant::now();
            if now >= deadline {
                break format!(
                    "rank {} waited {} ms for it",
                    self.rank,
                    self.timeout.as_millis()
                );
            }
            mb = self.shared.boxes[src * self.shared.world + self.rank]
                .1
                .wait_timeout(mb, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        };
        drop(mb);
        self.abort(src, &reason);
        Err(WavekitError::RankLost {
            peer: Some(src),
            reason,
        })
    }

    /// The error of a receive in a world that was aborted, if it was.
    fn aborted(&self) -> Option<WavekitError> {
        let aborted = self
            .shared
            .aborted
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        aborted.as_ref().map(|(peer, why)| WavekitError::RankLost {
            peer: Some(*peer),
            reason: format!("the communicator was aborted when rank {peer} was lost ({why})"),
        })
    }

    /// Aborts the world for losing `peer` (the first loss is kept) and wakes every receive.
    fn abort(&self, peer: usize, why: &str) {
        self.shared
            .aborted
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert_with(|| (peer, why.to_string()));
        for (mailbox, wake) in &self.shared.boxes {
            // Taking the mailbox lock orders the flag before the waiter's next check.
            let _guard = mailbox.lock().unwrap_or_else(PoisonError::into_inner);
            wake.notify_all();
        }
    }

    fn recv_elems<T: Element>(&self, src: usize, len: usize) -> Result<Vec<T>> {
        let bytes = self.recv_bytes(src)?;
        let mut out = vec![T::default(); len];
        if bytes.len() != size_of_val(out.as_slice()) {
            return Err(WavekitError::LengthMismatch {
                what: "message from a peer rank (bytes)",
                expected: size_of_val(out.as_slice()),
                got: bytes.len(),
            });
        }
        as_bytes_mut(&mut out).copy_from_slice(&bytes);
        Ok(out)
    }

    fn check_peer(&self, peer: usize) -> Result<()> {
        if peer >= self.shared.world || peer == self.rank {
            return Err(WavekitError::IndexOutOfRange {
                what: "peer rank",
                value: peer as u64,
                limit: self.shared.world as u64,
            });
        }
        Ok(())
    }

    /// Sends `theirs` to `peer`, receives the peer's copy of `mine` and combines it with
    /// `mine`, element by element.
    fn pair_combine<T: Element>(
        &self,
        peer: usize,
        mine: &[T],
        theirs: &[T],
        op: ReduceOp,
    ) -> Result<Vec<T>> {
        self.check_peer(peer)?;
        self.send_bytes(peer, as_bytes(theirs).to_vec());
        let got = self.recv_elems::<T>(peer, mine.len())?;
        Ok(mine
            .iter()
            .zip(&got)
            .map(|(&a, &b)| T::combine(op, a, b))
            .collect())
    }
}

fn check_recv<T: Element>(recv: &impl DeviceBuffer<T>, expected: usize) -> Result<()> {
    check_len("receive buffer", expected, recv.len())
}

impl<B: SliceDevice + 'static> Transport for ThreadRank<B> {
    type Backend = B;

    fn backend(&self) -> &B {
        &self.backend
    }

    fn rank(&self) -> usize {
        self.rank
    }

    fn world(&self) -> usize {
        self.shared.world
    }

    fn all_gather<T: Element>(&self, send: &B::Buffer<T>, recv: &mut B::Buffer<T>) -> Result<()> {
        let n = send.len();
        check_recv(recv, n * self.world())?;
        let mine = self.backend.download(send)?;
        for dst in (0..self.world()).filter(|&d| d != self.rank) {
            self.send_bytes(dst, as_bytes(&mine).to_vec());
        }
        let mut out = Vec::with_capacity(n * self.world());
        for src in 0..self.world() {
            if src == self.rank {
                out.extend_from_slice(&mine);
            } else {
                out.extend(self.recv_elems::<T>(src, n)?);
            }
        }
        self.backend.write(recv, &out)
    }

    fn pair_reduce_scatter<T: Element>(
        &self,
        peer: usize,
        send: &B::Buffer<T>,
        recv: &mut B::Buffer<T>,
        op: ReduceOp,
    ) -> Result<()> {
        let m = send.len() / 2;
        check_recv(recv, m)?;
        let send = self.backend.download(send)?;
        let (lo, hi) = send[..2 * m].split_at(m);
        let (mine, theirs) = if self.rank < peer { (lo, hi) } else { (hi, lo) };
        let out = self.pair_combine(peer, mine, theirs, op)?;
        self.backend.write(recv, &out)
    }

    fn pair_all_reduce<T: Element>(
        &self,
        peer: usize,
        send: &B::Buffer<T>,
        recv: &mut B::Buffer<T>,
        op: ReduceOp,
    ) -> Result<()> {
        check_recv(recv, send.len())?;
        let send = self.backend.download(send)?;
        let out = self.pair_combine(peer, &send, &send, op)?;
        self.backend.write(recv, &out)
    }

    fn all_to_all_v<T: Element>(
        &self,
        send: &B::Buffer<T>,
        send_counts: &[usize],
        recv: &mut B::Buffer<T>,
        recv_counts: &[usize],
    ) -> Result<()> {
        let world = self.world();
        check_all_to_all(world, send_counts, send.len(), recv_counts, recv.len())?;
        let send = self.backend.download(send)?;
        let mut at = 0;
        let mut own = &send[..0];
        for (dst, &c) in send_counts.iter().enumerate() {
            let part = &send[at..at + c];
            if dst == self.rank {
                own = part;
            } else {
                self.send_bytes(dst, as_bytes(part).to_vec());
            }
            at += c;
        }
        let mut out = Vec::with_capacity(recv.len());
        for (src, &c) in recv_counts.iter().enumerate() {
            if src == self.rank {
                crate::check_len("all-to-all part this rank keeps", c, own.len())?;
                out.extend_from_slice(own);
            } else {
                out.extend(self.recv_elems::<T>(src, c)?);
            }
        }
        self.backend.write(recv, &out)
    }

    /// A left fold in rank order: as with a real library, its float bits depend on the rank
    /// count.
    fn all_reduce_native<T: Element>(
        &self,
        send: &B::Buffer<T>,
        recv: &mut B::Buffer<T>,
        op: ReduceOp,
    ) -> Result<()> {
        check_recv(recv, send.len())?;
        let mut gathered = self.backend.alloc::<T>(send.len() * self.world())?;
        self.all_gather(send, &mut gathered)?;
        let gathered = self.backend.download(&gathered)?;
        let parts: Vec<&[T]> = gathered.chunks(send.len().max(1)).collect();
        let out: Vec<T> = (0..send.len())
            .map(|i| {
                let mut acc = parts[0][i];
                for p in &parts[1..] {
                    acc = T::combine(op, acc, p[i]);
                }
                acc
            })
            .collect();
        self.backend.write(recv, &out)
    }
}
