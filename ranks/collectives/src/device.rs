//! Device-side helpers of the collectives over what every backend's [`SliceDevice`] gives
//! (wavekit-core: copies between buffers of one device, checked there).

use wavekit_core::{Element, Result, SliceDevice};

/// Rank q's `counts[q]` values from its `cap`-element slot of a padded allgather (`gathered`),
/// one rank after another, into `dst` (the sum of `counts` long): the partials or aggregates
/// of every rank listed, in tile order.
pub(crate) fn pack_gathered<B: SliceDevice, T: Element>(
    b: &B,
    gathered: &B::Buffer<T>,
    cap: usize,
    counts: &[usize],
    dst: &mut B::Buffer<T>,
) -> Result<()> {
    let mut at = 0;
    for (q, &c) in counts.iter().enumerate().filter(|(_, c)| **c > 0) {
        let mut part = b.slice_mut(dst, at..at + c)?;
        b.copy_from(&mut part, gathered, q * cap)?;
        at += c;
    }
    Ok(())
}
