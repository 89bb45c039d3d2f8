//! match (docs/SEMANTICS.md, "match"): match_any and match_all over each warp's members.

use super::warp_lanes::{bits_where, lanes, per_warp};
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::{Match, WarpLaunch};

/// match_any / match_all over the members, comparing bit patterns.
pub(crate) fn matching<T: Element>(
    launch: &WarpLaunch,
    kind: Match,
    vals: &[T],
) -> Result<Vec<(u64, bool)>> {
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
