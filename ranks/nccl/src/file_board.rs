//! Small exchanges between the processes of one host (launch mode 2 with every rank on the
//! same machine, as `scripts/launch-local.sh` and a one-node torchrun start them) through a
//! shared file in memory (`/dev/shm`): what [`super::board::Board`] is for the threads of one
//! process. Over NCCL each handshake is an upload, an allgather and a download, three waits for
//! the stream that cost more than a small allreduce; reads and writes of a tmpfs page take a
//! few microseconds.
//!
//! Layout: one region a rank, two buffers a region (rounds alternate between them), each a
//! round word and the payload. Round k (from 1) writes the payload, then k into the round
//! word; a reader that sees k there reads the payload. A rank can only write round k + 2 (the
//! same buffer as round k) after round k + 1 completed, which needs every other rank to have
//! finished reading round k: two buffers are enough, and no read is ever torn.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use wavekit_core::{Result, WavekitError};

/// Words a payload may hold; a larger exchange goes through the GPU (every rank passes the
/// same length, so every rank takes the same path).
pub(super) const MAX_WORDS: usize = 4096;
const BUFFER: u64 = 8 * (MAX_WORDS as u64 + 1);
const REGION: u64 = 2 * BUFFER;

pub(super) struct FileBoard {
    file: File,
    path: PathBuf,
    rank: usize,
    world: usize,
    /// Rounds this rank completed.
    round: Mutex<u64>,
    /// Rank 0 made the file and removes it.
    owner: bool,
}

fn io(what: &str, e: std::io::Error) -> WavekitError {
    WavekitError::RankLost {
        peer: None,
        reason: format!("the shared board ({what}): {e}"),
    }
}

impl FileBoard {
    /// The board of the job whose NCCL unique id hashes to `key`: rank 0 creates it (call
    /// [`FileBoard::create`] before any other rank opens), the others open it.
    pub(super) fn path_for(key: u64) -> PathBuf {
        let dir = PathBuf::from("/dev/shm");
        let dir = if dir.is_dir() {
            dir
        } else {
            std::env::temp_dir()
        };
        dir.join(format!("wavekit-board-{key:016x}"))
    }

    /// Rank 0's side: a fresh, zeroed file of `world` regions.
    pub(super) fn create(path: PathBuf, world: usize) -> Result<FileBoard> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .map_err(|e| io("create", e))?;
        file.set_len(REGION * world as u64)
            .map_err(|e| io("size", e))?;
        Ok(FileBoard::with(file, path, 0, world, true))
    }

    /// Another rank's side, once rank 0 has created the file.
    pub(super) fn open(path: PathBuf, rank: usize, world: usize) -> Result<FileBoard> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| io("open", e))?;
        Ok(FileBoard::with(file, path, rank, world, false))
    }

    fn with(file: File, path: PathBuf, rank: usize, world: usize, owner: bool) -> FileBoard {
        FileBoard {
            file,
            path,
            rank,
            world,
            round: Mutex::new(0),
            owner,
        }
    }

    fn buffer(rank: usize, round: u64) -> u64 {
        rank as u64 * REGION + (round % 2) * BUFFER
    }

    fn word(&self, at: u64) -> Result<u64> {
        let mut b = [0u8; 8];
        self.file
            .read_exact_at(&mut b, at)
            .map_err(|e| io("read", e))?;
        Ok(u64::from_le_bytes(b))
    }

    /// Every rank's `mine` (at most [`MAX_WORDS`], the same length on every rank), in rank
    /// order; `RankLost` when a rank has not posted within `timeout`.
    pub(super) fn exchange(&self, mine: &[u64], timeout: Duration) -> Result<Vec<u64>> {
        let len = mine.len();
        assert!(
            len <= MAX_WORDS,
            "the caller takes the GPU path past MAX_WORDS"
        );
        let mut round = self
            .round
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let k = *round + 1;
        let at = Self::buffer(self.rank, k);
        let payload: Vec<u8> = mine.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.file
            .write_all_at(&payload, at + 8)
            .map_err(|e| io("write", e))?;
        // Published last: a reader that sees round k finds the payload already there.
        self.file
            .write_all_at(&k.to_le_bytes(), at)
            .map_err(|e| io("write", e))?;

        let mut all = vec![0u64; len * self.world];
        all[self.rank * len..(self.rank + 1) * len].copy_from_slice(mine);
        let deadline = Instant::now() + timeout;
        let mut bytes = vec![0u8; 8 * len];
        for q in (0..self.world).filter(|&q| q != self.rank) {
            let at = Self::buffer(q, k);
            let mut spins = 0u32;
            loop {
                if self.word(at)? == k {
                    self.file
                        .read_exact_at(&mut bytes, at + 8)
                        .map_err(|e| io("read", e))?;
                    break;
                }
                if Instant::now() >= deadline {
                    return Err(WavekitError::RankLost {
                        peer: Some(q),
                        reason: format!(
                            "rank {q} of {} did not join an exchange within {} s",
                            self.world,
                            timeout.as_secs()
                        ),
                    });
                }
                // Spin while a peer is likely a few microseconds behind, then yield the core.
                spins += 1;
                if spins > 2000 {
                    std::thread::sleep(Duration::from_micros(50));
                } else {
                    std::hint::spin_loop();
                }
            }
            for (i, c) in bytes.chunks_exact(8).enumerate() {
                all[q * len + i] = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            }
        }
        *round = k;
        Ok(all)
    }
}

impl Drop for FileBoard {
    fn drop(&mut self) {
        if self.owner {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_with_their_own_file_handles_exchange_round_after_round() {
        let path = std::env::temp_dir().join(format!("wavekit-board-test-{}", std::process::id()));
        let world = 4;
        let owner = FileBoard::create(path.clone(), world).unwrap();
        let others: Vec<FileBoard> = (1..world)
            .map(|r| FileBoard::open(path.clone(), r, world).unwrap())
            .collect();
        let boards: Vec<&FileBoard> = std::iter::once(&owner).chain(&others).collect();
        let got: Vec<Vec<Vec<u64>>> = std::thread::scope(|s| {
            let hs: Vec<_> = boards
                .iter()
                .enumerate()
                .map(|(r, b)| {
                    s.spawn(move || {
                        (0..200u64)
                            .map(|round| {
                                // Lengths vary by round (the same on every rank), up to the cap.
                                let len = [8, 1, MAX_WORDS, 0][round as usize % 4];
                                let mine: Vec<u64> = (0..len as u64)
                                    .map(|i| r as u64 * 1_000_000 + round * 10_000 + i)
                                    .collect();
                                b.exchange(&mine, Duration::from_secs(20)).unwrap()
                            })
                            .collect()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for per_rank in &got {
            for (round, all) in per_rank.iter().enumerate() {
                let round = round as u64;
                let len = [8, 1, MAX_WORDS, 0][round as usize % 4];
                let want: Vec<u64> = (0..world as u64)
                    .flat_map(|r| (0..len as u64).map(move |i| r * 1_000_000 + round * 10_000 + i))
                    .collect();
                assert_eq!(all, &want, "round {round}");
            }
        }
        drop(others);
        drop(owner);
        assert!(!path.exists(), "rank 0 removes the board");
    }

    #[test]
    fn a_rank_that_never_posts_is_rank_lost_after_the_timeout() {
        let path = std::env::temp_dir().join(format!("wavekit-board-lost-{}", std::process::id()));
        let owner = FileBoard::create(path.clone(), 2).unwrap();
        let timeout = Duration::from_millis(200);
        let start = Instant::now();
        let e = owner
            .exchange(&[1, 2], timeout)
            .expect_err("rank 1 never posts");
        assert!(
            matches!(e, WavekitError::RankLost { peer: Some(1), .. }),
            "{e}"
        );
        assert!(start.elapsed() >= timeout);
    }
}
