//! What the warp primitives (`vote`, `shfl`, `match`, `activemask`, `syncwarp_transpose`) and
//! the tiles (`tile`) share: one result per thread, computed warp by warp in parallel (each
//! warp is independent).

use crate::par;
use wavekit_core::WarpLaunch;
use wavekit_core::error::Result;
use wavekit_core::host;

/// Warps handed to one rayon task: a warp's work is tiny, so fewer, larger tasks.
const WARPS_PER_TASK: usize = 256;

/// One result per thread, each warp's lanes written by `f(warp, lanes_out)`.
///
/// # Errors
/// `OutOfMemory` when one result per thread does not fit in host memory.
pub(crate) fn per_warp<R: Copy + Default + Send>(
    threads: usize,
    lanes: usize,
    f: impl Fn(usize, &mut [R]) + Sync,
) -> Result<Vec<R>> {
    let mut out = host::filled(threads, R::default())?;
    par::chunks_mut(&mut out, lanes, WARPS_PER_TASK, f);
    Ok(out)
}

/// Lanes of one warp of the launch.
pub(crate) fn lanes(launch: &WarpLaunch) -> usize {
    launch.mask.width().lanes() as usize
}

/// Bit l set for each lane l of `lanes` (the slice of one warp) that satisfies `keep`.
pub(crate) fn bits_where<T>(lanes: &[T], keep: impl Fn(&T) -> bool) -> u64 {
    lanes
        .iter()
        .enumerate()
        .filter(|(_, x)| keep(x))
        .fold(0, |m, (l, _)| m | 1 << l)
}
