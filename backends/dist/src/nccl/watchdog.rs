//! One long-lived watchdog thread per NCCL transport: armed around each call and its wait, it
//! aborts the communicator of the call if the deadline passes (a rank that never joined leaves
//! NCCL's kernels spinning, so the wait would never end). A thread per call cost tens of
//! microseconds on every collective; arming this one is a lock and a notify.

use super::ffi::SendComm;
use super::library::Library;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

#[derive(Default)]
struct State {
    /// The communicator of the call being waited for and when to give up on it.
    armed: Option<(Instant, SendComm)>,
    /// The communicator it aborted (NCCL freed it: it must not be aborted or destroyed again).
    fired: Option<SendComm>,
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
                s = match s.armed {
                    None => wake.wait(s).unwrap_or_else(PoisonError::into_inner),
                    Some((deadline, comm)) => {
                        let now = Instant::now();
                        if now < deadline {
                            wake.wait_timeout(s, deadline - now)
                                .unwrap_or_else(PoisonError::into_inner)
                                .0
                        } else {
                            // SAFETY: aborting from another thread is what ncclCommAbort is
                            // for; the owner sees `fired` and never uses the communicator
                            // again (its Drop aborts the rest).
                            unsafe { (lib.comm_abort)(comm.0) };
                            s.armed = None;
                            s.fired = Some(comm);
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

    /// Runs `wait` with the watchdog armed for `comm` and `timeout`.
    pub(super) fn guard<T>(
        &self,
        comm: SendComm,
        timeout: Duration,
        wait: impl FnOnce() -> T,
    ) -> T {
        self.set(Some((Instant::now() + timeout, comm)));
        let out = wait();
        self.set(None);
        out
    }

    /// The communicator this watchdog aborted, if any.
    pub(super) fn fired(&self) -> Option<SendComm> {
        let (lock, _) = &*self.shared;
        lock.lock().unwrap_or_else(PoisonError::into_inner).fired
    }

    fn set(&self, armed: Option<(Instant, SendComm)>) {
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
