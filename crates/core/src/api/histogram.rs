//! Histogram: the checks of `histogram` / `histogram_into`.

use super::{Collectives, check_len};
use crate::backend::{DeviceBuffer, HistogramResult};
use crate::error::{Result, WavekitError};
use crate::host;
use crate::raw::{RawBackend, Validated};

pub(crate) fn histogram<B: RawBackend>(
    b: &B,
    keys: &B::Buffer<u32>,
    bins: u32,
) -> Result<HistogramResult> {
    if bins == 0 {
        return Err(WavekitError::ZeroBins);
    }
    // The counts and the outside slot, as one host vector (and one device one).
    let slots = bins as usize + 1;
    host::check::<u64>(slots)?;
    let mut counts = b.alloc::<u64>(slots)?;
    b.histogram_into(keys, bins, &mut counts)?;
    let mut counts = b.download(&counts)?;
    let outside = counts.pop().expect("bins + 1 counts");
    Ok(HistogramResult { counts, outside })
}

pub(crate) fn histogram_into<B: RawBackend>(
    b: &B,
    keys: &B::Buffer<u32>,
    bins: u32,
    counts: &mut B::Buffer<u64>,
) -> Result<()> {
    if bins == 0 {
        return Err(WavekitError::ZeroBins);
    }
    check_len(
        "histogram counts (bins + 1, the last for keys outside)",
        bins as usize + 1,
        counts.len(),
    )?;
    b.raw_histogram(Validated::new(), keys, bins, counts)
}
