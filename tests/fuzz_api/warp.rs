//! The warp primitives of fuzz_api.rs (vote, shuffles, match, activemask, the syncwarp
//! transpose, tiles and the warp collectives): random member masks of either width, lane
//! counts and shuffle arguments, under the same property as the rest of that file.

use super::lane_count;
use proptest::prelude::*;
use wavekit::host::HOST_ALLOC_LIMIT;
use wavekit::{
    LaneMask, ScanKind, Shfl, Vote, VoteResult, WarpPrimitives, WarpWidth, WavekitError,
};
use wavekit_conformance::{inputs, reference};
use wavekit_tests::fuzz::*;
use wavekit_tests::on;

// ---- strategies of the warp primitives ----------------------------------------------------

/// A member mask: mostly of the backend's width, sometimes of the other one, sometimes with
/// bits past its width.
#[derive(Clone, Debug)]
struct MaskArg {
    bits: u64,
    other_width: bool,
    keep_high_bits: bool,
}

fn mask_arg() -> impl Strategy<Value = MaskArg> {
    let bits = prop_oneof![
        Just(u64::MAX),
        Just(0u64),
        Just(0x5555_5555_5555_5555u64),
        any::<u64>(),
        (0u32..64).prop_map(|l| 1u64 << l),
        (0u32..64).prop_map(|l| (1u64 << l) - 1),
    ];
    let rare = || prop_oneof![5 => Just(false), 1 => Just(true)];
    (bits, rare(), rare()).prop_map(|(bits, other_width, keep_high_bits)| MaskArg {
        bits,
        other_width,
        keep_high_bits,
    })
}

impl MaskArg {
    /// The mask for a backend of width `w`, or the typed error building it gave.
    fn build(&self, w: WarpWidth) -> Result<LaneMask, WavekitError> {
        let width = match (self.other_width, w) {
            (false, w) => w,
            (true, WarpWidth::W32) => WarpWidth::W64,
            (true, _) => WarpWidth::W32,
        };
        let bits = if self.keep_high_bits {
            self.bits
        } else {
            self.bits & width.full_bits()
        };
        let r = LaneMask::from_bits(bits, width);
        let fits = bits & !width.full_bits() == 0;
        assert_eq!(r.is_ok(), fits, "LaneMask::from_bits({bits:#x}, {width:?})");
        r
    }
}

/// A lane or shuffle offset: mostly below 64, sometimes anything (negative included: CUDA
/// takes an int and reads its low log2(W) bits).
fn lane_arg() -> impl Strategy<Value = i32> {
    prop_oneof![3 => 0i32..64, 1 => -130i32..130, 1 => any::<i32>()]
}

fn shfl_kind() -> impl Strategy<Value = Shfl> {
    proptest::sample::select(vec![Shfl::Idx, Shfl::Up, Shfl::Down, Shfl::Xor])
}

fn vote_kind() -> impl Strategy<Value = Vote> {
    proptest::sample::select(vec![Vote::All, Vote::Any, Vote::Uni, Vote::Ballot])
}

// ---- one test per entry point -----------------------------------------------------------

#[test]
fn fuzz_vote() {
    let s = (vote_kind(), len(), any::<u64>(), mask_arg());
    fuzz("vote", s, |t, (kind, n, seed, m)| {
        let Ok(mask) = m.build(t.width()) else {
            return Ok(Tally::REFUSED);
        };
        let preds = inputs::bools(n, seed, 1 + seed % 5);
        let valid = mask.width() == t.width();
        on!(t, |b| judged(
            "vote",
            valid,
            b.vote(kind, &preds, mask),
            |got| {
                prop_assert_eq!(reference::vote(kind, &preds, mask), got);
                Ok(())
            }
        ))
    });
}

#[test]
fn fuzz_shfl() {
    let s = (shfl_kind(), len(), lane_arg(), lane_count(), mask_arg());
    fuzz("shfl", s, |t, (kind, n, arg, width, m)| {
        let Ok(mask) = m.build(t.width()) else {
            return Ok(Tally::REFUSED);
        };
        let vals: Vec<f32> = inputs::values_with_specials(n, u64::from(arg as u32));
        let lanes = t.width().lanes();
        let valid = mask.width() == t.width() && pow2_upto(width, lanes);
        on!(t, |b| judged(
            "shfl",
            valid,
            b.shfl(kind, &vals, arg, width, mask),
            |got| { same_lanes(&reference::shfl(kind, &vals, arg, width, mask), &got) }
        ))
    });
}

#[test]
fn fuzz_match() {
    let s = (any::<bool>(), len(), 1u64..6, mask_arg());
    fuzz("match", s, |t, (all, n, distinct, m)| {
        let Ok(mask) = m.build(t.width()) else {
            return Ok(Tally::REFUSED);
        };
        let vals: Vec<u32> = (0..n as u64)
            .map(|i| (i * 7919 % distinct) as u32)
            .collect();
        let valid = mask.width() == t.width();
        on!(t, |b| if all {
            judged("match_all", valid, b.match_all(&vals, mask), |got| {
                prop_assert_eq!(reference::match_all(&vals, mask), got);
                Ok(())
            })
        } else {
            judged("match_any", valid, b.match_any(&vals, mask), |got| {
                prop_assert_eq!(reference::match_any(&vals, mask), got);
                Ok(())
            })
        })
    });
}

#[test]
fn fuzz_activemask() {
    let threads = prop_oneof![
        6 => len(),
        1 => Just(usize::MAX),
        1 => Just(1usize << 38),
        1 => Just(HOST_ALLOC_LIMIT / 8 + 1),
        1 => (u32::MAX as usize)..(u32::MAX as usize + 3),
    ];
    fuzz("activemask", (threads, mask_arg()), |t, (threads, m)| {
        let Ok(branch) = m.build(t.width()) else {
            return Ok(Tally::REFUSED);
        };
        let lanes = t.width().lanes() as usize;
        // 16 bytes per lane of the result: past the host limit is OutOfMemory.
        let fits = threads <= HOST_ALLOC_LIMIT / 16;
        let valid = branch.width() == t.width() && fits;
        let r = on!(t, |b| judged(
            "activemask",
            valid,
            b.activemask(threads, branch),
            |got| {
                prop_assert_eq!(got.len(), threads);
                for (i, r) in got.iter().enumerate() {
                    let allowed = reference::activemask_lanes(branch, threads, i / lanes);
                    let me = 1u64 << (i % lanes);
                    match r {
                        None => prop_assert!(allowed & me == 0, "lane {} got None", i),
                        Some(m) => {
                            prop_assert!(allowed & me != 0, "lane {} is not in the branch", i);
                            prop_assert!(m.bits() & me != 0 && m.bits() & !allowed == 0);
                        }
                    }
                }
                Ok(())
            }
        ));
        if !fits && branch.width() == t.width() {
            let e = on!(t, |b| Ok(match b.activemask(threads, branch) {
                Err(WavekitError::OutOfMemory { .. }) => Tally::REFUSED,
                _ => Tally::MATCHED,
            }))?;
            prop_assert_eq!(e, Tally::REFUSED, "{} threads: not OutOfMemory", threads);
        }
        r
    });
}

#[test]
fn fuzz_syncwarp_transpose() {
    fuzz("syncwarp_transpose", (len(), mask_arg()), |t, (n, m)| {
        let Ok(mask) = m.build(t.width()) else {
            return Ok(Tally::REFUSED);
        };
        let vals: Vec<i64> = inputs::values(n, n as u64);
        let valid = mask.width() == t.width();
        on!(t, |b| judged(
            "transpose",
            valid,
            b.syncwarp_transpose(&vals, mask),
            |got| { same_lanes(&reference::syncwarp_transpose(&vals, mask), &got) }
        ))
    });
}

#[test]
fn fuzz_tiles() {
    let s = (
        0u8..3,
        lane_count(),
        shfl_kind(),
        vote_kind(),
        op(),
        len(),
        lane_arg(),
    );
    fuzz("tile", s, |t, (which, tile, kind, vote, op, n, arg)| {
        let tile_ok = tile >= 2 && pow2_upto(tile, t.width().lanes());
        match which {
            0 => {
                let vals: Vec<f32> = inputs::values(n, 3);
                let w = t.width();
                on!(t, |b| judged(
                    "tile_shfl",
                    tile_ok,
                    b.tile_shfl(tile, kind, &vals, arg),
                    |got| { same_lanes(&reference::tile_shfl(tile, kind, &vals, arg, w), &got) }
                ))
            }
            1 => {
                let preds = inputs::bools(n, u64::from(arg as u32), 3);
                on!(t, |b| judged(
                    "tile_vote",
                    tile_ok,
                    b.tile_vote(tile, vote, &preds),
                    |got| {
                        let want: Vec<Option<VoteResult>> =
                            reference::tile_vote(tile, vote, &preds, t.width());
                        prop_assert_eq!(want, got);
                        Ok(())
                    }
                ))
            }
            _ => {
                let vals: Vec<f32> = inputs::values_with_specials(n, 5);
                let valid = tile_ok && op_ok::<f32>(op);
                on!(t, |b| judged(
                    "tile_reduce",
                    valid,
                    b.tile_reduce(tile, op, &vals),
                    |got| { same_lanes(&reference::tile_reduce(tile, op, &vals), &got) }
                ))
            }
        }
    });
}

#[test]
fn fuzz_warp_collectives() {
    let s = (
        any::<bool>(),
        any::<bool>(),
        lane_count(),
        op(),
        len(),
        any::<bool>(),
    );
    fuzz(
        "warp_reduce/scan",
        s,
        |t, (scan, floats, width, op, n, excl)| {
            let kind = if excl {
                ScanKind::Exclusive
            } else {
                ScanKind::Inclusive
            };
            let width_ok = pow2_upto(width, t.width().lanes());
            macro_rules! typed {
                ($T:ty) => {{
                    let vals: Vec<$T> = inputs::values_with_specials(n, u64::from(width));
                    let valid = width_ok && op_ok::<$T>(op);
                    if scan {
                        on!(t, |b| judged(
                            "warp_scan",
                            valid,
                            b.warp_scan(&vals, width, op, kind),
                            |got| { same(&reference::warp_scan(&vals, width, op, kind), &got) }
                        ))
                    } else {
                        on!(t, |b| judged(
                            "warp_reduce",
                            valid,
                            b.warp_reduce(&vals, width, op),
                            |got| { same(&reference::warp_reduce(&vals, width, op), &got) }
                        ))
                    }
                }};
            }
            if floats { typed!(f32) } else { typed!(u32) }
        },
    );
}
