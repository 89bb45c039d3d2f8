//! tile (docs/SEMANTICS.md, "tile"): cooperative-group tiles, consecutive groups of `tile`
//! threads, all participating. A trailing partial tile is computed over the lanes it has; the
//! public layer discards it.

use super::combine::{bfly_padded_acc, with_op};
use super::warp_lanes::per_warp;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::lanes::shfl_source;
use wavekit_core::op::ReduceOp;
use wavekit_core::width::WarpWidth;
use wavekit_core::{Shfl, Vote};

/// Lane l of a warp reads `shfl_source` at width = tile; a source outside the caller's tile
/// (a Xor naming an earlier tile) gives the lane's own value, which the public layer discards.
pub(crate) fn shfl<T: Element>(
    vals: &[T],
    tile: u32,
    kind: Shfl,
    arg: i32,
    warp: WarpWidth,
) -> Result<Vec<T>> {
    let n = tile as usize;
    let w = warp.lanes() as usize;
    per_warp(vals.len(), n, |k, out| {
        let lanes = &vals[k * n..][..out.len()];
        // The tile's first lane in its warp: tiles never straddle warps (tile <= W).
        let first = (k * n % w) as u32;
        for (r, o) in out.iter_mut().enumerate() {
            let src = shfl_source(kind, first + r as u32, arg, tile, warp);
            let rank = src.wrapping_sub(first) as usize;
            *o = *lanes.get(rank).unwrap_or(&lanes[r]);
        }
    })
}

/// Votes over a tile's ranks; ballot bit r is rank r.
pub(crate) fn vote(preds: &[bool], tile: u32, vote: Vote) -> Result<Vec<u64>> {
    let n = tile as usize;
    per_warp(preds.len(), n, |k, out| {
        let lanes = &preds[k * n..][..out.len()];
        let all = if out.len() == 64 {
            u64::MAX
        } else {
            (1u64 << out.len()) - 1
        };
        let ballot = lanes
            .iter()
            .enumerate()
            .filter(|(_, p)| **p)
            .fold(0u64, |m, (r, _)| m | 1 << r);
        out.fill(match vote {
            Vote::All => (ballot == all) as u64,
            Vote::Any => (ballot != 0) as u64,
            Vote::Uni => (ballot == 0 || ballot == all) as u64,
            Vote::Ballot => ballot,
        });
    })
}

/// Every lane of a tile gets bfly over the tile (group reduce at tile <= 32 is exactly this,
/// and a 64-lane tile is one 64-lane butterfly).
pub(crate) fn reduce<T: Element>(vals: &[T], tile: u32, op: ReduceOp) -> Result<Vec<T>> {
    let n = tile as usize;
    let id = T::Acc::identity(op);
    // In `T::Acc` (f32 for the 16-bit floats), each result rounded once.
    with_op!(T::Acc, op, |f| per_warp(vals.len(), n, |k, out| {
        out.fill(bfly_padded_acc(&vals[k * n..][..out.len()], n, id, f));
    }))
}
