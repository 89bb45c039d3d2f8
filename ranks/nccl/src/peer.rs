//! The reproducible allreduce of the ranks of one host as one kernel a rank reading the other
//! GPUs' memory (`GpuBackend::peer_all_reduce`), instead of an NCCL all-to-all, a fold and an
//! NCCL allgather: the same bits (both are the canonical butterfly over the ranks, element by
//! element) with no NCCL call and one launch.
//!
//! Set up on the first call that can take it, over the host board. Ranks sharing a process
//! (`init_all`) enable peer access to every other rank's GPU, make a flag buffer and exchange
//! its address; each call's handshake then carries the two buffers' addresses
//! (`Transport::fused_words`) and the kernels read the callers' buffers. Ranks in separate
//! processes of one host (`from_launch` with a file board) each make a flag buffer and a
//! staging buffer, export both (CUDA IPC) and map the others'; the kernel then stages its send
//! and publishes its share there. If any rank cannot (no peer path, no IPC, peer kernels turned
//! off on one rank), every rank keeps the NCCL path for good.

use super::NcclTransport;
use std::sync::{MutexGuard, PoisonError};
use std::time::Instant;
use wavekit_core::{Backend, DeviceBuffer, Element, ReduceOp, Result, WavekitError};
use wavekit_dist::Transport;
use wavekit_gpu::{GpuBuffer, GpuRuntime, IpcHandle, MAX_PEERS, PeerCall, PeerMapping};

/// From 3 ranks, vectors of at most this many bytes take the one-shot kernel (every rank folds
/// all of it: fewer rendezvous), longer ones the two-shot (each rank folds its share, then
/// copies the others'). Two ranks take the one-shot at every size: there the two-shot moves as
/// many bytes over the link (half the vector in each of its two phases) and adds a rendezvous.
/// Measured on 4 x H100 (docs/dist.md).
pub const ONE_SHOT_MAX_BYTES: usize = 256 << 10;

/// Past this many bytes a world of 3 or more ranks composes the allreduce from NCCL calls: on
/// 4 x H100 the kernel's links run at about 220 GB/s of bus bandwidth where NCCL reaches 350,
/// and it wins only up to 16 MiB (docs/dist.md). Two ranks of one process take the kernel at
/// every size; ranks in separate processes up to this size, their staging buffers' size.
pub const PEER_MAX_BYTES: usize = 32 << 20;

/// Ranks in separate processes: every rank's staging buffer (two halves of the agreed limit) as
/// this process sees it, and what keeps them: the other ranks' flag and staging buffers mapped
/// here (dropped first) and this rank's staging buffer (freed once no peer reads it:
/// `peer_release`).
pub(super) struct Staging<R: GpuRuntime> {
    addrs: Vec<u64>,
    /// Bytes from a staging buffer's first half to its second.
    half: u64,
    _mapped: Vec<PeerMapping<R>>,
    _mine: GpuBuffer<u64, R>,
}

/// How long a dropped transport waits for its peers' last reads of its staging buffer (they
/// take microseconds unless a peer died).
const QUIET_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Where a transport stands with the peer kernel.
pub(super) enum State<R: GpuRuntime> {
    /// Not tried yet.
    Untried,
    /// Some rank cannot: the NCCL path, on every rank.
    Off,
    /// Every rank can: this rank's flag buffer (only held: the kernels of every rank write into
    /// it), every rank's flag address, the last epoch, the size limits every rank agreed, and
    /// the staging buffers of ranks in separate processes.
    On {
        _flags: GpuBuffer<u64, R>,
        all_flags: Vec<u64>,
        epoch: u64,
        limits: Limits,
        staging: Option<Box<Staging<R>>>,
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
    /// `None`: every size for 2 ranks, [`ONE_SHOT_MAX_BYTES`] from 3.
    pub(super) one_shot_max: Option<usize>,
    /// `None`: [`PEER_MAX_BYTES`] from 3 ranks or in separate processes, no limit for 2
    /// ranks of one process.
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
    /// `staged`: ranks in separate processes, whose staging buffers hold `max` bytes.
    fn limits(&self, world: usize, staged: bool) -> Limits {
        let max = self.max_bytes.unwrap_or(if world == 2 && !staged {
            usize::MAX
        } else {
            PEER_MAX_BYTES
        });
        let one_shot_max = self.one_shot_max.unwrap_or(if world == 2 {
            usize::MAX
        } else {
            ONE_SHOT_MAX_BYTES
        });
        Limits {
            one_shot_max: one_shot_max as u64,
            max: max as u64,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            enabled: true,
            one_shot_max: None,
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

    /// Vectors up to `bytes` take the peer kernel's one-shot form (default: every size for 2
    /// ranks, [`ONE_SHOT_MAX_BYTES`] from 3); ranks that set it differently all keep the NCCL
    /// path. The bits do not depend on it.
    pub fn with_one_shot_max(mut self, bytes: usize) -> Self {
        self.peer_config.one_shot_max = Some(bytes);
        self
    }

    /// Vectors past `bytes` take the NCCL path even where the peer kernel could run (default:
    /// [`PEER_MAX_BYTES`] for 3 or more ranks, no limit for 2 ranks of one process); ranks that
    /// set it differently all keep the NCCL path. Ranks in separate processes allocate a
    /// staging buffer of twice this many bytes on their GPU (default 64 MiB).
    pub fn with_peer_max(mut self, bytes: usize) -> Self {
        self.peer_config.max_bytes = Some(bytes);
        self
    }

    /// Whether the reproducible allreduce runs as the peer kernel: `false` until the first
    /// reproducible allreduce that could take it (the ranks set it up there), and for good
    /// where any rank cannot. Vectors past the size limit still take the NCCL path.
    pub fn peer_kernels_on(&self) -> bool {
        matches!(*self.peer_state(), State::On { .. })
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
        if self.board.is_none() || self.world > MAX_PEERS || T::KIND.size() == 2 {
            return None;
        }
        let mut state = self.peer_state();
        if let State::Untried = *state {
            *state = match self.peer_setup() {
                Ok(s) => s,
                Err(e) => return Some(Err(e)),
            };
        }
        let (all_flags, epoch, limits, staging) = match &mut *state {
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
                staging,
                ..
            } => (all_flags, epoch, *limits, staging.as_deref()),
        };
        let bytes = (send.len() * size_of::<T>()) as u64;
        if bytes > limits.max {
            return None;
        }
        *epoch += 1;
        let (sends, recvs) = match staging {
            // Calls alternate between the two halves (a staged kernel does not wait for the
            // slowest peer to finish reading its half).
            Some(s) => {
                let at: Vec<u64> = s.addrs.iter().map(|a| a + (*epoch % 2) * s.half).collect();
                (at.clone(), at)
            }
            None => (
                addrs.iter().map(|a| a[0]).collect(),
                addrs.iter().map(|a| a[1]).collect(),
            ),
        };
        let call = PeerCall {
            rank: self.rank,
            sends,
            recvs,
            flags: all_flags.clone(),
            epoch: *epoch,
            one_shot: bytes <= limits.one_shot_max,
            timeout: self.timeout,
        };
        // SAFETY: the handshake made every rank pass equal lengths, op and type for this call.
        // Direct: it carried every rank's own buffers, which live until its call returns, and
        // the kernel's last rendezvous keeps every rank in it until no peer reads them. Staged:
        // every rank's half of `limits.max` bytes for this epoch, mapped here until the
        // transport is dropped (which waits until no peer reads it), and written again only by
        // the call after next, which no rank starts before every peer finished this one.
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
            // Leaked, not freed: a late peer may still read or write these buffers.
            std::mem::forget(std::mem::replace(&mut *state, State::Broken));
        }
        Some(done)
    }

    /// Peer access to every rank's GPU and a flag buffer, agreed by all ranks: `On` only when
    /// every rank managed both and set the same limits (ranks deciding differently for one
    /// call would wait for each other until the timeout). A rank that fails at either says so
    /// in the exchange (an error returned before it would leave the others waiting).
    fn peer_setup(&self) -> Result<State<R>> {
        if !self.shares_process() {
            return self.staged_setup();
        }
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
        let limits = self.peer_config.limits(self.world, false);
        let addr = [flags.as_ref().map_or(0, |f| f.device_ptr())];
        match (self.agree(flags.is_some(), limits, &addr)?, flags) {
            (Some(ranks), Some(flags)) => Ok(State::On {
                _flags: flags,
                all_flags: ranks.iter().map(|w| w[0]).collect(),
                epoch: 0,
                limits,
                staging: None,
            }),
            _ => Ok(State::Off),
        }
    }

    /// Every rank's `extra` words (the same length on every rank) when every rank says `ok`
    /// and set the same `limits`; `None` otherwise, on every rank alike.
    fn agree(&self, ok: bool, limits: Limits, extra: &[u64]) -> Result<Option<Vec<Vec<u64>>>> {
        let mut mine = vec![u64::from(ok), limits.one_shot_max, limits.max];
        mine.extend(extra);
        let all = self.exchange_words(&mine)?;
        let ranks = all.chunks(mine.len());
        let agreed = ranks.clone().all(|w| w[0] == 1 && w[1..3] == mine[1..3]);
        Ok(agreed.then(|| ranks.map(|w| w[3..].to_vec()).collect()))
    }

    /// Ranks in separate processes of this host: a flag buffer and a staging buffer of twice
    /// `limits.max` bytes (calls alternate between its halves) each, exported, and the others'
    /// mapped; agreed as in [`Self::peer_setup`], then once more on whether every rank mapped
    /// every other's.
    fn staged_setup(&self) -> Result<State<R>> {
        const H: usize = IpcHandle::WORDS;
        let limits = self.peer_config.limits(self.world, true);
        // Calls alternate between the staging buffer's two halves.
        let half = limits.max.checked_next_multiple_of(256);
        let bufs = match half {
            Some(half) if self.peer_config.enabled => self.staged_buffers(half),
            _ => None,
        };
        let mut handles = vec![0; 2 * H];
        if let Some((_, _, f, s)) = &bufs {
            handles[..H].copy_from_slice(&f.to_words());
            handles[H..].copy_from_slice(&s.to_words());
        }
        let (Some(ranks), Some((flags, staging, ..)), Some(half)) =
            (self.agree(bufs.is_some(), limits, &handles)?, bufs, half)
        else {
            return Ok(State::Off);
        };
        let handle = |w: &[u64]| IpcHandle::from_words(w.try_into().expect("IpcHandle::WORDS"));
        let mut mapped = Vec::new();
        let mut addrs = [Vec::new(), Vec::new()];
        for (k, w) in ranks.iter().enumerate() {
            let own = [flags.device_ptr(), staging.device_ptr()];
            for (i, at) in [0, H].into_iter().enumerate() {
                if k == self.rank {
                    addrs[i].push(own[i]);
                    continue;
                }
                // SAFETY: rank k exported it in the exchange above and keeps it for as long as
                // its transport lives; this mapping goes with this one's state.
                match unsafe { self.backend.ipc_open(&handle(&w[at..at + H])) } {
                    Ok(m) => {
                        addrs[i].push(m.device_ptr());
                        mapped.push(m);
                    }
                    Err(_) => addrs[i].push(0),
                }
            }
        }
        let opened = addrs.iter().flatten().all(|&a| a != 0);
        let all_opened = self.exchange_words(&[u64::from(opened)])?;
        if all_opened.iter().any(|&o| o != 1) {
            return Ok(State::Off);
        }
        let [all_flags, staged] = addrs;
        Ok(State::On {
            _flags: flags,
            all_flags,
            epoch: 0,
            limits,
            staging: Some(Box::new(Staging {
                addrs: staged,
                half,
                _mapped: mapped,
                _mine: staging,
            })),
        })
    }

    /// This rank's flag and staging buffers (two halves of `half` bytes) and their handles, or
    /// `None` where it cannot.
    #[allow(clippy::type_complexity)]
    fn staged_buffers(
        &self,
        half: u64,
    ) -> Option<(GpuBuffer<u64, R>, GpuBuffer<u64, R>, IpcHandle, IpcHandle)> {
        let words = usize::try_from(half.checked_mul(2)? / 8).ok()?.max(1);
        let flags = self.backend.peer_flags().ok()?;
        let staging = self.backend.alloc::<u64>(words).ok()?;
        let f = self.backend.ipc_export(&flags).ok()??;
        let s = self.backend.ipc_export(&staging).ok()??;
        Some((flags, staging, f, s))
    }

    /// Before the transport goes: a staged call returns while a slower peer may still read this
    /// rank's staging buffer, so the buffers are freed only once every peer has said it is done
    /// (its last flag words); otherwise (a peer died inside a call) they are leaked, not freed
    /// under a reader.
    pub(super) fn peer_release(&mut self) {
        let state = self.peer.get_mut().unwrap_or_else(PoisonError::into_inner);
        let quiet = match state {
            State::On {
                _flags,
                staging: Some(_),
                ..
            } => self
                .backend
                .peer_quiet(_flags, QUIET_TIMEOUT.min(self.timeout))
                .unwrap_or(false),
            _ => true,
        };
        if !quiet {
            std::mem::forget(std::mem::replace(state, State::Off));
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

#[cfg(test)]
mod tests {
    use super::{Config, Limits, ONE_SHOT_MAX_BYTES, PEER_MAX_BYTES};

    fn limits(one_shot_max: u64, max: u64) -> Limits {
        Limits { one_shot_max, max }
    }

    #[test]
    fn two_ranks_take_the_one_shot_at_every_size_unless_told() {
        let d = Config::default();
        let (one, peer) = (ONE_SHOT_MAX_BYTES as u64, PEER_MAX_BYTES as u64);
        assert_eq!(d.limits(2, false), limits(u64::MAX, u64::MAX));
        assert_eq!(d.limits(2, true), limits(u64::MAX, peer));
        assert_eq!(d.limits(3, false), limits(one, peer));
        assert_eq!(d.limits(4, true), limits(one, peer));
        let set = Config {
            one_shot_max: Some(4096),
            max_bytes: Some(1 << 20),
            ..d
        };
        assert_eq!(set.limits(2, false), limits(4096, 1 << 20));
        assert_eq!(set.limits(8, true), limits(4096, 1 << 20));
    }
}
