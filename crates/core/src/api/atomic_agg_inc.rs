//! Warp-aggregated atomics: the checks of `atomic_agg_inc` / `atomic_agg_inc_into`.

use super::{Collectives, check_len};
use crate::backend::{Backend, DeviceBuffer};
use crate::error::{Result, WavekitError};
use crate::raw::{RawBackend, Validated};

fn check_counters<B: Backend>(slots: &B::Buffer<u32>, counters: &B::Buffer<u32>) -> Result<()> {
    if counters.is_empty() && !slots.is_empty() {
        return Err(WavekitError::EmptyInput {
            what: "atomic counters",
        });
    }
    Ok(())
}

pub(crate) fn atomic_agg_inc<B: RawBackend>(
    b: &B,
    slots: &B::Buffer<u32>,
    counters: &mut B::Buffer<u32>,
) -> Result<B::Buffer<u32>> {
    check_counters::<B>(slots, counters)?;
    let mut olds = b.alloc::<u32>(slots.len())?;
    b.atomic_agg_inc_into(slots, counters, &mut olds)?;
    b.synchronize()?;
    Ok(olds)
}

pub(crate) fn atomic_agg_inc_into<B: RawBackend>(
    b: &B,
    slots: &B::Buffer<u32>,
    counters: &mut B::Buffer<u32>,
    olds: &mut B::Buffer<u32>,
) -> Result<()> {
    check_len(
        "atomic_agg_inc olds (one per slot)",
        slots.len(),
        olds.len(),
    )?;
    check_counters::<B>(slots, counters)?;
    if slots.is_empty() {
        return Ok(());
    }
    b.raw_atomic_agg_inc(Validated::new(), slots, counters, olds)
}
