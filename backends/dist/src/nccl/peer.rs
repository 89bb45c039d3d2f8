//! The reproducible allreduce of ranks that share a process (`init_all`) as one kernel a rank
//! reading the other GPUs' buffers through peer access (`GpuBackend::peer_all_reduce`), instead
//! of an NCCL all-to-all, a fold and an NCCL allgather: the same bits (both are the canonical
//! butterfly over the ranks, element by element) with no NCCL call and one launch.
//!
//! Set up on the first call that can take it: every rank enables peer access to every other
//! rank's GPU and makes a flag buffer, and the ranks exchange the flag buffers' addresses over
//! the host board; if any rank cannot (no peer path between two of the GPUs, peer kernels
//! turned off on one rank), every rank keeps the NCCL path for good. Each call's handshake
//! carries the two buffers' addresses (`Transport::fused_words`), then each rank launches.

use super::NcclTransport;
use crate::transport::Transport;
use std::sync::{MutexGuard, PoisonError};
use std::time::Instant;
use wavekit_core::{Backend, DeviceBuffer, Element, ReduceOp, Result, WavekitError};
use wavekit_gpu::{GpuBuffer, GpuRuntime, MAX_PEERS, PeerCall};

/// Vectors of at most this many bytes take the one-shot kernel (every rank folds all of it:
/// fewer rendezvous), longer ones the two-shot (each rank folds its share, then copies the
/// others'). Measured on 4 x H100 (docs/dist.md).
pub const ONE_SHOT_MAX_BYTES: usize = 256 << 10;

/// Past this many bytes a world of 3 or more ranks composes the allreduce from NCCL calls: on
/// 4 x H100 the kernel's links run at about 220 GB/s of bus bandwidth where NCCL reaches 350,
/// and it wins only up to 16 MiB (docs/dist.md). Two ranks take the kernel at every size.
pub const PEER_MAX_BYTES: usize = 32 << 20;

/// Where a transport stands with the peer kernel.
pub(super) enum State<R: GpuRuntime> {
    /// Not tried yet.
    Untried,
    /// Some rank cannot: the NCCL path, on every rank.
    Off,
    /// Every rank can: this rank's flag buffer (only held: the kernels of every rank write into
    /// it), every rank's flag address, the last epoch, and the size limits every rank agreed.
    On {
        _flags: GpuBuffer<u64, R>,
        all_flags: Vec<u64>,
        epoch: u64,
        limits: Limits,
    },
    /// A call timed out inside the kernel: the ranks' epochs may differ, so every later call
    /// fails.
    Broken,
}

/// What the caller set (`with_peer_kernels`, `with_one_shot_max`, `with_peer_max`); the
/// ranks agree on it in the setup.
#[derive(Clone, Copy, Debug)]
pub(super) struct Config {
    pub(super) enabled: bool,
    pub(super) one_shot_max: usize,
    /// `None`: [`PEER_MAX_BYTES`] from 3 ranks, no limit for 2.
    pub(super) max_bytes: Option<usize>,
}

/// The byte limits of one transport, resolved for its world size: one-shot up to
/// `one_shot_max`, the kernel at all up to `max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Limits {
    one_shot_max: u64,
    max: u64,
}

impl Config {
    fn limits(&self, world: usize) -> Limits {
        let max = self.max_bytes.unwrap_or(if world == 2 {
            usize::MAX
        } else {
            PEER_MAX_BYTES
        });
        Limits {
            one_shot_max: self.one_shot_max as u64,
            max: max as u64,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            enabled: true,
            one_shot_max: ONE_SHOT_MAX_BYTES,
            max_bytes: None,
        }
    }
}

impl<R: GpuRuntime> NcclTransport<R> {
    /// Whether ranks of one process use the peer kernel for the reproducible allreduce (on by
    /// default where every pair of their GPUs has peer access; every rank must say the same,
    /// or none uses it). Off: the NCCL all-to-all, fold and allgather, with the same bits.
    pub fn with_peer_kernels(mut self, on: bool) -> Self {
        self.peer_config.enabled = on;
        self
    }

    /// Vectors up to `bytes` take the peer kernel's one-shot form (default
    /// [`ONE_SHOT_MAX_BYTES`]); ranks that set it differently all keep the NCCL path. The bits
    /// do not depend on it.
    pub fn with_one_shot_max(mut self, bytes: usize) -> Self {
        self.peer_config.one_shot_max = bytes;
        self
    }

    /// Vectors past `bytes` take the NCCL path even where the peer kernel could run (default:
    /// [`PEER_MAX_BYTES`] for 3 or more ranks, no limit for 2); ranks that set it differently
    /// all keep the NCCL path.
    pub fn with_peer_max(mut self, bytes: usize) -> Self {
        self.peer_config.max_bytes = Some(bytes);
        self
    }

    fn peer_state(&self) -> MutexGuard<'_, State<R>> {
        self.peer.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `Some` when the peer kernel ran (or failed); `None`: take the NCCL path. Every rank
    /// returns the same kind of answer for the same call.
    pub(super) fn peer_all_reduce<T: Element>(
        &self,
        send: &GpuBuffer<T, R>,
        recv: &mut GpuBuffer<T, R>,
        op: ReduceOp,
        addrs: &[[u64; 2]],
    ) -> Option<Result<()>> {
        // Only what every rank sees alike decides before the setup; the size limits, which the
        // caller sets per rank, are agreed there.
        if !self.shares_process() || self.world > MAX_PEERS || T::KIND.size() == 2 {
            return None;
        }
        let mut state = self.peer_state();
        if let State::Untried = *state {
            *state = match self.peer_setup() {
                Ok(s) => s,
                Err(e) => return Some(Err(e)),
            };
        }
        let (all_flags, epoch, limits) = match &mut *state {
            State::Untried | State::Off => return None,
            State::Broken => {
                return Some(Err(WavekitError::RankLost {
                    peer: None,
                    reason: "an earlier peer allreduce timed out; the ranks' kernels no longer \
                             meet"
                        .into(),
                }));
            }
            State::On {
                all_flags,
                epoch,
                limits,
                ..
            } => (all_flags, epoch, *limits),
        };
        let bytes = (send.len() * size_of::<T>()) as u64;
        if bytes > limits.max {
            return None;
        }
        *epoch += 1;
        let call = PeerCall {
            rank: self.rank,
            sends: addrs.iter().map(|a| a[0]).collect(),
            recvs: addrs.iter().map(|a| a[1]).collect(),
            flags: all_flags.clone(),
            epoch: *epoch,
            one_shot: bytes <= limits.one_shot_max,
            timeout: self.timeout,
        };
        // SAFETY: the handshake made every rank pass equal lengths, op and type for this call
        // and carried every rank's own buffers, which live until its call returns; the
        // kernel's last rendezvous keeps every rank in it until no peer reads its buffers.
        let launched = unsafe { self.backend.peer_all_reduce(send, recv, op, &call) };
        // Waiting for the stream alone leaves the kernel's status word to the backend's next
        // read (a device-to-host copy a call saved): only a wait as long as the timeout can
        // have timed out, and then it is read now.
        let start = Instant::now();
        let mut done = launched.and_then(|()| self.backend.runtime().synchronize());
        if done.is_ok() && start.elapsed() >= self.timeout {
            done = self.backend.synchronize();
        }
        if done.is_err() {
            *state = State::Broken;
        }
        Some(done)
    }

    /// Peer access to every rank's GPU and a flag buffer, agreed by all ranks: `On` only when
    /// every rank managed both and set the same limits (ranks deciding differently for one
    /// call would wait for each other until the timeout). A rank that fails at either says so
    /// in the exchange (an error returned before it would leave the others waiting).
    fn peer_setup(&self) -> Result<State<R>> {
        let ordinal = self.backend.runtime().ordinal() as u64;
        let ordinals = self.exchange_words(&[ordinal])?;
        let rt = self.backend.runtime();
        // Ranks sharing a GPU would need their kernels resident together, which nothing
        // promises (NCCL refuses such a communicator anyway).
        let mut distinct = ordinals.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let ok = self.peer_config.enabled
            && distinct.len() == ordinals.len()
            && ordinals
                .iter()
                .all(|&p| rt.enable_peer_access(p as usize).unwrap_or(false));
        let flags = if ok {
            self.backend.peer_flags().ok()
        } else {
            None
        };
        let limits = self.peer_config.limits(self.world);
        let mine = [
            u64::from(flags.is_some()),
            flags.as_ref().map_or(0, |f| f.device_ptr()),
            limits.one_shot_max,
            limits.max,
        ];
        let all = self.exchange_words(&mine)?;
        let ranks: Vec<&[u64]> = all.chunks(mine.len()).collect();
        let agreed = ranks.iter().all(|w| w[0] == 1 && w[2..] == mine[2..]);
        match flags {
            Some(flags) if agreed => Ok(State::On {
                _flags: flags,
                all_flags: ranks.iter().map(|w| w[1]).collect(),
                epoch: 0,
                limits,
            }),
            _ => Ok(State::Off),
        }
    }

    fn exchange_words(&self, mine: &[u64]) -> Result<Vec<u64>> {
        self.exchange_host(mine).unwrap_or_else(|| {
            Err(WavekitError::RankLost {
                peer: None,
                reason: "the peer kernel's setup needs the ranks' host board".into(),
            })
        })
    }
}
