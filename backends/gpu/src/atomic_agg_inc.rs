//! Warp-aggregated atomic increments on a GPU (`RawBackend::raw_atomic_agg_inc`, which imp.rs
//! hands here): all or nothing, the slots validated on the device before any counter moves.

use super::backend::{GpuBackend, Reports, Work};
use super::buffer::GpuBuffer;
use super::ffi::{cptr, dptr};
use super::runtime::GpuRuntime;
use wavekit_core::Predicate;
use wavekit_core::api::check_len;
use wavekit_core::error::{Result, WavekitError};

impl<R: GpuRuntime> GpuBackend<R> {
    /// The first slot (in thread order) at or past `limit`, if any: counted on the device with
    /// the count_if kernel and read back (this waits for the stream); only when one exists are
    /// the slots read back to name it.
    fn first_slot_at_or_past(
        &self,
        work: &mut Work<R>,
        slots: &GpuBuffer<u32, R>,
        limit: usize,
    ) -> Result<Option<u32>> {
        let Ok(limit) = u32::try_from(limit) else {
            return Ok(None); // every u32 slot is below it
        };
        let result = work.result.ptr;
        // SAFETY: the result slot is RESULT_BYTES (64) bytes of this backend's workspace, alive
        // as long as the backend; `work` is the locked workspace, so no other call of this
        // backend uses the slot until the count is read back below (which waits for it).
        unsafe {
            self.enqueue_count_if(
                work,
                "atomic_agg_inc slot check",
                slots,
                Predicate::Ge(limit),
                result,
            )?;
        }
        if self.read::<u64>(&work.result, 1)?[0] == 0 {
            return Ok(None);
        }
        let host = self.read::<u32>(&slots.mem, slots.len)?;
        Ok(host.into_iter().find(|&s| s >= limit))
    }

    /// What `RawBackend::raw_atomic_agg_inc` does on this backend.
    pub(crate) fn atomic_agg_inc_enqueue(
        &self,
        slots: &GpuBuffer<u32, R>,
        counters: &mut GpuBuffer<u32, R>,
        olds: &mut GpuBuffer<u32, R>,
    ) -> Result<()> {
        self.own(slots)?;
        self.own(counters)?;
        self.own(olds)?;
        check_len("atomic_agg_inc olds (one per slot)", slots.len, olds.len)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        // All or nothing: a validation pass over the slots before the increment kernel, so
        // that a bad slot moves no counter (the kernel's own check would skip only that
        // thread, after other warps had already added). It waits for its count.
        if let Some(bad) = self.first_slot_at_or_past(&mut work, slots, counters.len)? {
            return Err(WavekitError::IndexOutOfRange {
                what: "atomic_agg_inc slot",
                value: u64::from(bad),
                limit: counters.len as u64,
            });
        }
        let reports = Reports::Index {
            what: "atomic_agg_inc slot",
            limit: counters.len as u64,
        };
        // SAFETY: the kernel reads the `slots.len` slots, adds only to counters below
        // `counters.len` (the slots were all checked below it just above, and the kernel checks
        // each again) and writes one old value per slot to `olds` (its length checked against the
        // slots'); the two outputs are borrowed exclusively, so they are distinct and unaliased.
        self.launch(&mut work, "atomic_agg_inc", reports, |s, st| unsafe {
            (self.table.atomic_agg_inc)(
                s,
                st,
                self.launch_width,
                self.impl_code(),
                cptr(slots.device_ptr()),
                slots.len as u64,
                dptr(counters.device_ptr()),
                counters.len as u64,
                dptr(olds.device_ptr()),
            )
        })
    }
}
