//! The `Transport` trait: what the distributed collectives need from a communicator, and the
//! checks of its arguments that every implementation shares. Two implementations: ranks as
//! threads (`threads.rs`; over the CPU backend, the oracle CI runs) and NCCL/RCCL over the GPU
//! backend (the crate wavekit-nccl).
//!
//! Only two operations combine values, and both combine exactly two of them per element
//! (`pair_*`): every op is commutative bit for bit, so a two-value combine has one possible
//! result whatever the library's algorithm. Every longer chain of combines is spelled out by
//! the caller (`elementwise.rs`), which is what makes the reproducible collectives independent
//! of the transport. `all_reduce_native` is the library's own allreduce, for the fast mode.

use std::ops::Range;
use wavekit_core::{Backend, DeviceBuffer, Element, ReduceOp, Result, SliceDevice, WavekitError};

/// A device buffer of the transport's backend.
pub type Buf<X, T> = <<X as Transport>::Backend as Backend>::Buffer<T>;

/// One rank's endpoint of a communicator. Every rank calls the same methods in the same order
/// with equal lengths (the collectives check that with a handshake before moving data).
pub trait Transport: Send + 'static {
    /// The backend this rank computes on.
    type Backend: SliceDevice;

    /// The device this rank computes on.
    fn backend(&self) -> &Self::Backend;
    /// This rank's index, `0..world()`.
    fn rank(&self) -> usize;
    /// Ranks in the communicator.
    fn world(&self) -> usize;

    /// `recv` = every rank's `send` concatenated in rank order (`recv.len() = world * send.len()`).
    fn all_gather<T: Element>(&self, send: &Buf<Self, T>, recv: &mut Buf<Self, T>) -> Result<()>;

    /// Two-rank reduce-scatter with `peer`: both pass `send` of `2m` elements; the lower rank of
    /// the pair gets `op(mine[i], theirs[i])` for `i < m`, the higher for `i >= m`, in `recv`.
    fn pair_reduce_scatter<T: Element>(
        &self,
        peer: usize,
        send: &Buf<Self, T>,
        recv: &mut Buf<Self, T>,
        op: ReduceOp,
    ) -> Result<()>;

    /// Two-rank allreduce with `peer`: both get `op(mine[i], theirs[i])` in `recv`.
    fn pair_all_reduce<T: Element>(
        &self,
        peer: usize,
        send: &Buf<Self, T>,
        recv: &mut Buf<Self, T>,
        op: ReduceOp,
    ) -> Result<()>;

    /// [`Transport::pair_reduce_scatter`] from `buf[src]` into `buf[dst]`, two disjoint ranges
    /// of one buffer (`src.len() = 2 * dst.len()`), so that the halving steps of the
    /// reproducible allreduce need no scratch. The default copies `buf[src]` out first; a
    /// transport that reads and writes device memory directly overrides it.
    fn pair_reduce_scatter_within<T: Element>(
        &self,
        peer: usize,
        buf: &mut Buf<Self, T>,
        src: Range<usize>,
        dst: Range<usize>,
        op: ReduceOp,
    ) -> Result<()> {
        check_within(buf.len(), &src, &dst)?;
        let b = self.backend();
        let input = b.copy_range(buf, src)?;
        let mut out = b.slice_mut(buf, dst)?;
        self.pair_reduce_scatter(peer, &input, &mut out, op)
    }

    /// [`Transport::all_gather`] in place: `recv` holds this rank's `m` elements at
    /// `rank * m` and gets every rank's (`recv.len() = world * m`). The default copies this
    /// rank's part out first; NCCL gathers in place.
    fn all_gather_in_place<T: Element>(&self, recv: &mut Buf<Self, T>, m: usize) -> Result<()> {
        let at = self.rank() * m;
        crate::check_len(
            "in-place allgather buffer (world × part)",
            m * self.world(),
            recv.len(),
        )?;
        let mine = self.backend().copy_range(recv, at..at + m)?;
        self.all_gather(&mine, recv)
    }

    /// Personalised all-to-all: this rank sends the `send_counts[d]` elements of `send` that
    /// follow the parts for ranks below d to rank d, and receives `recv_counts[s]` elements from
    /// each rank s into `recv`, concatenated in source-rank order. Every rank's `send_counts[d]`
    /// must equal rank d's `recv_counts[rank]` (callers exchange the counts first).
    fn all_to_all_v<T: Element>(
        &self,
        send: &Buf<Self, T>,
        send_counts: &[usize],
        recv: &mut Buf<Self, T>,
        recv_counts: &[usize],
    ) -> Result<()>;

    /// The library's own allreduce over all ranks: fast, but for floats its bits may depend on
    /// the rank count, the message size and the algorithm.
    fn all_reduce_native<T: Element>(
        &self,
        send: &Buf<Self, T>,
        recv: &mut Buf<Self, T>,
        op: ReduceOp,
    ) -> Result<()>;

    /// Refuses (a typed error) an op that [`Transport::all_reduce_native`] cannot do for `T`,
    /// before any work: a plan checks it when it is made rather than failing at its first run
    /// (NCCL and RCCL have no bitwise ops). Every op by default.
    fn check_native_op<T: Element>(&self, op: ReduceOp) -> Result<()> {
        let _ = op;
        Ok(())
    }

    /// Two words this rank adds to a reproducible allreduce's handshake for
    /// [`Transport::all_reduce_fused`]: the NCCL transport's are its buffers' device addresses.
    fn fused_words<T: Element>(&self, send: &Buf<Self, T>, recv: &Buf<Self, T>) -> [u64; 2] {
        let _ = (send, recv);
        [0, 0]
    }

    /// The reproducible allreduce (element i = the canonical butterfly over the ranks' values,
    /// as `Comm::all_reduce` computes it) in one step of the transport's own, or `None` to let
    /// the collective compose it from the calls above; `words` holds every rank's
    /// [`Transport::fused_words`] for this call. Every rank must give the same kind of answer
    /// for the same call. The NCCL transport of one process answers with a kernel that reads
    /// the other GPUs' buffers; the default has none.
    fn all_reduce_fused<T: Element>(
        &self,
        send: &Buf<Self, T>,
        recv: &mut Buf<Self, T>,
        op: ReduceOp,
        words: &[[u64; 2]],
    ) -> Option<Result<()>> {
        let _ = (send, recv, op, words);
        None
    }

    /// Every rank's `mine` (the same length on every rank) in rank order, through host memory
    /// the ranks share, or `None` where they share none: the collectives then exchange through
    /// device buffers and `all_gather`. NCCL ranks of one process (`init_all`) share a board;
    /// the default has none.
    fn exchange_host(&self, mine: &[u64]) -> Option<Result<Vec<u64>>> {
        let _ = mine;
        None
    }

    /// Runs `steps`, calls of this transport that depend only on each other (no host reads
    /// their results in between), and returns once all of them are done: [`Transport::enqueue`]
    /// then [`Transport::wait`]. A transport whose calls are asynchronous waits once at the end
    /// instead of after each call: the reproducible allreduce's log2(R) + 1 steps pay one host
    /// round trip, not one each.
    fn batch<T>(&self, steps: impl FnOnce() -> Result<T>) -> Result<T> {
        let out = self.enqueue(steps);
        // Waited for whatever the steps returned: they may have queued calls before failing.
        let waited = self.wait();
        let value = out?;
        waited.map(|()| value)
    }

    /// Runs `steps` with every call of this transport only enqueued on the backend's stream
    /// (no wait for the device, so the steps can be captured into a graph); nested inside
    /// another `enqueue` or `batch`, the outer one decides. The default's calls are synchronous.
    fn enqueue<T>(&self, steps: impl FnOnce() -> Result<T>) -> Result<T> {
        steps()
    }

    /// Waits until everything enqueued on this rank's stream is done; a transport that can
    /// hang on a lost rank gives up after its timeout with `RankLost`. The default has nothing
    /// to wait for.
    fn wait(&self) -> Result<()> {
        Ok(())
    }
}

/// An all-to-all's counts: one per rank, the send counts summing to the send buffer's length
/// and the receive counts to the receive buffer's
/// ([`Transport::all_to_all_v`]'s arguments).
///
/// # Errors
/// `LengthMismatch` naming the counts that are not one per rank or do not sum to their
/// buffer's length.
pub fn check_all_to_all(
    world: usize,
    send_counts: &[usize],
    send_len: usize,
    recv_counts: &[usize],
    recv_len: usize,
) -> Result<()> {
    for (what, counts, len) in [
        (
            "all-to-all send counts (one per rank)",
            send_counts,
            send_len,
        ),
        (
            "all-to-all receive counts (one per rank)",
            recv_counts,
            recv_len,
        ),
    ] {
        crate::check_len(what, world, counts.len())?;
        crate::check_len(what, len, counts.iter().sum())?;
    }
    Ok(())
}

/// `src` and `dst` lie in a buffer of `len` elements, do not overlap, and `src` is twice `dst`
/// ([`Transport::pair_reduce_scatter_within`]'s arguments).
///
/// # Errors
/// `InvalidRange` for a range outside the buffer, `LengthMismatch` unless `src` is twice
/// `dst`, `IndexOutOfRange` when they overlap.
pub fn check_within(len: usize, src: &Range<usize>, dst: &Range<usize>) -> Result<()> {
    for r in [src, dst] {
        wavekit_core::view::check_range(r, len)?;
    }
    crate::check_len(
        "pair reduce-scatter input (2 × output)",
        2 * dst.len(),
        src.len(),
    )?;
    if src.start < dst.end && dst.start < src.end {
        return Err(WavekitError::IndexOutOfRange {
            what: "pair reduce-scatter output start (overlaps the input range)",
            value: dst.start as u64,
            limit: src.end as u64,
        });
    }
    Ok(())
}
