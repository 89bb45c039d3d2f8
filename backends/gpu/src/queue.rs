//! The launches queued on a backend's stream and the status words their kernels report errors
//! into: [`GpuBackend::launch`] enqueues one launcher (lending it a [`Launch`]) and returns
//! without waiting; [`GpuBackend::flush`] reads the status words back, at a synchronisation or
//! a read, and turns the first error reported into the error of the launch that reported it.

use super::backend::GpuBackend;
use super::buffer::DeviceMem;
use super::ffi::{self, Status};
use super::launch::Launch;
use super::runtime::GpuRuntime;
use super::workspace::{Pools, Work};
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};

/// What a launch's kernels can report through the status word.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Reports {
    /// Nothing: the launcher does not pass the status word to its kernels.
    Nothing,
    /// Errors without an index (a launch planned for another warp width, ...).
    Errors,
    /// Also `WK_ERR_INDEX`: `what` at or past `limit`, the value in the detail's low 32 bits.
    Index { what: &'static str, limit: u64 },
}

/// Status words in the workspace. Each launch that can report an error, queued since the
/// statuses were last read, writes its own, so the error read back is the one of the launch
/// that reported it, whatever was queued around it; past this many, the launches share the
/// last one.
pub(crate) const STATUS_SLOTS: usize = 64;

/// Bytes of one status word.
const STATUS_BYTES: usize = std::mem::size_of::<Status>();

/// The launches that write one status slot: one launch, or (the last slot) every launch queued
/// once the others were taken.
struct Slot {
    launches: u64,
    first: &'static str,
    /// The index source when exactly one of the launches reports index errors.
    index: Option<(&'static str, u64)>,
    index_launches: u64,
}

impl Slot {
    fn new(call: &'static str) -> Slot {
        Slot {
            launches: 0,
            first: call,
            index: None,
            index_launches: 0,
        }
    }

    fn add(&mut self, reports: Reports) {
        self.launches += 1;
        if let Reports::Index { what, limit } = reports {
            self.index_launches += 1;
            self.index = Some((what, limit));
        }
    }

    /// The call an error is reported under: the slot's only launch, or the first of several.
    fn call(&self) -> String {
        match self.launches {
            1 => self.first.to_string(),
            2 => format!("{} or the launch queued after it", self.first),
            n => format!(
                "{} or one of the {} launches queued after it",
                self.first,
                n - 1
            ),
        }
    }
}

/// The launches queued since the status slots were last read that can have written them, in
/// launch order: slot i is the i-th such launch's.
#[derive(Default)]
pub(crate) struct Pending {
    slots: Vec<Slot>,
}

impl Pending {
    /// The slot the next launch writes.
    fn next(&self) -> usize {
        self.slots.len().min(STATUS_SLOTS - 1)
    }

    fn add(&mut self, call: &'static str, reports: Reports) {
        if let Reports::Nothing = reports {
            return;
        }
        if self.slots.len() < STATUS_SLOTS {
            self.slots.push(Slot::new(call));
        }
        self.slots.last_mut().expect("just pushed").add(reports);
    }
}

impl<R: GpuRuntime> GpuBackend<R> {
    /// Enqueues one launcher on this backend's stream and returns without waiting: `f` gets the
    /// [`Launch`] (the table with this backend's stream and the launch's status slot) and the
    /// workspace's pools for its scratch, and returns the launcher's code. That code (launch
    /// and API errors, found on the host) is checked now; what its kernels report into the
    /// status slot is read at the next `flush`, if `reports` says they can write it. An error
    /// of `f` before the launcher runs (a handle refused) queues nothing.
    pub(crate) fn launch(
        &self,
        work: &mut Work<R>,
        call: &'static str,
        reports: Reports,
        f: impl FnOnce(&Launch<'_>, &mut Pools<R>) -> Result<i32>,
    ) -> Result<()> {
        self.rt.make_current()?;
        let slot = work.status.ptr + (work.pending.next() * STATUS_BYTES) as u64;
        // SAFETY: the table is this runtime's (`GpuRuntime::launchers`), the stream its own,
        // and its device was made current just above. `slot` is one of the STATUS_SLOTS
        // status words of `work.status` (`next` is below STATUS_SLOTS), which the workspace
        // keeps for the backend's life; the launches queued on it write it in stream order, and
        // only `flush`, under the same lock, reads and clears it after the stream's work.
        let k = unsafe { Launch::new(self.table, self.rt.stream(), slot) };
        let code = f(&k, &mut work.pools)?;
        if code > 0 {
            self.rt.check(code, call)?;
        } else if code < 0 {
            return Err(self.device_error(call, self.message(code)));
        }
        work.pending.add(call, reports);
        Ok(())
    }

    /// Reads the status slots of the queued launches that can have written them (which waits
    /// for the stream), clears them, and turns the first reported error, in launch order, into
    /// the error of the launch that reported it. Without such a launch it reads nothing and
    /// does not wait.
    pub(crate) fn flush(&self, work: &mut Work<R>) -> Result<()> {
        let pending = std::mem::take(&mut work.pending);
        let used = pending.slots.len();
        if used == 0 {
            return Ok(());
        }
        let mut bytes = vec![0u8; used * STATUS_BYTES];
        self.read_mem(&work.status, &mut bytes)?;
        let statuses: Vec<Status> = bytes
            .chunks_exact(STATUS_BYTES)
            .map(|b| Status::from_bytes(b.try_into().expect("one status")))
            .collect();
        if statuses.iter().all(|s| *s == Status::CLEAR) {
            return Ok(());
        }
        self.write_mem(&mut work.status, &clear(used))?;
        let Some((slot, status)) = pending
            .slots
            .iter()
            .zip(&statuses)
            .find(|(_, s)| s.code != ffi::OK)
        else {
            return Ok(());
        };
        match (status.code, slot.index) {
            (ffi::ERR_INDEX, Some((what, limit))) if slot.index_launches == 1 => {
                Err(WavekitError::IndexOutOfRange {
                    what,
                    value: status.detail & u64::from(u32::MAX),
                    limit,
                })
            }
            (code, _) => Err(self.device_error(&slot.call(), self.message(code))),
        }
    }

    /// A synchronous launch: reports earlier queued errors first (under their own calls), then
    /// runs `f` and waits for the status word its kernels wrote.
    pub(crate) fn run_checked(
        &self,
        work: &mut Work<R>,
        call: &'static str,
        f: impl FnOnce(&Launch<'_>, &mut Pools<R>) -> Result<i32>,
    ) -> Result<()> {
        self.flush(work)?;
        self.launch(work, call, Reports::Errors, f)?;
        self.flush(work)
    }

    /// `len` values of `T` at `ptr`, read once the queued work is done, then the status word
    /// of that work (`flush`): a read is where asynchronous errors come back.
    /// The wait itself happens outside the lock, so threads sharing the backend can queue
    /// work meanwhile.
    pub(crate) fn read_flushed<T: Element>(
        &self,
        mem: &DeviceMem<R>,
        len: usize,
    ) -> Result<Vec<T>> {
        self.rt.make_current()?;
        let out = self.read(mem, len)?;
        self.flush(&mut self.lock())?;
        Ok(out)
    }

    /// Waits for the queued work (outside the lock), then reports what its kernels wrote to
    /// the status word.
    pub(crate) fn synchronize_flushed(&self) -> Result<()> {
        self.rt.make_current()?;
        self.rt.synchronize()?;
        self.flush(&mut self.lock())
    }
}

/// `slots` clear status words, as the device stores them.
pub(crate) fn clear(slots: usize) -> Vec<u8> {
    Status::CLEAR.to_bytes().repeat(slots)
}
