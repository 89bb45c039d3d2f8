//! One long-lived watchdog thread per NCCL transport: armed around each call and its wait, it
//! aborts the communicators the wait depends on if the deadline passes (a rank that never
//! joined leaves NCCL's kernels spinning, so the wait would never end): the call's own, or
//! every communicator of the transport when one wait covers several queued calls. A thread per
//! call cost tens of microseconds on every collective; arming this one is a lock and a notify.

use super::ffi::SendComm;
use super::library::Library;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

#[derive(Default)]
struct State {
    /// The communicators of the wait in progress and when to give up on them.
    armed: Option<(Instant, Vec<SendComm>)>,
    /// The communicators it aborted (NCCL freed them: never aborted or destroyed again).
    fired: Vec<SendComm>,
    stop: bool,
}

pub(super) struct Watchdog {
    shared: Arc<(Mutex<State>, Condvar)>,
    thread: Option<JoinHandle<()>>,
}

impl Watchdog {
    /// Starts the thread.
    pub(super) fn start(lib: &'static Library) -> Watchdog {
        let shared = Arc::new((Mutex::new(State::default()), Condvar::new()));
        let theirs = Arc::clone(&shared);
        let thread = std::thread::spawn(move || {
            let (lock, wake) = &*theirs;
            let mut s = lock.lock().unwrap_or_else(PoisonError::into_inner);
            while !s.stop {
                s = match s.armed.as_ref().map(|a| a.0) {
                    None => wake.wait(s).unwrap_or_else(PoisonError::into_inner),
                    Some(deadline) => {
                        let now = Instant::now();
                        if now < deadline {
                            wake.wait_timeout(s, deadline - now)
                                .unwrap_or_else(PoisonError::into_inner)
                                .0
                        } else {
                            let comms = s.armed.take().map(|a| a.1).unwrap_or_default();
                            for c in &comms {
                                // SAFETY: aborting from another thread is what ncclCommAbort
                                // is for; the owner sees `fired` and never uses these
                                // communicators again (its Drop destroys the others).
                                unsafe { (lib.comm_abort)(c.0) };
                            }
                            s.fired.extend(comms);
                            s
                        }
                    }
                };
            }
        });
        Watchdog {
            shared,
            thread: Some(thread),
        }
    }

    /// Runs `wait` with the watchdog armed for `comms` and `timeout`.
    pub(super) fn guard<T>(
        &self,
        comms: Vec<SendComm>,
        timeout: Duration,
        wait: impl FnOnce() -> T,
    ) -> T {
        self.set(Some((Instant::now() + timeout, comms)));
        let out = wait();
        self.set(None);
        out
    }

    /// Aborts `comms` now (those not aborted already), as if a wait on them had timed out:
    /// for a rank lost outside any NCCL call (the ranks of one process meet on a host board).
    pub(super) fn abort_now(&self, lib: &Library, comms: Vec<SendComm>) {
        let (lock, _) = &*self.shared;
        let mut s = lock.lock().unwrap_or_else(PoisonError::into_inner);
        for c in comms {
            if !s.fired.iter().any(|f| f.0 == c.0) {
                // SAFETY: as the watchdog thread's abort; no call of this rank is in flight.
                unsafe { (lib.comm_abort)(c.0) };
                s.fired.push(c);
            }
        }
    }

    /// The communicators this watchdog aborted (none: empty).
    pub(super) fn fired(&self) -> Vec<SendComm> {
        let (lock, _) = &*self.shared;
        lock.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .fired
            .clone()
    }

    fn set(&self, armed: Option<(Instant, Vec<SendComm>)>) {
        let (lock, wake) = &*self.shared;
        lock.lock().unwrap_or_else(PoisonError::into_inner).armed = armed;
        wake.notify_one();
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        let (lock, wake) = &*self.shared;
        lock.lock().unwrap_or_else(PoisonError::into_inner).stop = true;
        wake.notify_one();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
