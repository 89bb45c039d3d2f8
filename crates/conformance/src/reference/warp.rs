//! Sequential definitions of the warp primitives (docs/SEMANTICS.md sections vote, shfl, match,
//! activemask, syncwarp_transpose, tile, warp_reduce, warp_scan). Each returns one `Option` per
//! thread of the launch: `None` for non-members and for values SEMANTICS leaves undefined.

use super::ops::{bfly, identity, kogge_stone};
use wavekit_core::api::VoteResult;
use wavekit_core::element::Element;
use wavekit_core::mask::LaneMask;
use wavekit_core::op::ReduceOp;
use wavekit_core::width::WarpWidth;
use wavekit_core::{ScanKind, Shfl, Vote};

/// The member lanes of warp `warp` in a launch of `threads` threads: mask ∩ existing lanes.
pub fn members(mask: LaneMask, threads: usize, warp: usize) -> Vec<bool> {
    let lanes = mask.width().lanes() as usize;
    (0..lanes)
        .map(|l| warp * lanes + l < threads && mask.contains(l as u32))
        .collect()
}

fn bits_of(lanes: impl Iterator<Item = usize>) -> u64 {
    lanes.fold(0u64, |m, l| m | 1u64 << l)
}

/// Runs `f(warp_members, warp_start, lane)` for each member thread; `None` elsewhere.
fn per_member<R>(
    threads: usize,
    mask: LaneMask,
    mut f: impl FnMut(&[bool], usize, usize) -> R,
) -> Vec<Option<R>> {
    let lanes = mask.width().lanes() as usize;
    let mut out = Vec::with_capacity(threads);
    for warp in 0..threads.div_ceil(lanes) {
        let m = members(mask, threads, warp);
        for lane in 0..lanes.min(threads - warp * lanes) {
            out.push(m[lane].then(|| f(&m, warp * lanes, lane)));
        }
    }
    out
}

/// vote: every member gets the vote over the members' predicates.
pub fn vote(kind: Vote, preds: &[bool], mask: LaneMask) -> Vec<Option<VoteResult>> {
    let width = mask.width();
    per_member(preds.len(), mask, |m, start, _| {
        let member_lanes: Vec<usize> = (0..m.len()).filter(|&l| m[l]).collect();
        let true_lanes: Vec<usize> = member_lanes
            .iter()
            .copied()
            .filter(|&l| preds[start + l])
            .collect();
        let all = true_lanes.len() == member_lanes.len();
        let any = !true_lanes.is_empty();
        match kind {
            Vote::All => VoteResult::Bool(all),
            Vote::Any => VoteResult::Bool(any),
            Vote::Uni => VoteResult::Bool(all || !any),
            Vote::Ballot => VoteResult::Ballot(
                LaneMask::from_bits(bits_of(true_lanes.into_iter()), width).expect("in width"),
            ),
        }
    })
}

/// The source lane of the shfl table in SEMANTICS, for a lane of a `width`-lane segment of a
/// `warp`-lane warp: `arg` is first taken modulo `warp` (its two's complement bits, as the
/// hardware reads them).
pub fn shfl_src(kind: Shfl, lane: usize, arg: i32, width: usize, warp: usize) -> usize {
    let arg = (arg as u32 as usize) % warp;
    let base = lane - lane % width;
    match kind {
        Shfl::Idx => base + arg % width,
        Shfl::Up if lane - base >= arg => lane - arg,
        Shfl::Down if lane - base + arg < width => lane + arg,
        Shfl::Xor if (lane ^ arg) < base + width => lane ^ arg,
        Shfl::Up | Shfl::Down | Shfl::Xor => lane,
    }
}

/// shfl: the source's value where the source is a member.
pub fn shfl<T: Copy>(
    kind: Shfl,
    vals: &[T],
    arg: i32,
    width: u32,
    mask: LaneMask,
) -> Vec<Option<T>> {
    let warp = mask.width().lanes() as usize;
    per_member(vals.len(), mask, |m, start, lane| {
        let src = shfl_src(kind, lane, arg, width as usize, warp);
        m[src].then(|| vals[start + src])
    })
    .into_iter()
    .map(Option::flatten)
    .collect()
}

/// match_any: each member gets the members holding its bits.
pub fn match_any<T: Element>(vals: &[T], mask: LaneMask) -> Vec<Option<LaneMask>> {
    per_member(vals.len(), mask, |m, start, lane| {
        let mine = vals[start + lane].to_bits();
        let same = (0..m.len()).filter(|&l| m[l] && vals[start + l].to_bits() == mine);
        LaneMask::from_bits(bits_of(same), mask.width()).expect("in width")
    })
}

/// match_all: `(members, true)` if every member holds the same bits, else `(empty, false)`.
pub fn match_all<T: Element>(vals: &[T], mask: LaneMask) -> Vec<Option<(LaneMask, bool)>> {
    per_member(vals.len(), mask, |m, start, lane| {
        let mine = vals[start + lane].to_bits();
        let member_lanes: Vec<usize> = (0..m.len()).filter(|&l| m[l]).collect();
        if member_lanes
            .iter()
            .all(|&l| vals[start + l].to_bits() == mine)
        {
            (
                LaneMask::from_bits(bits_of(member_lanes.into_iter()), mask.width())
                    .expect("in width"),
                true,
            )
        } else {
            (LaneMask::empty(mask.width()), false)
        }
    })
}

/// The lanes of `branch` that exist in warp `warp`: what an activemask result may contain.
pub fn activemask_lanes(branch: LaneMask, threads: usize, warp: usize) -> u64 {
    let m = members(branch, threads, warp);
    bits_of((0..m.len()).filter(|&l| m[l]))
}

/// syncwarp_transpose, seed 000's transpose: rows of 8 written row-major, read column-major.
pub fn syncwarp_transpose<T: Copy>(vals: &[T], mask: LaneMask) -> Vec<Option<T>> {
    let rows = mask.width().lanes() as usize / 8;
    per_member(vals.len(), mask, |m, start, lane| {
        let src = (lane % rows) * 8 + lane / rows;
        m[src].then(|| vals[start + src])
    })
    .into_iter()
    .map(Option::flatten)
    .collect()
}

/// Complete tiles only; a trailing partial tile is undefined.
fn per_full_tile<R>(
    threads: usize,
    tile: usize,
    mut f: impl FnMut(usize, usize) -> R,
) -> Vec<Option<R>> {
    (0..threads)
        .map(|t| {
            let start = t - t % tile;
            (start + tile <= threads).then(|| f(start, t - start))
        })
        .collect()
}

/// tile_shfl: the shuffle at width = tile from the lane's place in its warp; `None` where the
/// source lies outside the caller's tile (a Xor naming an earlier tile, outside the tile mask).
pub fn tile_shfl<T: Copy>(
    tile: u32,
    kind: Shfl,
    vals: &[T],
    arg: i32,
    warp: WarpWidth,
) -> Vec<Option<T>> {
    let (tile, w) = (tile as usize, warp.lanes() as usize);
    per_full_tile(vals.len(), tile, |start, rank| {
        let lane = (start + rank) % w;
        let first = lane - rank;
        let src = shfl_src(kind, lane, arg, tile, w);
        (first..first + tile)
            .contains(&src)
            .then(|| vals[start + src - first])
    })
    .into_iter()
    .map(Option::flatten)
    .collect()
}

pub fn tile_vote(
    tile: u32,
    kind: Vote,
    preds: &[bool],
    warp: WarpWidth,
) -> Vec<Option<VoteResult>> {
    let tile = tile as usize;
    per_full_tile(preds.len(), tile, |start, _| {
        let p = &preds[start..start + tile];
        let (all, any) = (p.iter().all(|&x| x), p.iter().any(|&x| x));
        match kind {
            Vote::All => VoteResult::Bool(all),
            Vote::Any => VoteResult::Bool(any),
            Vote::Uni => VoteResult::Bool(all || !any),
            Vote::Ballot => VoteResult::Ballot(
                LaneMask::from_bits(bits_of((0..tile).filter(|&r| p[r])), warp)
                    .expect("tile <= warp"),
            ),
        }
    })
}

/// tile_reduce: every lane of a full tile gets bfly over it; the 16-bit floats over the
/// values widened to f32, each result rounded once.
pub fn tile_reduce<T: Element>(tile: u32, op: ReduceOp, vals: &[T]) -> Vec<Option<T>> {
    if T::KIND.is_half() {
        let wide = tile_reduce(tile, op, &super::device::widen(vals));
        return wide.into_iter().map(|x| x.map(T::from_acc)).collect();
    }
    let tile = tile as usize;
    let results: Vec<T> = vals.chunks_exact(tile).map(|t| bfly(op, t, tile)).collect();
    per_full_tile(vals.len(), tile, |start, _| results[start / tile])
}

/// warp_reduce: one bfly result per `width`-lane segment (a short last segment padded with the identity).
/// The 16-bit floats: the same over the values widened to f32, each result rounded once.
pub fn warp_reduce<T: Element>(vals: &[T], width: u32, op: ReduceOp) -> Vec<T> {
    if T::KIND.is_half() {
        let wide = warp_reduce(&super::device::widen(vals), width, op);
        return wide.into_iter().map(T::from_acc).collect();
    }
    vals.chunks(width as usize)
        .map(|seg| bfly(op, seg, width as usize))
        .collect()
}

/// warp_reduce_sync: every member gets bfly over the warp's W lanes, the lanes that are not
/// members holding the identity.
/// The 16-bit floats: the same over the values widened to f32, each result rounded once.
pub fn warp_reduce_sync<T: Element>(vals: &[T], op: ReduceOp, mask: LaneMask) -> Vec<Option<T>> {
    if T::KIND.is_half() {
        let wide = warp_reduce_sync(&super::device::widen(vals), op, mask);
        return wide.into_iter().map(|x| x.map(T::from_acc)).collect();
    }
    per_member(vals.len(), mask, |m, start, _| {
        let lanes: Vec<T> = (0..m.len())
            .map(|l| if m[l] { vals[start + l] } else { identity(op) })
            .collect();
        bfly(op, &lanes, m.len())
    })
}

/// warp_scan: Kogge-Stone within each `width`-lane segment, inclusive or exclusive.
/// The 16-bit floats: the same over the values widened to f32, each result rounded once.
pub fn warp_scan<T: Element>(vals: &[T], width: u32, op: ReduceOp, kind: ScanKind) -> Vec<T> {
    if T::KIND.is_half() {
        let wide = warp_scan(&super::device::widen(vals), width, op, kind);
        return wide.into_iter().map(T::from_acc).collect();
    }
    let mut out = Vec::with_capacity(vals.len());
    for seg in vals.chunks(width as usize) {
        let mut incl = seg.to_vec();
        kogge_stone(op, &mut incl, width as usize);
        match kind {
            ScanKind::Inclusive => out.extend(incl),
            ScanKind::Exclusive => {
                out.push(identity(op));
                out.extend_from_slice(&incl[..incl.len() - 1]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavekit_core::width::WarpWidth::{W32, W64};

    #[test]
    fn shuffle_sources_by_hand() {
        assert_eq!(shfl_src(Shfl::Idx, 13, 3, 8, 32), 11);
        assert_eq!(shfl_src(Shfl::Idx, 13, 9, 8, 32), 9);
        assert_eq!(shfl_src(Shfl::Up, 9, 2, 8, 32), 9);
        assert_eq!(shfl_src(Shfl::Up, 10, 2, 8, 32), 8);
        assert_eq!(shfl_src(Shfl::Down, 13, 2, 8, 32), 15);
        assert_eq!(shfl_src(Shfl::Down, 14, 2, 8, 32), 14);
        assert_eq!(shfl_src(Shfl::Xor, 13, 1, 8, 32), 12);
        // Past the segment end: keep; an earlier segment: read it.
        assert_eq!(shfl_src(Shfl::Xor, 1, 8, 8, 32), 1);
        assert_eq!(shfl_src(Shfl::Xor, 9, 8, 8, 32), 1);
        // Arguments modulo the warp: -1 is 31 (or 63), 34 is 2 at 32 lanes.
        assert_eq!(shfl_src(Shfl::Idx, 13, -1, 8, 32), 15);
        assert_eq!(shfl_src(Shfl::Down, 13, 34, 8, 32), 15);
        assert_eq!(shfl_src(Shfl::Down, 13, 34, 8, 64), 13);
        assert_eq!(shfl_src(Shfl::Up, 63, -1, 64, 64), 0);
        assert_eq!(shfl_src(Shfl::Up, 63, i32::MIN, 64, 64), 63);
    }

    #[test]
    fn shfl_reads_none_from_non_members() {
        let vals: Vec<u32> = (0..40).collect();
        let even = LaneMask::from_fn(W32, |l| l % 2 == 0);
        let got = shfl(Shfl::Down, &vals, 1, 32, even);
        assert_eq!(got[0], None, "lane 0 reads lane 1, not a member");
        assert_eq!(got[1], None, "lane 1 is not a member");
        let got = shfl(Shfl::Down, &vals, 2, 32, even);
        assert_eq!(got[0], Some(2));
        assert_eq!(
            got[30],
            Some(30),
            "lane 30 + 2 is past the segment: keeps its own"
        );
        assert_eq!(got.len(), 40);
        assert_eq!(got[33], None);
        assert_eq!(got[32], Some(34));
    }

    #[test]
    fn votes_and_ballot_by_hand() {
        let mut preds = vec![false; 70];
        preds[3] = true;
        preds[65] = true;
        let got = vote(Vote::Ballot, &preds, LaneMask::full(W64));
        assert_eq!(
            got[0],
            Some(VoteResult::Ballot(LaneMask::from_bits(8, W64).unwrap()))
        );
        assert_eq!(
            got[69],
            Some(VoteResult::Ballot(LaneMask::from_bits(2, W64).unwrap()))
        );
        let upper = LaneMask::from_fn(W32, |l| l >= 16);
        let got = vote(Vote::All, &preds[..32], upper);
        assert_eq!(got[16], Some(VoteResult::Bool(false)));
        let got = vote(Vote::Uni, &[false; 32], upper);
        assert_eq!(got[31], Some(VoteResult::Bool(true)));
    }

    #[test]
    fn transpose_by_hand() {
        let vals: Vec<u32> = (0..32).collect();
        let got = syncwarp_transpose(&vals, LaneMask::full(W32));
        // 4 rows of 8: lane 1 reads row 1 column 0 = lane 8; lane 4 reads row 0 column 1.
        assert_eq!(got[1], Some(8));
        assert_eq!(got[4], Some(1));
        assert_eq!(got[31], Some(31));
    }

    #[test]
    fn tile_shuffles_by_hand() {
        let vals: Vec<u32> = (0..20).collect();
        // tile 4: rank 6 % 4 = 2 of each tile; the trailing partial tile (16..20) is complete.
        let got = tile_shfl(4, Shfl::Idx, &vals, 6, WarpWidth::W32);
        assert_eq!(got[5], Some(6));
        assert_eq!(got[19], Some(18));
        // laneMask 4 at tile 4: lane 5 names lane 1, an earlier tile: undefined.
        let got = tile_shfl(4, Shfl::Xor, &vals, 4, WarpWidth::W32);
        assert_eq!((got[1], got[5]), (Some(1), None));
        let got = tile_shfl(4, Shfl::Down, &vals[..18], 33, WarpWidth::W32);
        assert_eq!((got[0], got[3], got[16]), (Some(1), Some(3), None));
    }

    #[test]
    fn masked_reduce_by_hand() {
        let v: Vec<i32> = (0..40).collect();
        let m = LaneMask::from_bits(0b1011, W32).unwrap();
        let got = warp_reduce_sync(&v, ReduceOp::Sum, m);
        assert_eq!(&got[..4], &[Some(4), Some(4), None, Some(4)]);
        assert_eq!(&got[32..36], &[Some(100), Some(100), None, Some(100)]);
        let z = [-0.0f64; 64];
        let one = LaneMask::from_bits(1 << 40, W64).unwrap();
        let got = warp_reduce_sync(&z, ReduceOp::Sum, one);
        assert_eq!(got[40].map(f64::to_bits), Some((-0.0f64).to_bits()));
    }

    #[test]
    fn scans_by_hand() {
        let v = [1u32, 2, 3, 4, 5, 6];
        assert_eq!(
            warp_scan(&v, 4, ReduceOp::Sum, ScanKind::Inclusive),
            [1, 3, 6, 10, 5, 11]
        );
        assert_eq!(
            warp_scan(&v, 4, ReduceOp::Sum, ScanKind::Exclusive),
            [0, 1, 3, 6, 0, 5]
        );
        assert_eq!(warp_reduce(&v, 4, ReduceOp::Max), [4, 6]);
    }
}
