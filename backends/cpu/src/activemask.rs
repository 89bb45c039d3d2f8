//! activemask (docs/SEMANTICS.md, "activemask").

use super::warp_lanes::{lanes, per_warp};
use wavekit_core::WarpLaunch;
use wavekit_core::error::Result;

/// Every lane of the branch calls `__activemask()`; on the CPU all of them are converged, so
/// each sees exactly the branch lanes that exist.
pub(crate) fn activemask(launch: &WarpLaunch) -> Result<Vec<u64>> {
    per_warp(launch.threads, lanes(launch), |w, out| {
        out.fill(launch.members(w).bits())
    })
}
