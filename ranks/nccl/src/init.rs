//! Making a transport: the two launch modes (all ranks' communicators made by this process,
//! or this process one rank of a launch) and, for a launch on one host, the board in a shared
//! file the ranks use for their host-side agreements.

use super::board::Board;
use super::ffi::{Comm, SendComm};
use super::file_board::FileBoard;
use super::library::Library;
use super::watchdog::Watchdog;
use super::{DEFAULT_TIMEOUT, HostBoard, Launch, NcclTransport, UniqueId, Vendor, peer, unique_id};
use std::ffi::c_int;
use std::hash::{Hash, Hasher};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use wavekit_core::{Result, WavekitError};
use wavekit_gpu::{GpuBackend, GpuRuntime};

impl<R: GpuRuntime> NcclTransport<R> {
    /// Launch mode 1: one communicator over several GPUs of this process, one backend per
    /// rank (rank i = `backends[i]`). Move each transport into its own thread.
    pub fn init_all(vendor: Vendor, backends: Vec<GpuBackend<R>>) -> Result<Vec<Self>> {
        let lib = Library::get(vendor)?;
        let n = backends.len();
        let devs: Vec<c_int> = backends
            .iter()
            .map(|b| b.runtime().ordinal() as c_int)
            .collect();
        let mut comms: Vec<Comm> = vec![std::ptr::null_mut(); n];
        // SAFETY: `comms` has room for n communicators, `devs` holds n device ordinals.
        let code = unsafe { (lib.comm_init_all)(comms.as_mut_ptr(), n as c_int, devs.as_ptr()) };
        lib.check(code, "ncclCommInitAll", None)?;
        let board = Board::new(n);
        Ok(backends
            .into_iter()
            .zip(comms)
            .enumerate()
            .map(|(rank, (backend, comm))| NcclTransport {
                lib,
                backend,
                comm: SendComm(comm),
                rank,
                world: n,
                timeout: DEFAULT_TIMEOUT,
                pairs: Mutex::new(None),
                watchdog: Watchdog::start(lib),
                queued: AtomicBool::new(false),
                board: Some(HostBoard::Threads(Arc::clone(&board))),
                peer: Mutex::new(peer::State::Untried),
                peer_config: peer::Config::default(),
            })
            .collect())
    }

    /// Launch mode 2: this process is `launch.rank` of `launch.world`, on `backend` (usually
    /// the GPU `launch.local_rank`); rank 0 makes the unique id and shares it as `launch` says.
    /// Fails with `RankLost` if the others do not join within `timeout`.
    pub fn from_launch(
        vendor: Vendor,
        backend: GpuBackend<R>,
        launch: &Launch,
        timeout: Duration,
    ) -> Result<Self> {
        let lib = Library::get(vendor)?;
        let id = launch.share_id(|| unique_id(vendor), timeout)?;
        // ncclCommInitRank blocks until every rank has joined, on the GPU current on the
        // calling thread: run it, with the backend, on a thread we can stop waiting for (it is
        // left behind only when a rank never comes).
        let (tx, rx) = std::sync::mpsc::channel();
        let (rank, world) = (launch.rank as c_int, launch.world as c_int);
        std::thread::spawn(move || {
            let mut comm: Comm = std::ptr::null_mut();
            let code = backend.runtime().make_current().map(|()| {
                // SAFETY: writes one communicator; `id` is the shared unique id.
                unsafe { (lib.comm_init_rank)(&mut comm, world, id, rank) }
            });
            let _ = tx.send((code, SendComm(comm), backend));
        });
        let (code, comm, backend) =
            rx.recv_timeout(timeout)
                .map_err(|_| WavekitError::RankLost {
                    peer: None,
                    reason: format!(
                        "ncclCommInitRank: not every rank of {world} joined within {} s",
                        timeout.as_secs()
                    ),
                })?;
        lib.check(code?, "ncclCommInitRank", None)?;
        let mut t = NcclTransport {
            lib,
            backend,
            comm,
            rank: launch.rank,
            world: launch.world,
            timeout,
            pairs: Mutex::new(None),
            watchdog: Watchdog::start(lib),
            queued: AtomicBool::new(false),
            board: None,
            peer: Mutex::new(peer::State::Untried),
            peer_config: peer::Config::default(),
        };
        t.board = t.file_board(&id)?.map(HostBoard::Files);
        Ok(t)
    }

    /// A board in a shared file when every rank runs on this host and every rank could open
    /// it; `None` otherwise (the device path). Two tiny allgathers decide, so all ranks agree.
    fn file_board(&self, id: &UniqueId) -> Result<Option<FileBoard>> {
        if self.world < 2 {
            return Ok(None);
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for f in [
            "/proc/sys/kernel/hostname",
            "/proc/sys/kernel/random/boot_id",
        ] {
            std::fs::read(f).ok().hash(&mut h);
        }
        let host = h.finish();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        id.internal.hash(&mut h);
        let path = FileBoard::path_for(h.finish());
        // Rank 0 makes the file before the first allgather, which the others open after.
        let made = if self.rank == 0 {
            FileBoard::create(path.clone(), self.world).ok()
        } else {
            None
        };
        let words = self.gather_words(&[host, u64::from(made.is_some())])?;
        let same_host = words.chunks(2).all(|w| w[0] == host);
        if !same_host || words[1] == 0 {
            return Ok(None);
        }
        let board = match made {
            Some(b) => Some(b),
            None => FileBoard::open(path, self.rank, self.world).ok(),
        };
        let opened = self.gather_words(&[u64::from(board.is_some())])?;
        Ok(if opened.iter().all(|&o| o == 1) {
            board
        } else {
            None
        })
    }
}
