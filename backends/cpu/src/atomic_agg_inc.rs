//! atomic_agg_inc (docs/SEMANTICS.md, "atomic_agg_inc"): seed 000's warp-aggregated atomic
//! increment, simulated with real atomics.

use crate::par;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::width::WarpWidth;

/// Warps handed to one rayon task.
const WARPS_PER_TASK: usize = 64;

// Viewing counters as atomics below relies on these; both hold on every target with 32-bit
// atomics, and this stops the build where they would not.
const _: () = assert!(size_of::<AtomicU32>() == size_of::<u32>());
const _: () = assert!(align_of::<AtomicU32>() == align_of::<u32>());

/// Each warp's threads with an in-range slot find their group (match_any over those lanes), the
/// group's lowest lane adds the group size with one fetch_add, and each lane takes
/// `base + rank`, rank = lower lanes of its group. The caller (`raw_atomic_agg_inc`) has
/// already refused a slot past the counters, so no increment here can be half of a failed call;
/// such a thread would be skipped and reported.
pub(crate) fn agg_inc(
    width: WarpWidth,
    slots: &[u32],
    counters: &mut [u32],
    olds: &mut [u32],
) -> Result<()> {
    let lanes = width.lanes() as usize;
    let limit = counters.len();
    // SAFETY: AtomicU32 has the size, alignment (asserted above) and bit validity of u32, and
    // the exclusive borrow of `counters` lasts as long as this shared atomic view, so nothing
    // else reads or writes the memory non-atomically meanwhile.
    let atomic: &[AtomicU32] = unsafe { &*(counters as *mut [u32] as *const [AtomicU32]) };
    let first_bad = AtomicUsize::new(usize::MAX);
    let olds_len = olds.len().min(slots.len());
    par::chunks_mut_with(
        slots,
        &mut olds[..olds_len],
        lanes,
        WARPS_PER_TASK,
        |w, warp, out| {
            let valid = warp
                .iter()
                .enumerate()
                .filter(|&(_, &s)| (s as usize) < limit);
            let mut pending = valid.fold(0u64, |m, (l, _)| m | 1 << l);
            // The ballot loop of a warp without a match instruction: one round per distinct slot.
            while pending != 0 {
                let leader = pending.trailing_zeros() as usize;
                let slot = warp[leader];
                let group = (0..warp.len())
                    .filter(|&l| pending >> l & 1 == 1 && warp[l] == slot)
                    .fold(0u64, |m, l| m | 1 << l);
                let base = atomic[slot as usize].fetch_add(group.count_ones(), Ordering::Relaxed);
                let mut members = group;
                while members != 0 {
                    let l = members.trailing_zeros();
                    let rank = (group & ((1u64 << l) - 1)).count_ones();
                    out[l as usize] = base.wrapping_add(rank);
                    members &= members - 1;
                }
                pending &= !group;
            }
            if let Some(l) = warp.iter().position(|&s| s as usize >= limit) {
                first_bad.fetch_min(w * lanes + l, Ordering::Relaxed);
            }
        },
    );
    match first_bad.into_inner() {
        usize::MAX => Ok(()),
        thread => Err(WavekitError::IndexOutOfRange {
            what: "atomic_agg_inc slot",
            value: u64::from(slots[thread]),
            limit: limit as u64,
        }),
    }
}
