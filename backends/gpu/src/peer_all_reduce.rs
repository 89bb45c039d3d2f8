//! The reproducible allreduce of the GPUs of one node in one kernel a rank, each GPU reading the
//! others' buffers directly (the `peer_all_reduce` launcher, csrc/kernels/peer_all_reduce.cu):
//! wavekit-nccl's transport takes it when its ranks share a process and every GPU can
//! address every other's memory. The ranks meet inside the kernel (flag words on each GPU), so
//! a call costs one launch a rank and no host round trip.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::ffi::{self, kind};
use super::queue::Reports;
use super::runtime::GpuRuntime;
use std::time::Duration;
use wavekit_core::api::check_len;
use wavekit_core::element::{ElemKind, Element};
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::{Backend, ReduceOp};

/// The most ranks one [`GpuBackend::peer_all_reduce`] joins.
pub const MAX_PEERS: usize = ffi::MAX_PEERS as usize;

/// Words of the flag buffer each rank of a [`GpuBackend::peer_all_reduce`] keeps.
pub const PEER_FLAG_WORDS: usize = ffi::PEER_FLAG_WORDS as usize;

/// One call of [`GpuBackend::peer_all_reduce`] as every rank makes it: the device addresses of
/// every rank's buffers, in rank order, and what the ranks agreed on.
///
/// Ranks that share a process list their own send and recv buffers. Ranks in separate
/// processes, which can only map memory exported to them (CUDA IPC), each list one staging
/// buffer of at least `n` elements as both its send and its recv: the kernel copies its own
/// send into it and its folded share out of it, so the caller's buffers need not be mapped.
/// A staged call returns without waiting for the slowest peer (nothing of the caller's is read
/// by the others), so a peer may still read a rank's staging buffer while the next call runs:
/// consecutive staged calls alternate between two staging buffers a rank.
#[derive(Clone, Debug)]
pub struct PeerCall {
    /// This rank's index into the address lists.
    pub rank: usize,
    /// Every rank's send buffer (`n` elements), or its staging buffer.
    pub sends: Vec<u64>,
    /// Every rank's recv buffer (`n` elements), or its staging buffer (then equal to `sends`).
    pub recvs: Vec<u64>,
    /// Every rank's flag buffer ([`GpuBackend::peer_flags`]).
    pub flags: Vec<u64>,
    /// 1 on the first call over these flag buffers, one more on each later one.
    pub epoch: u64,
    /// Every rank folds the whole vector (fewer rendezvous, more reads: small vectors) instead
    /// of its share before copying the others' shares.
    pub one_shot: bool,
    /// How long a rank waits inside the kernel for the others.
    pub timeout: Duration,
}

impl<R: GpuRuntime> GpuBackend<R> {
    /// A zeroed flag buffer of [`PEER_FLAG_WORDS`] words for [`Self::peer_all_reduce`]: each
    /// rank makes one and keeps it for every call with the same peers.
    ///
    /// # Errors
    /// `OutOfMemory`, `Device`.
    pub fn peer_flags(&self) -> Result<GpuBuffer<u64, R>> {
        self.upload(&vec![0u64; PEER_FLAG_WORDS])
    }

    /// Waits until no peer reads this rank's buffers any more: every word of `flags` (this
    /// rank's, [`Self::peer_flags`]) shows a finished call (each call of each rank leaves
    /// `3 * epoch` in the words it wrote last). `Ok(false)` when that did not happen within
    /// `timeout` (a peer that died inside a call): then a staging buffer is better leaked than
    /// freed. Before freeing the buffers of staged calls, which return without waiting for the
    /// slowest peer.
    ///
    /// # Errors
    /// `Device` (a failed copy).
    pub fn peer_quiet(&self, flags: &GpuBuffer<u64, R>, timeout: Duration) -> Result<bool> {
        let start = std::time::Instant::now();
        loop {
            if self.download(flags)?.iter().all(|w| w % 3 == 0) {
                return Ok(true);
            }
            if start.elapsed() >= timeout {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    /// `recv` = the reproducible allreduce of every rank's `send` (docs/SEMANTICS.md
    /// "dist_all_reduce": element i is the canonical butterfly over the ranks' values in rank
    /// order), queued on the stream; the kernel reads the other GPUs' buffers through peer
    /// access ([`GpuRuntime::enable_peer_access`]) or mapped from another process
    /// ([`GpuRuntime::ipc_open`]). Every rank calls it with the same `call` but for `rank`: its
    /// own buffers at `call.sends[rank]` and `call.recvs[rank]`, or one staging buffer at both
    /// ([`PeerCall`]).
    /// A rank that does not arrive within `call.timeout` turns into a `Device` error at the
    /// next synchronisation of this backend.
    ///
    /// # Safety
    /// Every address in `call` is a live buffer of `send.len()` elements of `T` (flags:
    /// [`PEER_FLAG_WORDS`] words, zeroed before the first call) on a GPU whose memory this one
    /// can address, 16-byte aligned or aligned for `T`; a staging buffer is used by nothing
    /// else from this call until every rank has launched the call after the next one (staged
    /// calls alternate two staging buffers); every rank launches this call with the same op, length,
    /// epoch, mode and form (all staged or none), and no one else writes the buffers until every
    /// rank's launch is done.
    ///
    /// # Errors
    /// `UnsupportedOp`, `UnsupportedType` (16-bit floats), `LengthMismatch` between `send`,
    /// `recv` and the address lists, `IndexOutOfRange` for more than [`MAX_PEERS`] ranks, a
    /// rank past them, epoch 0, or this rank's addresses being neither `send` and `recv` nor
    /// one staging buffer apart from both;
    /// `ForeignBuffer`, `Device`. Nothing is queued on error.
    pub unsafe fn peer_all_reduce<T: Element>(
        &self,
        send: &GpuBuffer<T, R>,
        recv: &mut GpuBuffer<T, R>,
        op: ReduceOp,
        call: &PeerCall,
    ) -> Result<()> {
        op.check::<T>()?;
        if matches!(T::KIND, ElemKind::F16 | ElemKind::BF16) {
            return Err(WavekitError::UnsupportedType {
                collective: "peer_all_reduce",
                elem: T::KIND.name(),
            });
        }
        check_len("allreduce output", send.len, recv.len)?;
        let ranks = call.sends.len();
        check_len("recv addresses (one a rank)", ranks, call.recvs.len())?;
        check_len("flag addresses (one a rank)", ranks, call.flags.len())?;
        let bad = |what, value: usize, limit: usize| {
            Err(WavekitError::IndexOutOfRange {
                what,
                value: value as u64,
                limit: limit as u64,
            })
        };
        if ranks == 0 || ranks > MAX_PEERS {
            return bad("peer_all_reduce ranks", ranks, MAX_PEERS + 1);
        }
        if call.rank >= ranks {
            return bad("peer_all_reduce rank", call.rank, ranks);
        }
        if call.epoch == 0 {
            return bad("peer_all_reduce epoch (from 1)", 0, 1);
        }
        let (mine_send, mine_recv) = (call.sends[call.rank], call.recvs[call.rank]);
        let direct = mine_send == send.device_ptr() && mine_recv == recv.device_ptr();
        let staged = mine_send == mine_recv
            && mine_send != send.device_ptr()
            && mine_send != recv.device_ptr();
        if !(direct || staged) {
            return bad(
                "peer_all_reduce: this rank's own addresses",
                call.rank,
                ranks,
            );
        }
        self.own(send)?;
        self.own(recv)?;
        let peers: Vec<u64> = [&call.sends, &call.recvs, &call.flags]
            .into_iter()
            .flatten()
            .copied()
            .chain([send.device_ptr(), recv.device_ptr()])
            .collect();
        let timeout = u64::try_from(call.timeout.as_nanos()).unwrap_or(u64::MAX);
        let mut work = self.lock();
        self.launch(&mut work, "peer_all_reduce", Reports::Errors, |k, _| {
            // SAFETY: every address in `peers` is a live buffer of `send.len` elements on a
            // reachable GPU (flags: PEER_FLAG_WORDS words), unused by anyone else until every
            // rank's launch is done: this function's contract, which the caller took on; this
            // rank's own two are `send` and `recv` (lengths checked equal above) or one staging
            // buffer apart from both (checked above).
            unsafe {
                k.peer_all_reduce(
                    kind::<T>(),
                    op as u32,
                    &peers,
                    ranks as u32,
                    call.rank as u32,
                    send.len as u64,
                    call.epoch,
                    u32::from(call.one_shot),
                    timeout,
                )
            }
        })
    }
}
