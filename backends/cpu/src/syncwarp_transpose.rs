//! syncwarp_transpose (docs/SEMANTICS.md, "syncwarp_transpose"): seed 000's transpose through
//! shared memory around a `__syncwarp`.

use super::warp_lanes::{lanes, per_warp};
use wavekit_core::WarpLaunch;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::lanes::transpose_source;

/// Members store row-major, sync, then read the column-major slot.
pub(crate) fn transpose<T: Element>(launch: &WarpLaunch, vals: &[T]) -> Result<Vec<T>> {
    let width = launch.mask.width();
    let n = lanes(launch);
    per_warp(launch.threads, n, |w, out| {
        let warp = &vals[w * n..][..out.len()];
        for (l, o) in out.iter_mut().enumerate() {
            let src = transpose_source(l as u32, width) as usize;
            *o = *warp.get(src).unwrap_or(&warp[l]);
        }
    })
}
