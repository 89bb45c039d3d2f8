//! Warp-aggregated atomic increments on a GPU (`RawBackend::raw_atomic_agg_inc`, which
//! raw_backend.rs hands here): all or nothing, the slots validated on the device before any
//! counter moves.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::count_if::CountInto;
use super::queue::Reports;
use super::runtime::GpuRuntime;
use super::workspace::Work;
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
        self.enqueue_count_if(
            work,
            "atomic_agg_inc slot check",
            slots,
            Predicate::Ge(limit),
            CountInto::ResultSlot,
        )?;
        if self.read::<u64>(&work.pools.result, 1)?[0] == 0 {
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
        let ncounters = counters.len as u64;
        self.launch(&mut work, "atomic_agg_inc", reports, |k, _| {
            k.atomic_agg_inc(
                self.launch_width,
                self.impl_code(),
                self.input(slots)?,
                slots.len as u64,
                self.output(counters)?,
                ncounters,
                self.output(olds)?,
            )
        })
    }
}
