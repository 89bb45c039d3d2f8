//! vote (docs/SEMANTICS.md, "vote"): all, any, uni and ballot over each warp's members.

use super::warp_lanes::{bits_where, lanes, per_warp};
use wavekit_core::error::Result;
use wavekit_core::{Vote, WarpLaunch};

/// Each lane gets its warp's vote over the members: 0 or 1 for all/any/uni, the bits for ballot.
pub(crate) fn vote(launch: &WarpLaunch, vote: Vote, preds: &[bool]) -> Result<Vec<u64>> {
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
