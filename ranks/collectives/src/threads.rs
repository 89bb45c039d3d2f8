//! Ranks as threads over the CPU backend: the oracle transport, so CI runs every distributed
//! collective at 1..8 ranks without a GPU. Each ordered pair of ranks has a FIFO mailbox; a send
//! never blocks, a receive waits at most the world's timeout, and a rank whose endpoint is
//! dropped is reported at once to every rank waiting on it.
//!
//! A lost rank (a receive that timed out, or a peer that left owing a message) aborts the
//! world, as the watchdog aborts an NCCL communicator: from then on every receive on every rank
//! fails at once with `RankLost`. Messages of the failed call may still be in flight (the late
//! rank's, or the others' to it), and a FIFO cannot tell them from the next call's: a world
//! that went on would hand them to the wrong call.

use crate::check_len;
use crate::transport::{Transport, check_all_to_all};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};
use wavekit_core::element::{as_bytes, as_bytes_mut};
use wavekit_core::{Backend, DeviceBuffer, Element, ReduceOp, Result, WarpWidth, WavekitError};
use wavekit_cpu::{CpuBackend, CpuBuffer};

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

/// A communicator of `world` ranks in one process, each rank a [`ThreadRank`] to move into
/// its own thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThreadWorld;

impl ThreadWorld {
    /// The endpoints of a new world, rank 0 first; each rank computes on its own CPU backend.
    pub fn endpoints(world: usize, width: WarpWidth, timeout: Duration) -> Vec<ThreadRank> {
        let shared = Arc::new(Shared {
            world,
            boxes: (0..world * world)
                .map(|_| (Mutex::default(), Condvar::new()))
                .collect(),
            gone: (0..world).map(|_| AtomicBool::new(false)).collect(),
            aborted: Mutex::new(None),
        });
        (0..world)
            .map(|rank| ThreadRank {
                shared: Arc::clone(&shared),
                rank,
                timeout,
                backend: CpuBackend::new(width),
            })
            .collect()
    }

    /// Runs `body` once per rank, each on its own thread, and returns the results in rank order.
    pub fn run<R: Send>(
        world: usize,
        body: impl Fn(ThreadRank) -> R + Sync,
    ) -> Vec<std::thread::Result<R>> {
        let ranks = Self::endpoints(world, WarpWidth::W32, DEFAULT_TIMEOUT);
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

/// One rank of a [`ThreadWorld`].
pub struct ThreadRank {
    shared: Arc<Shared>,
    rank: usize,
    timeout: Duration,
    backend: CpuBackend,
}

impl std::fmt::Debug for ThreadRank {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadRank")
            .field("rank", &self.rank)
            .field("world", &self.shared.world)
            .field("timeout", &self.timeout)
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl Drop for ThreadRank {
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

impl ThreadRank {
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

fn check_recv<T: Element>(recv: &CpuBuffer<T>, expected: usize) -> Result<()> {
    check_len("receive buffer", expected, recv.len())
}

impl Transport for ThreadRank {
    type Backend = CpuBackend;

    fn backend(&self) -> &CpuBackend {
        &self.backend
    }

    fn rank(&self) -> usize {
        self.rank
    }

    fn world(&self) -> usize {
        self.shared.world
    }

    fn all_gather<T: Element>(&self, send: &CpuBuffer<T>, recv: &mut CpuBuffer<T>) -> Result<()> {
        let n = send.len();
        check_recv(recv, n * self.world())?;
        for dst in (0..self.world()).filter(|&d| d != self.rank) {
            self.send_bytes(dst, as_bytes(send.as_slice()).to_vec());
        }
        let mut out = Vec::with_capacity(n * self.world());
        for src in 0..self.world() {
            if src == self.rank {
                out.extend_from_slice(send.as_slice());
            } else {
                out.extend(self.recv_elems::<T>(src, n)?);
            }
        }
        self.backend.write(recv, &out)
    }

    fn pair_reduce_scatter<T: Element>(
        &self,
        peer: usize,
        send: &CpuBuffer<T>,
        recv: &mut CpuBuffer<T>,
        op: ReduceOp,
    ) -> Result<()> {
        let m = send.len() / 2;
        check_recv(recv, m)?;
        let (lo, hi) = send.as_slice()[..2 * m].split_at(m);
        let (mine, theirs) = if self.rank < peer { (lo, hi) } else { (hi, lo) };
        let out = self.pair_combine(peer, mine, theirs, op)?;
        self.backend.write(recv, &out)
    }

    fn pair_all_reduce<T: Element>(
        &self,
        peer: usize,
        send: &CpuBuffer<T>,
        recv: &mut CpuBuffer<T>,
        op: ReduceOp,
    ) -> Result<()> {
        check_recv(recv, send.len())?;
        let out = self.pair_combine(peer, send.as_slice(), send.as_slice(), op)?;
        self.backend.write(recv, &out)
    }

    fn all_to_all_v<T: Element>(
        &self,
        send: &CpuBuffer<T>,
        send_counts: &[usize],
        recv: &mut CpuBuffer<T>,
        recv_counts: &[usize],
    ) -> Result<()> {
        let world = self.world();
        check_all_to_all(world, send_counts, send.len(), recv_counts, recv.len())?;
        let mut at = 0;
        let mut own = &send.as_slice()[..0];
        for (dst, &c) in send_counts.iter().enumerate() {
            let part = &send.as_slice()[at..at + c];
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
        send: &CpuBuffer<T>,
        recv: &mut CpuBuffer<T>,
        op: ReduceOp,
    ) -> Result<()> {
        check_recv(recv, send.len())?;
        let mut gathered = self.backend.alloc::<T>(send.len() * self.world())?;
        self.all_gather(send, &mut gathered)?;
        let parts: Vec<&[T]> = gathered.as_slice().chunks(send.len().max(1)).collect();
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
