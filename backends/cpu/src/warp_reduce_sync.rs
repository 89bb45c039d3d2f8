//! warp_reduce_sync (docs/SEMANTICS.md, "warp_reduce_sync"): `__reduce_*_sync(mask, v)`, every
//! member gets the butterfly over its warp's W lanes with the non-members' lanes holding the
//! op's identity (the canonical order floats need; integers get the same value in any order).

use super::combine::{bfly, with_op};
use super::warp_lanes::{lanes, per_warp};
use wavekit_core::WarpLaunch;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::op::ReduceOp;
use wavekit_core::width::WarpWidth;

/// Every lane of a warp gets its warp's member reduction; the public layer keeps the members'.
pub(crate) fn reduce<T: Element>(launch: &WarpLaunch, op: ReduceOp, vals: &[T]) -> Result<Vec<T>> {
    let n = lanes(launch);
    let id = T::Acc::identity(op);
    // In `T::Acc` (f32 for the 16-bit floats), each result rounded once.
    with_op!(T::Acc, op, |f| per_warp(launch.threads, n, |w, out| {
        let members = launch.members(w);
        let mut v = [id; WarpWidth::W64.lanes() as usize];
        for (l, x) in vals[w * n..][..out.len()].iter().enumerate() {
            if members.contains(l as u32) {
                v[l] = x.to_acc();
            }
        }
        out.fill(T::from_acc(bfly(&mut v[..n], f)));
    }))
}
