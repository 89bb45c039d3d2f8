//! vote: all, any, uni and ballot under every mask and launch size.

use crate::Scale;
use crate::check::{eq_lanes, ok};
use crate::inputs::{masks, pred_patterns, thread_counts};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::Vote;
use wavekit_core::api::WarpPrimitives;
use wavekit_core::mask::LaneMask;

fn votes<B: RawBackend>(b: &B, scale: Scale, kinds: &[Vote]) -> Result<(), String> {
    let w = b.warp_width();
    let lanes = w.lanes() as usize;
    for &kind in kinds {
        for threads in thread_counts(w, scale) {
            for (mname, mask) in masks(w, scale) {
                let mut patterns = pred_patterns(threads, threads as u64 * 7 + 1);
                // True exactly on members (false elsewhere) and the reverse: a backend that
                // lets non-members vote gets All, Uni and Ballot wrong here.
                let on_members: Vec<bool> = (0..threads)
                    .map(|t| mask.contains((t % lanes) as u32))
                    .collect();
                patterns.push(("members only", on_members.clone()));
                patterns.push(("non-members only", on_members.iter().map(|&p| !p).collect()));
                for (pname, preds) in patterns {
                    let ctx = format!("{kind:?} threads={threads} mask={mname} preds={pname}");
                    let got = ok(&ctx, b.vote(kind, &preds, mask))?;
                    eq_lanes(&ctx, &reference::vote(kind, &preds, mask), &got)?;
                }
            }
        }
    }
    Ok(())
}

pub fn vote_all_any_uni<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    votes(b, scale, &[Vote::All, Vote::Any, Vote::Uni])
}

pub fn vote_ballot<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    votes(b, scale, &[Vote::Ballot])?;
    // A ballot over the full warp with one true lane per position names exactly that lane.
    let w = b.warp_width();
    for lane in 0..w.lanes() as usize {
        let mut preds = vec![false; w.lanes() as usize];
        preds[lane] = true;
        let ctx = format!("Ballot single true lane {lane}");
        let got = ok(&ctx, b.vote(Vote::Ballot, &preds, LaneMask::full(w)))?;
        let want =
            wavekit_core::api::VoteResult::Ballot(LaneMask::single(lane as u32, w).expect("lane"));
        eq_lanes(&ctx, &vec![Some(want); preds.len()], &got)?;
    }
    Ok(())
}
