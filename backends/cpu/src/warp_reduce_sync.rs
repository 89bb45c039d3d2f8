//! warp_reduce_sync (docs/SEMANTICS.md, "warp_reduce_sync"): `__reduce_*_sync(mask, v)`, every
//! member gets the butterfly over its warp's W lanes with the non-members' lanes holding the
//! op's identity (the canonical order floats need; integers get the same value in any order).

use super::combine::{bfly, with_op};
use super::warp_lanes::{lanes, per_warp};
use wavekit_core::WarpLaunch;
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;

/// Every lane of a warp gets its warp's member reduction; the public layer keeps the members'.
pub(crate) fn reduce<T: Element>(launch: &WarpLaunch, op: ReduceOp, vals: &[T]) -> Vec<T> {
    let n = lanes(launch);
    let id = T::identity(op);
    with_op!(T, op, |f| per_warp(launch.threads, n, |w, out| {
        let members = launch.members(w);
        let mut v = [id; 64];
        for (l, x) in vals[w * n..][..out.len()].iter().enumerate() {
            if members.contains(l as u32) {
                v[l] = *x;
            }
        }
        out.fill(bfly(&mut v[..n], f));
    }))
}
