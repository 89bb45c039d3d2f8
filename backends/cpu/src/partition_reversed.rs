//! partition_reversed (docs/SEMANTICS.md "partition_reversed"): partition.rs's two passes with
//! the reversed layout (the rest from the back of the output). On a CPU it reads the input
//! twice too: the counting pass is cheap beside the writes, and it gives every chunk ranges of
//! its own.

use super::buffer::CpuBuffer;
use super::partition::{Layout, partition};
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::{DeviceBuffer, Predicate};

/// `RawBackend::raw_partition_reversed` on CPU buffers: lengths checked again, then the
/// reversed layout, the counts written last.
pub(crate) fn reversed<T: Element>(
    input: &CpuBuffer<T>,
    first: Predicate<T>,
    second: Option<(Predicate<T>, &mut CpuBuffer<T>)>,
    out: &mut CpuBuffer<T>,
    counts: &mut CpuBuffer<u64>,
) -> Result<()> {
    let n = input.len();
    check_len(
        "partition_reversed output (the input's length)",
        n,
        out.len(),
    )?;
    let parts = if second.is_some() { 2 } else { 1 };
    check_len(
        "partition_reversed counts (one per leading part)",
        parts,
        counts.len(),
    )?;
    let (second, middle) = match second {
        Some((p, m)) => {
            check_len(
                "partition3_reversed middle part (the input's length)",
                n,
                m.len(),
            )?;
            (Some(p), Some(m.data_mut()?))
        }
        None => (None, None),
    };
    let k = partition(
        input.data()?,
        first,
        second,
        out.data_mut()?,
        Layout::Reversed { middle },
    )?;
    for (c, k) in counts.data_mut()?.iter_mut().zip(k) {
        *c = k as u64;
    }
    Ok(())
}
