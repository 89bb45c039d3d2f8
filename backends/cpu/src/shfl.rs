//! shfl (docs/SEMANTICS.md, "shfl"): every lane reads the value of its source lane.

use super::warp_lanes::{lanes, per_warp};
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::lanes::shfl_source;
use wavekit_core::{Shfl, WarpLaunch};

/// Every lane reads its source; a source past the launch (never a member) gives the lane's own
/// value, which the public layer discards.
pub(crate) fn shfl<T: Element>(
    launch: &WarpLaunch,
    kind: Shfl,
    vals: &[T],
    arg: i32,
    width: u32,
) -> Result<Vec<T>> {
    let n = lanes(launch);
    let warp_width = launch.mask.width();
    per_warp(launch.threads, n, |w, out| {
        let warp = &vals[w * n..][..out.len()];
        for (l, o) in out.iter_mut().enumerate() {
            let src = shfl_source(kind, l as u32, arg, width, warp_width) as usize;
            *o = *warp.get(src).unwrap_or(&warp[l]);
        }
    })
}
