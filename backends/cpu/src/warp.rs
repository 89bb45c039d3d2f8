//! Warp primitives lane by lane: votes, shuffles, match, activemask and seed 000's syncwarp
//! transpose. Each warp is independent, so warps run in parallel.

use rayon::prelude::*;
use wavekit_core::element::Element;
use wavekit_core::lanes::{shfl_source, transpose_source};
use wavekit_core::{Match, Shfl, Vote, WarpLaunch};

/// Warps handed to one rayon task: a warp's work is tiny, so fewer, larger tasks.
const WARPS_PER_TASK: usize = 256;

/// One result per thread, each warp's lanes written by `f(warp, lanes_out)`.
pub(crate) fn per_warp<R: Copy + Default + Send>(
    threads: usize,
    lanes: usize,
    f: impl Fn(usize, &mut [R]) + Sync,
) -> Vec<R> {
    let mut out = vec![R::default(); threads];
    out.par_chunks_mut(lanes)
        .enumerate()
        .with_min_len(WARPS_PER_TASK)
        .for_each(|(w, o)| f(w, o));
    out
}

fn lanes(launch: &WarpLaunch) -> usize {
    launch.mask.width().lanes() as usize
}

/// Bit l set for each lane l of `lanes` (the slice of one warp) that satisfies `keep`.
fn bits_where<T>(lanes: &[T], keep: impl Fn(&T) -> bool) -> u64 {
    lanes
        .iter()
        .enumerate()
        .filter(|(_, x)| keep(x))
        .fold(0, |m, (l, _)| m | 1 << l)
}

pub(crate) fn vote(launch: &WarpLaunch, vote: Vote, preds: &[bool]) -> Vec<u64> {
    let n = lanes(launch);
    per_warp(launch.threads, n, |w, out| {
        let members = launch.members(w).bits();
        let ballot = bits_where(&preds[w * n..][..out.len()], |&p| p) & members;
        let result = match vote {
            Vote::All => (ballot == members) as u64,
            Vote::Any => (ballot != 0) as u64,
            Vote::Uni => (ballot == 0 || ballot == members) as u64,
            Vote::Ballot => ballot,
        };
        out.fill(result);
    })
}

/// Every lane reads its source; a source past the launch (never a member) gives the lane's own
/// value, which the public layer discards.
pub(crate) fn shfl<T: Element>(
    launch: &WarpLaunch,
    kind: Shfl,
    vals: &[T],
    arg: u32,
    width: u32,
) -> Vec<T> {
    let n = lanes(launch);
    per_warp(launch.threads, n, |w, out| {
        let warp = &vals[w * n..][..out.len()];
        for (l, o) in out.iter_mut().enumerate() {
            let src = shfl_source(kind, l as u32, arg, width) as usize;
            *o = *warp.get(src).unwrap_or(&warp[l]);
        }
    })
}

/// match_any / match_all over the members, comparing bit patterns.
pub(crate) fn matching<T: Element>(
    launch: &WarpLaunch,
    kind: Match,
    vals: &[T],
) -> Vec<(u64, bool)> {
    let n = lanes(launch);
    per_warp(launch.threads, n, |w, out| {
        let members = launch.members(w).bits();
        let warp = &vals[w * n..][..out.len()];
        let holding = |bits: u64| bits_where(warp, |x| x.to_bits() == bits) & members;
        match kind {
            Match::Any => {
                for (l, o) in out.iter_mut().enumerate() {
                    if members >> l & 1 == 1 {
                        *o = (holding(warp[l].to_bits()), true);
                    }
                }
            }
            Match::All => {
                let first = (members != 0).then(|| warp[members.trailing_zeros() as usize]);
                let same = first.is_none_or(|f| holding(f.to_bits()) == members);
                out.fill(if same { (members, true) } else { (0, false) });
            }
        }
    })
}

/// Every lane of the branch calls `__activemask()`; on the CPU all of them are converged, so
/// each sees exactly the branch lanes that exist.
pub(crate) fn activemask(launch: &WarpLaunch) -> Vec<u64> {
    per_warp(launch.threads, lanes(launch), |w, out| {
        out.fill(launch.members(w).bits())
    })
}

/// Members store row-major, sync, then read the column-major slot.
pub(crate) fn transpose<T: Element>(launch: &WarpLaunch, vals: &[T]) -> Vec<T> {
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
