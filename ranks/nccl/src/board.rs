//! Small exchanges between the ranks of one process (launch mode 1, `init_all`) through host
//! memory: the handshake that opens every collective, counts and partials. Over NCCL each such
//! exchange is an upload, an allgather and a download, three waits for the stream that cost
//! more than a small allreduce itself; the ranks' threads share memory, so a board and a
//! condition variable do it without the GPU. Process-per-GPU ranks have no shared memory and
//! keep the device path.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};
use wavekit_core::{Result, WavekitError};

/// One round at a time: each rank posts its words; the last to post publishes them all, in
/// rank order, and wakes the others.
pub(super) struct Board {
    world: usize,
    state: Mutex<State>,
    wake: Condvar,
    /// `State::round`, readable without the lock: a waiter spins on it for a while before it
    /// sleeps on `wake` (a condition variable's wake-up took about 10 us a handshake on 4
    /// GPUs, a third of NCCL's whole 1 MiB allreduce).
    rounds: AtomicU64,
}

/// How long a waiter spins before it sleeps: the ranks of one collective usually post within
/// a few microseconds of each other.
const SPIN: Duration = Duration::from_micros(200);

struct State {
    /// Rounds completed.
    round: u64,
    posted: Vec<Option<Vec<u64>>>,
    /// The last completed round's words, which its waiters take.
    last: Arc<Vec<u64>>,
    /// Set when a rank waited past the timeout: the process's ranks no longer agree on which
    /// round is which, so every later exchange fails at once (as an aborted communicator).
    broken: Option<String>,
}

impl Board {
    pub(super) fn new(world: usize) -> Arc<Board> {
        Arc::new(Board {
            world,
            state: Mutex::new(State {
                round: 0,
                posted: vec![None; world],
                last: Arc::new(Vec::new()),
                broken: None,
            }),
            wake: Condvar::new(),
            rounds: AtomicU64::new(0),
        })
    }

    /// Every rank's `mine` (the same length on every rank) in rank order.
    pub(super) fn exchange(
        &self,
        rank: usize,
        mine: &[u64],
        timeout: Duration,
    ) -> Result<Vec<u64>> {
        let lost = |reason: String| WavekitError::RankLost { peer: None, reason };
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(why) = &s.broken {
            return Err(lost(why.clone()));
        }
        let round = s.round;
        s.posted[rank] = Some(mine.to_vec());
        if s.posted.iter().all(Option::is_some) {
            let all: Vec<u64> = s
                .posted
                .iter_mut()
                .flat_map(|p| p.take().unwrap_or_default())
                .collect();
            s.last = Arc::new(all);
            s.round += 1;
            self.rounds.store(s.round, Ordering::Release);
            self.wake.notify_all();
            return Ok(s.last.to_vec());
        }
        drop(s);
        let start = Instant::now();
        let mut spins = 0u32;
        while self.rounds.load(Ordering::Acquire) == round {
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(64) && start.elapsed() >= SPIN.min(timeout) {
                break;
            }
            std::hint::spin_loop();
        }
        // The round's words (or the board broken) are read under the lock either way.
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let deadline = start + timeout;
        while s.round == round && s.broken.is_none() {
            let now = Instant::now();
            if now >= deadline {
                let missing: Vec<usize> =
                    (0..self.world).filter(|&q| s.posted[q].is_none()).collect();
                let why = format!(
                    "ranks {missing:?} of {} did not join an exchange within {} s",
                    self.world,
                    timeout.as_secs()
                );
                s.broken = Some(why.clone());
                self.wake.notify_all();
                return Err(lost(why));
            }
            s = self
                .wake
                .wait_timeout(s, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        match &s.broken {
            Some(why) if s.round == round => Err(lost(why.clone())),
            _ => Ok(s.last.to_vec()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rank_gets_every_ranks_words_in_rank_order_round_after_round() {
        let board = Board::new(3);
        let got: Vec<Vec<Vec<u64>>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..3u64)
                .map(|r| {
                    let board = &board;
                    s.spawn(move || {
                        (0..50u64)
                            .map(|round| {
                                let mine = [r, round, r * 100 + round];
                                board
                                    .exchange(r as usize, &mine, Duration::from_secs(10))
                                    .unwrap()
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
                let want: Vec<u64> = (0..3u64)
                    .flat_map(|r| [r, round, r * 100 + round])
                    .collect();
                assert_eq!(all, &want, "round {round}");
            }
        }
    }

    #[test]
    fn a_rank_that_never_posts_is_rank_lost_then_every_exchange_fails_at_once() {
        let board = Board::new(3);
        let timeout = Duration::from_millis(200);
        let start = Instant::now();
        std::thread::scope(|s| {
            for r in 0..2 {
                let board = &board;
                s.spawn(move || {
                    let e = board
                        .exchange(r, &[1], timeout)
                        .expect_err("rank 2 never posts");
                    assert!(matches!(e, WavekitError::RankLost { .. }), "{e}");
                });
            }
        });
        assert!(start.elapsed() >= timeout);
        let again = Instant::now();
        let e = board.exchange(2, &[1], timeout).expect_err("broken board");
        assert!(e.to_string().contains("[2]"), "{e}");
        assert!(again.elapsed() < timeout, "a later exchange waited again");
    }
}
