//! The public, validated API: every backend gets it through these blanket-implemented traits,
//! so input checking and the marking of undefined lanes are written once.

use crate::backend::{Backend, DeviceBuffer, HistogramResult, Match, ScanKind, Shfl, Vote};
use crate::canonical::{MAX_BLOCK, MAX_VECTOR};
use crate::element::Element;
use crate::error::{Result, WavekitError};
use crate::host;
use crate::lanes::{shfl_source, transpose_source};
use crate::mask::LaneMask;
use crate::op::ReduceOp;
use crate::predicate::Predicate;
use crate::raw::{RawBackend, SegmentSpec, Validated, WarpLaunch};
use crate::width::{LOGICAL_GROUP, WarpWidth};

fn check_mask<B: Backend>(b: &B, mask: LaneMask) -> Result<()> {
    if mask.width() != b.warp_width() {
        return Err(WavekitError::MaskWidthMismatch {
            mask_width: mask.width().lanes(),
            warp: b.warp_width().lanes(),
        });
    }
    Ok(())
}

/// `Ok` when a length is the one expected; shared with backends that check again.
///
/// # Errors
/// `LengthMismatch` naming `what`, the expected and the actual length.
pub fn check_len(what: &'static str, expected: usize, got: usize) -> Result<()> {
    if expected == got {
        Ok(())
    } else {
        Err(WavekitError::LengthMismatch {
            what,
            expected,
            got,
        })
    }
}

/// Checks, before any work, that one result per thread fits in host memory: the backend's
/// per-lane output (at most 8 bytes a lane) and the API's `Option<R>` per lane.
fn check_threads<R>(threads: usize) -> Result<()> {
    host::check::<u64>(threads)?;
    host::check::<Option<R>>(threads)
}

/// The launch of a warp primitive over `threads` threads under `mask` (already checked against
/// the backend's width), or `None` when there are no threads (the call returns no results);
/// `OutOfMemory` when one `R` per thread does not fit in host memory.
fn launch_for<R>(threads: usize, mask: LaneMask) -> Result<Option<WarpLaunch>> {
    if threads == 0 {
        return Ok(None);
    }
    check_threads::<R>(threads)?;
    Ok(Some(WarpLaunch { threads, mask }))
}

/// `Some(value)` for members, `None` for lanes outside the mask or past the launch.
fn per_member<R>(
    launch: &WarpLaunch,
    mut value: impl FnMut(usize, u32) -> Option<R>,
) -> Result<Vec<Option<R>>> {
    let lanes = launch.mask.width().lanes() as usize;
    host::from_fn(launch.threads, |t| {
        let (w, l) = (t / lanes, (t % lanes) as u32);
        if launch.members(w).contains(l) {
            value(t, l)
        } else {
            None
        }
    })
}

/// Lanes of complete tiles get `Some`; a trailing partial tile has no defined result.
fn per_full_tile<R>(
    threads: usize,
    tile: u32,
    mut value: impl FnMut(usize) -> R,
) -> Result<Vec<Option<R>>> {
    let full = threads / tile as usize * tile as usize;
    host::from_fn(threads, |t| (t < full).then(|| value(t)))
}

fn vote_result(vote: Vote, bits: u64, width: WarpWidth) -> Result<VoteResult> {
    Ok(match vote {
        Vote::Ballot => VoteResult::Ballot(LaneMask::from_bits(bits, width)?),
        _ => VoteResult::Bool(bits != 0),
    })
}

/// What one lane gets from a vote: a flag for all/any/uni, a mask for ballot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoteResult {
    /// The result of `Vote::All`, `Vote::Any` or `Vote::Uni`.
    Bool(bool),
    /// The result of `Vote::Ballot`: the members whose predicate holds.
    Ballot(LaneMask),
}

/// match_any / match_all over the members, through the backend's raw match.
fn match_members<B: RawBackend, T: Element>(
    b: &B,
    kind: Match,
    vals: &[T],
    mask: LaneMask,
) -> Result<Vec<Option<(LaneMask, bool)>>> {
    check_mask(b, mask)?;
    let Some(launch) = launch_for::<(LaneMask, bool)>(vals.len(), mask)? else {
        return Ok(vec![]);
    };
    let raw = b.raw_match(Validated::new(), &launch, kind, vals)?;
    let width = b.warp_width();
    per_member(&launch, |t, _| {
        Some(LaneMask::from_bits(raw[t].0, width).map(|m| (m, raw[t].1)))
    })?
    .into_iter()
    .map(Option::transpose)
    .collect()
}

/// Warp-level primitives. Each takes one value per thread of a launch (its length is the
/// thread count) and a member mask applied to every warp.
pub trait WarpPrimitives: RawBackend {
    /// Votes (`__all_sync`, `__any_sync`, `__uni_sync`, `__ballot_sync`) over each warp's members.
    /// Every member of a warp gets the same result; lanes outside the mask get `None`.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let w = WarpWidth::W32;
    /// let cpu = CpuBackend::new(w);
    /// let preds: Vec<bool> = (0..32).map(|lane| lane % 2 == 0).collect();
    /// let full = LaneMask::full(w);
    ///
    /// let ballot = cpu.vote(Vote::Ballot, &preds, full)?;
    /// assert_eq!(ballot[7], Some(VoteResult::Ballot(LaneMask::from_bits(0x5555_5555, w)?)));
    /// assert_eq!(cpu.vote(Vote::Any, &preds, full)?[7], Some(VoteResult::Bool(true)));
    /// assert_eq!(cpu.vote(Vote::All, &preds, full)?[7], Some(VoteResult::Bool(false)));
    ///
    /// // Only the even lanes vote: all of them hold; the odd lanes get no result.
    /// let evens = LaneMask::from_fn(w, |lane| lane % 2 == 0);
    /// let all = cpu.vote(Vote::All, &preds, evens)?;
    /// assert_eq!((all[0], all[1]), (Some(VoteResult::Bool(true)), None));
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `MaskWidthMismatch` when `mask` is for the other warp width; `OutOfMemory` when one result
    /// per thread does not fit in host memory; a backend's `Device` error.
    fn vote(&self, vote: Vote, preds: &[bool], mask: LaneMask) -> Result<Vec<Option<VoteResult>>> {
        check_mask(self, mask)?;
        let Some(launch) = launch_for::<VoteResult>(preds.len(), mask)? else {
            return Ok(vec![]);
        };
        let raw = self.raw_vote(Validated::new(), &launch, vote, preds)?;
        let width = self.warp_width();
        per_member(&launch, |t, _| Some(vote_result(vote, raw[t], width)))?
            .into_iter()
            .map(Option::transpose)
            .collect()
    }

    /// `__shfl*_sync(mask, v, arg, width)`: `None` where the lane is not a member or reads a
    /// lane that is not one.
    ///
    /// `arg` is CUDA's `srcLane` (Idx), `delta` (Up, Down) or `laneMask` (Xor), any `i32`, read
    /// as the hardware reads it: its low log2(W) bits ([`hw_shfl_arg`](crate::lanes::hw_shfl_arg)),
    /// so a negative or huge argument gives CUDA's result (`srcLane` modulo `width`, a `delta` of
    /// the width or more the caller's own value). CUDA's unsigned `delta` is passed as its bits
    /// (`u32 as i32`), which have the same low bits.
    ///
    /// ```
    /// use wavekit_core::{LaneMask, Shfl, WarpPrimitives, WarpWidth::W32};
    /// # fn main() -> wavekit_core::Result<()> {
    /// let b = wavekit_cpu::CpuBackend::new(W32);
    /// let ids: Vec<u32> = (0..32).collect();
    /// let full = LaneMask::full(W32);
    /// // __shfl_sync(full, v, -1, 8): every lane reads the last lane of its 8-lane segment.
    /// let got = b.shfl(Shfl::Idx, &ids, -1, 8, full)?;
    /// assert_eq!(got[2], Some(7));
    /// assert_eq!(got[9], Some(15));
    /// // __shfl_down_sync(full, v, 33): 33 is 1 in five bits.
    /// assert_eq!(b.shfl(Shfl::Down, &ids, 33, 32, full)?[4], Some(5));
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// `MaskWidthMismatch`; `InvalidSubWidth` when `width` is not a power of two up to the warp
    /// (CUDA leaves that undefined); `OutOfMemory` when one result per thread does not fit in
    /// host memory; a backend's `Device` error.
    fn shfl<T: Element>(
        &self,
        kind: Shfl,
        vals: &[T],
        arg: i32,
        width: u32,
        mask: LaneMask,
    ) -> Result<Vec<Option<T>>> {
        check_mask(self, mask)?;
        let warp = self.warp_width();
        warp.check_sub_width(width)?;
        let Some(launch) = launch_for::<T>(vals.len(), mask)? else {
            return Ok(vec![]);
        };
        let raw = self.raw_shfl(Validated::new(), &launch, kind, vals, arg, width)?;
        let lanes = warp.lanes() as usize;
        per_member(&launch, |t, l| {
            let src = shfl_source(kind, l, arg, width, warp);
            launch.members(t / lanes).contains(src).then(|| raw[t])
        })
    }

    /// `__match_any_sync`: each member gets the members holding the same bits.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let w = WarpWidth::W32;
    /// let cpu = CpuBackend::new(w);
    /// let keys: Vec<u32> = (0..32).map(|lane| if lane % 2 == 0 { 7 } else { 9 }).collect();
    /// let groups = cpu.match_any(&keys, LaneMask::full(w))?;
    /// assert_eq!(groups[0], Some(LaneMask::from_fn(w, |lane| lane % 2 == 0)));
    /// assert_eq!(groups[1], Some(LaneMask::from_fn(w, |lane| lane % 2 == 1)));
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `MaskWidthMismatch`; `OutOfMemory` when one result per thread does not fit in host memory;
    /// a backend's `Device` error.
    fn match_any<T: Element>(&self, vals: &[T], mask: LaneMask) -> Result<Vec<Option<LaneMask>>> {
        let raw = match_members(self, Match::Any, vals, mask)?;
        raw.into_iter().map(|r| r.map(|(m, _)| m)).map(Ok).collect()
    }

    /// `__match_all_sync`: `(mask, true)` when every member holds the same bits, else
    /// `(empty, false)`.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let w = WarpWidth::W32;
    /// let cpu = CpuBackend::new(w);
    /// let full = LaneMask::full(w);
    /// assert_eq!(cpu.match_all(&[5u64; 32], full)?[4], Some((full, true)));
    /// let mut mixed = [5u64; 32];
    /// mixed[9] = 6;
    /// assert_eq!(cpu.match_all(&mixed, full)?[4], Some((LaneMask::empty(w), false)));
    /// // Without lane 9 the members agree again.
    /// let others = LaneMask::single(9, w)?.complement();
    /// assert_eq!(cpu.match_all(&mixed, others)?[4], Some((others, true)));
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `MaskWidthMismatch`; `OutOfMemory` when one result per thread does not fit in host memory;
    /// a backend's `Device` error.
    fn match_all<T: Element>(
        &self,
        vals: &[T],
        mask: LaneMask,
    ) -> Result<Vec<Option<(LaneMask, bool)>>> {
        match_members(self, Match::All, vals, mask)
    }

    /// `__activemask()` inside a branch taken by the lanes of `branch`. Guaranteed: the
    /// result holds the caller and only lanes of the branch; under independent thread
    /// scheduling it may hold fewer than all of them (seed 000), so nothing more is promised.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let w = WarpWidth::W32;
    /// let cpu = CpuBackend::new(w);
    /// let branch = LaneMask::from_fn(w, |lane| lane < 20);
    /// let seen = cpu.activemask(32, branch)?;
    /// for lane in 0..32u32 {
    ///     match seen[lane as usize] {
    ///         // What is guaranteed: the caller, and only lanes of the branch.
    ///         Some(m) => assert!(m.contains(lane) && m.intersect(branch.complement()).is_empty()),
    ///         None => assert!(!branch.contains(lane)),
    ///     }
    /// }
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `MaskWidthMismatch`; `OutOfMemory` when one result per thread does not fit in host memory
    /// (any `threads` past the host limit, up to `usize::MAX`); a backend's `Device` error.
    fn activemask(&self, threads: usize, branch: LaneMask) -> Result<Vec<Option<LaneMask>>> {
        check_mask(self, branch)?;
        let Some(launch) = launch_for::<LaneMask>(threads, branch)? else {
            return Ok(vec![]);
        };
        let raw = self.raw_activemask(Validated::new(), &launch)?;
        let width = self.warp_width();
        per_member(&launch, |t, _| Some(LaneMask::from_bits(raw[t], width)))?
            .into_iter()
            .map(Option::transpose)
            .collect()
    }

    /// Seed 000's `__syncwarp` transpose through shared memory: the warp as rows of 8 lanes
    /// (4 rows at 32 lanes, 8 at 64), written row-major and read column-major.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let w = WarpWidth::W32;
    /// let cpu = CpuBackend::new(w);
    /// let v: Vec<u32> = (0..32).collect();
    /// let t = cpu.syncwarp_transpose(&v, LaneMask::full(w))?;
    /// // Lane l reads the value stored by lane (l % 4) * 8 + l / 4.
    /// assert_eq!(t[..5], [Some(0), Some(8), Some(16), Some(24), Some(1)]);
    /// assert_eq!(t[31], Some(31));
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `MaskWidthMismatch`; `OutOfMemory` when one result per thread does not fit in host memory;
    /// a backend's `Device` error.
    fn syncwarp_transpose<T: Element>(&self, vals: &[T], mask: LaneMask) -> Result<Vec<Option<T>>> {
        check_mask(self, mask)?;
        let Some(launch) = launch_for::<T>(vals.len(), mask)? else {
            return Ok(vec![]);
        };
        let raw = self.raw_syncwarp_transpose(Validated::new(), &launch, vals)?;
        let width = self.warp_width();
        let lanes = width.lanes() as usize;
        per_member(&launch, |t, l| {
            launch
                .members(t / lanes)
                .contains(transpose_source(l, width))
                .then(|| raw[t])
        })
    }

    /// A shuffle within cooperative-group tiles of `tile` lanes (`tile.shfl(v, src)`,
    /// `shfl_up`, `shfl_down`, `shfl_xor`); lanes of a trailing partial tile get `None`.
    ///
    /// CUDA's tiles call `__shfl*_sync(tile_mask, v, arg, tile)`, so `arg` is read as in
    /// [`shfl`](Self::shfl) with `width = tile`: `tile.shfl(v, src)` reads rank `src % tile`
    /// (negative included), a `delta` of the tile or more keeps the caller's value. A Xor whose
    /// `laneMask` has bits at or above the tile may name a lane of an earlier tile, outside the
    /// tile's mask: undefined on hardware, `None` here.
    ///
    /// ```
    /// use wavekit_core::{Shfl, WarpPrimitives, WarpWidth::W32};
    /// # fn main() -> wavekit_core::Result<()> {
    /// let b = wavekit_cpu::CpuBackend::new(W32);
    /// let ids: Vec<u32> = (0..32).collect();
    /// // tiled_partition<4>: tile.shfl(v, 6) reads rank 6 % 4 = 2 of each tile.
    /// let got = b.tile_shfl(4, Shfl::Idx, &ids, 6)?;
    /// assert_eq!(&got[..8], &[2, 2, 2, 2, 6, 6, 6, 6].map(Some));
    /// // tile.shfl_down(v, 4) in a 4-lane tile: every lane keeps its own value.
    /// assert_eq!(b.tile_shfl(4, Shfl::Down, &ids, 4)?[1], Some(1));
    /// # Ok(()) }
    /// ```
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let v: Vec<i64> = (0..10).collect();
    /// // `tile.shfl_xor(v, 1)` in tiles of 4: threads 8 and 9 form a partial tile.
    /// let x = cpu.tile_shfl(4, Shfl::Xor, &v, 1)?;
    /// assert_eq!(x[..4], [Some(1), Some(0), Some(3), Some(2)]);
    /// assert_eq!(x[8..], [None, None]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidTileSize` when `tile` is not a power of two from 2 to the warp; `OutOfMemory`
    /// when one result per thread does not fit in host memory; a backend's `Device` error.
    fn tile_shfl<T: Element>(
        &self,
        tile: u32,
        kind: Shfl,
        vals: &[T],
        arg: i32,
    ) -> Result<Vec<Option<T>>> {
        let warp = self.warp_width();
        warp.check_tile(tile)?;
        check_threads::<T>(vals.len())?;
        let raw = if vals.is_empty() {
            vec![]
        } else {
            self.raw_tile_shfl(Validated::new(), vals.len(), tile, kind, vals, arg)?
        };
        let lanes = warp.lanes() as usize;
        Ok(per_full_tile(vals.len(), tile, |t| {
            let l = (t % lanes) as u32;
            let src = shfl_source(kind, l, arg, tile, warp);
            // The source never lies past the tile; only a Xor can name an earlier one.
            (src >= l & !(tile - 1)).then(|| raw[t])
        })?
        .into_iter()
        .map(Option::flatten)
        .collect())
    }

    /// A vote within tiles of `tile` lanes; Ballot bits are tile ranks.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let w = WarpWidth::W32;
    /// let cpu = CpuBackend::new(w);
    /// let preds: Vec<bool> = (0..16).map(|t| t % 3 == 0).collect();
    /// let ballot = cpu.tile_vote(8, Vote::Ballot, &preds)?;
    /// // Tile 0 holds threads 0, 3 and 6; tile 1 holds 9, 12 and 15, its ranks 1, 4 and 7.
    /// assert_eq!(ballot[0], Some(VoteResult::Ballot(LaneMask::from_bits(0b0100_1001, w)?)));
    /// assert_eq!(ballot[15], Some(VoteResult::Ballot(LaneMask::from_bits(0b1001_0010, w)?)));
    /// assert_eq!(cpu.tile_vote(8, Vote::All, &preds)?[3], Some(VoteResult::Bool(false)));
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidTileSize`; `OutOfMemory` when one result per thread does not fit in host memory; a
    /// backend's `Device` error.
    fn tile_vote(&self, tile: u32, vote: Vote, preds: &[bool]) -> Result<Vec<Option<VoteResult>>> {
        let width = self.warp_width();
        width.check_tile(tile)?;
        check_threads::<VoteResult>(preds.len())?;
        let raw = if preds.is_empty() {
            vec![]
        } else {
            self.raw_tile_vote(Validated::new(), preds.len(), tile, vote, preds)?
        };
        per_full_tile(preds.len(), tile, |t| vote_result(vote, raw[t], width))?
            .into_iter()
            .map(Option::transpose)
            .collect()
    }

    /// Every lane of a complete tile gets its tile's butterfly reduction.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let v: Vec<u32> = (1..=10).collect();
    /// let sums = cpu.tile_reduce(4, ReduceOp::Sum, &v)?;
    /// assert_eq!(sums[..4], [Some(10); 4]); // 1 + 2 + 3 + 4
    /// assert_eq!(sums[4..8], [Some(26); 4]); // 5 + 6 + 7 + 8
    /// assert_eq!(sums[8..], [None, None]); // a partial tile
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidTileSize`; `UnsupportedOp` for a bitwise op on floats; `OutOfMemory` when one
    /// result per thread does not fit in host memory; a backend's `Device` error.
    fn tile_reduce<T: Element>(
        &self,
        tile: u32,
        op: ReduceOp,
        vals: &[T],
    ) -> Result<Vec<Option<T>>> {
        self.warp_width().check_tile(tile)?;
        op.check::<T>()?;
        check_threads::<T>(vals.len())?;
        let raw = if vals.is_empty() {
            vec![]
        } else {
            self.raw_tile_reduce(Validated::new(), vals.len(), tile, op, vals)?
        };
        per_full_tile(vals.len(), tile, |t| raw[t])
    }

    /// One result per segment of `width` lanes; a short last segment reduces what it has.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let v: Vec<u64> = (0..40).collect();
    /// // Segments 0..16, 16..32 and the short 32..40.
    /// assert_eq!(cpu.warp_reduce(&v, 16, ReduceOp::Sum)?, [120, 376, 284]);
    /// assert_eq!(cpu.warp_reduce(&v, 32, ReduceOp::Max)?, [31, 39]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidSubWidth`; `UnsupportedOp` for a bitwise op on floats; `OutOfMemory`; a backend's
    /// `Device` error.
    fn warp_reduce<T: Element>(&self, vals: &[T], width: u32, op: ReduceOp) -> Result<Vec<T>> {
        self.warp_width().check_sub_width(width)?;
        op.check::<T>()?;
        if vals.is_empty() {
            return Ok(vec![]);
        }
        self.raw_warp_reduce(Validated::new(), vals, width, op)
    }

    /// `__reduce_{add,min,max,and,or,xor}_sync(mask, v)` (sm_80+), for every element type and
    /// op: every member of a warp gets the reduction over that warp's members; lanes outside
    /// the mask or past the launch get `None`.
    ///
    /// Integer results do not depend on the order (CUDA sm_80+ runs the hardware reduce for
    /// 32-bit integers, everything else a shuffle tree). Floats follow one canonical order on
    /// every device: the butterfly over the warp's W lanes, each non-member holding the op's
    /// identity (docs/SEMANTICS.md "warp_reduce_sync"), so a lone member's `-0.0` stays `-0.0`
    /// and a NaN member makes every member NaN.
    ///
    /// ```
    /// use wavekit_core::{LaneMask, ReduceOp, WarpPrimitives, WarpWidth::W32};
    /// # fn main() -> wavekit_core::Result<()> {
    /// let b = wavekit_cpu::CpuBackend::new(W32);
    /// let v: Vec<i32> = (0..32).collect();
    /// // __reduce_add_sync(0x55555555, v): the even lanes' sum, 0 + 2 + ... + 30.
    /// let even = LaneMask::from_bits(0x5555_5555, W32)?;
    /// let got = b.warp_reduce_sync(&v, ReduceOp::Sum, even)?;
    /// assert_eq!((got[0], got[30], got[1]), (Some(240), Some(240), None));
    /// let got = b.warp_reduce_sync(&v, ReduceOp::Max, LaneMask::from_bits(0b1011, W32)?)?;
    /// assert_eq!(&got[..4], &[Some(3), Some(3), None, Some(3)]);
    /// // One member: its own value, -0.0 included.
    /// let z = vec![-0.0f32; 32];
    /// let got = b.warp_reduce_sync(&z, ReduceOp::Sum, LaneMask::from_bits(1 << 5, W32)?)?;
    /// assert_eq!(got[5].map(f32::to_bits), Some((-0.0f32).to_bits()));
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// `MaskWidthMismatch`; `UnsupportedOp` for a bitwise op on floats; `OutOfMemory` when one
    /// result per thread does not fit in host memory; a backend's `Device` error.
    fn warp_reduce_sync<T: Element>(
        &self,
        vals: &[T],
        op: ReduceOp,
        mask: LaneMask,
    ) -> Result<Vec<Option<T>>> {
        check_mask(self, mask)?;
        op.check::<T>()?;
        let Some(launch) = launch_for::<T>(vals.len(), mask)? else {
            return Ok(vec![]);
        };
        let raw = self.raw_warp_reduce_sync(Validated::new(), &launch, op, vals)?;
        per_member(&launch, |t, _| Some(raw[t]))
    }

    /// Kogge-Stone scan within each segment of `width` lanes.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let ones = [1i32; 8];
    /// let incl = cpu.warp_scan(&ones, 4, ReduceOp::Sum, ScanKind::Inclusive)?;
    /// assert_eq!(incl, [1, 2, 3, 4, 1, 2, 3, 4]);
    /// let excl = cpu.warp_scan(&ones, 4, ReduceOp::Sum, ScanKind::Exclusive)?;
    /// assert_eq!(excl, [0, 1, 2, 3, 0, 1, 2, 3]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidSubWidth`; `UnsupportedOp` for a bitwise op on floats; `OutOfMemory`; a backend's
    /// `Device` error.
    fn warp_scan<T: Element>(
        &self,
        vals: &[T],
        width: u32,
        op: ReduceOp,
        kind: ScanKind,
    ) -> Result<Vec<T>> {
        self.warp_width().check_sub_width(width)?;
        op.check::<T>()?;
        if vals.is_empty() {
            return Ok(vec![]);
        }
        self.raw_warp_scan(Validated::new(), vals, width, op, kind)
    }
}

impl<B: RawBackend> WarpPrimitives for B {}

/// How many lanes share one segment or CSR row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VectorSize {
    /// Chosen from the input alone (never from the device): see `auto_vector`.
    Auto,
    /// This many lanes: a power of two from 1 to 32.
    Lanes(u32),
}

/// The documented rule for `VectorSize::Auto`: the power of two at or above half the mean
/// segment length, from 1 to 32 lanes.
pub fn auto_vector(total_items: usize, segments: usize) -> u32 {
    let mean = total_items.div_ceil(segments.max(1));
    (mean.div_ceil(2).max(1).next_power_of_two()).min(MAX_VECTOR as usize) as u32
}

fn resolve_vector(v: VectorSize, total_items: usize, segments: usize) -> Result<u32> {
    match v {
        VectorSize::Auto => Ok(auto_vector(total_items, segments)),
        VectorSize::Lanes(n) if n.is_power_of_two() && n <= MAX_VECTOR => Ok(n),
        VectorSize::Lanes(n) => Err(WavekitError::InvalidVectorSize(n)),
    }
}

/// Checks CSR-style offsets: `offsets[0] == 0`, never decreasing, last equal to `len`.
///
/// # Errors
/// `InvalidOffsets` naming the first offending offset.
pub fn check_offsets(offsets: &[u32], len: usize) -> Result<()> {
    let bad = |index: usize, reason: String| Err(WavekitError::InvalidOffsets { index, reason });
    if offsets.is_empty() {
        return bad(0, "at least one offset (0) is needed".into());
    }
    if offsets[0] != 0 {
        return bad(0, format!("the first offset must be 0, got {}", offsets[0]));
    }
    for (i, w) in offsets.windows(2).enumerate() {
        if w[1] < w[0] {
            return bad(
                i + 1,
                format!("offset {} is below the previous {}", w[1], w[0]),
            );
        }
    }
    let last = *offsets.last().expect("non-empty");
    if last as usize != len {
        return bad(
            offsets.len() - 1,
            format!("the last offset {last} must equal the length {len}"),
        );
    }
    Ok(())
}

fn check_u32_len(what: &'static str, len: usize) -> Result<()> {
    if len > u32::MAX as usize {
        return Err(WavekitError::TooLarge {
            what,
            value: len as u64,
            limit: u32::MAX as u64,
        });
    }
    Ok(())
}

/// Segments whose offsets were validated on the host and now live on the device.
pub struct Segments<B: Backend> {
    kind: SegKind<B>,
    vector: VectorSize,
}

enum SegKind<B: Backend> {
    Fixed(usize),
    Offsets {
        offsets: B::Buffer<u32>,
        count: usize,
        total: usize,
    },
}

impl<B: Backend> Segments<B> {
    /// Segments of `size` consecutive elements (seed 001's REDUCE_SIZE); the last may be short.
    ///
    /// # Errors
    /// `ZeroSegmentSize` when `size` is 0; `InvalidVectorSize` when `vector` is not a power of two
    /// up to 32.
    pub fn fixed(size: usize, vector: VectorSize) -> Result<Self> {
        if size == 0 {
            return Err(WavekitError::ZeroSegmentSize);
        }
        resolve_vector(vector, size, 1)?;
        Ok(Segments {
            kind: SegKind::Fixed(size),
            vector,
        })
    }

    /// Segment i is `[offsets[i], offsets[i + 1])`; offsets are checked against `len`.
    ///
    /// # Errors
    /// `InvalidOffsets` when the offsets do not start at 0, decrease or do not end at `len`;
    /// `InvalidVectorSize`; `OutOfMemory` or a backend's `Device` error uploading them.
    pub fn from_offsets(
        backend: &B,
        offsets: &[u32],
        len: usize,
        vector: VectorSize,
    ) -> Result<Self> {
        check_offsets(offsets, len)?;
        let count = offsets.len() - 1;
        resolve_vector(vector, len, count)?;
        Ok(Segments {
            kind: SegKind::Offsets {
                offsets: backend.upload(offsets)?,
                count,
                total: len,
            },
            vector,
        })
    }

    /// Segments over an input of `len` elements.
    pub fn count(&self, len: usize) -> usize {
        match &self.kind {
            SegKind::Fixed(size) => len.div_ceil(*size),
            SegKind::Offsets { count, .. } => *count,
        }
    }
}

/// A CSR matrix validated on the host and kept on the device.
pub struct Csr<B: Backend, T: Element> {
    rows: usize,
    cols: usize,
    row_offsets: B::Buffer<u32>,
    col_idx: B::Buffer<u32>,
    vals: B::Buffer<T>,
    nnz: usize,
}

impl<B: Backend, T: Element> Csr<B, T> {
    /// Checks a CSR matrix (`rows + 1` monotone row offsets ending at the nonzero count, one value per column index, every column below `cols`) and uploads it.
    ///
    /// # Errors
    /// `TooLarge` for `rows == usize::MAX` or more than `u32::MAX` nonzeros; `LengthMismatch` for
    /// row offsets other than `rows + 1` or values other than one per column index;
    /// `InvalidOffsets`; `ColumnOutOfRange` naming the first bad column index; `OutOfMemory` or a
    /// backend's `Device` error uploading.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// // [[2, 0, 1],
    /// //  [0, 0, 0],
    /// //  [0, 3, 0]]
    /// let a = Csr::new(&cpu, 3, 3, &[0, 2, 2, 3], &[0, 2, 1], &[2.0f64, 1.0, 3.0])?;
    /// assert_eq!((a.rows(), a.cols(), a.nnz()), (3, 3, 3));
    /// // A column index past the matrix is refused before anything is uploaded.
    /// let bad = Csr::new(&cpu, 3, 3, &[0, 2, 2, 3], &[0, 3, 1], &[2.0f64, 1.0, 3.0]);
    /// assert!(matches!(bad, Err(WavekitError::ColumnOutOfRange { index: 1, col: 3, .. })));
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    pub fn new(
        backend: &B,
        rows: usize,
        cols: usize,
        row_offsets: &[u32],
        col_idx: &[u32],
        vals: &[T],
    ) -> Result<Self> {
        let offsets = rows.checked_add(1).ok_or(WavekitError::TooLarge {
            what: "CSR rows",
            value: rows as u64,
            limit: u32::MAX as u64,
        })?;
        check_len("CSR row offsets (rows + 1)", offsets, row_offsets.len())?;
        check_len(
            "CSR values (one per column index)",
            col_idx.len(),
            vals.len(),
        )?;
        check_u32_len("CSR nonzeros", col_idx.len())?;
        check_offsets(row_offsets, col_idx.len())?;
        if let Some((index, &col)) = col_idx
            .iter()
            .enumerate()
            .find(|&(_, &c)| c as usize >= cols)
        {
            return Err(WavekitError::ColumnOutOfRange {
                index,
                col: col as u64,
                cols,
            });
        }
        Ok(Csr {
            rows,
            cols,
            row_offsets: backend.upload(row_offsets)?,
            col_idx: backend.upload(col_idx)?,
            vals: backend.upload(vals)?,
            nnz: col_idx.len(),
        })
    }

    /// Nonzero entries.
    pub fn nnz(&self) -> usize {
        self.nnz
    }

    /// Rows: the length of `y` in `spmv`.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns: the length of `x` in `spmv`.
    pub fn cols(&self) -> usize {
        self.cols
    }
}

/// The result of a compaction: the selected elements are `data[..len]`.
pub struct Compacted<B: Backend, T: Element> {
    /// The output buffer, as long as the input; only its first `len` elements are defined.
    pub data: B::Buffer<T>,
    /// Elements selected.
    pub len: usize,
}

/// Collectives over device buffers.
///
/// Every collective has one shape: inputs by reference, outputs `&mut` buffers the caller
/// allocated (the `_into` forms, and `scan` and `spmv`), and a returning convenience beside
/// it, implemented as the `_into` form plus a readback. Every length is checked before any
/// work; on an error the outputs are untouched. The table of all of them, with their output
/// lengths: docs/COLLECTIVES.md (`wavekit::collectives`).
///
/// Asynchronous work: on a backend with a queue (a GPU stream: CUDA, HIP) the `_into` forms,
/// `scan` and `spmv` only enqueue the work and return; the outputs hold the results once the
/// queue has run. Reading them with `download`, or calling `synchronize`, waits for it. An
/// error a kernel reports while it runs (its status word) surfaces at the next
/// `synchronize`, `download` or synchronous call on that backend, every check that can be
/// made on the host is made before the launch and returned at once. The returning
/// conveniences synchronise. On the CPU backend every call has finished when it returns.
///
/// Allocation: the `_into` forms allocate no device memory once the backend's workspace has
/// grown to the largest input seen (or was sized with `reserve`); the conveniences allocate
/// their outputs, except the one-value ones (`reduce`, `count_if`), whose slot the GPU
/// backend keeps.
pub trait Collectives: RawBackend {
    /// [`block_reduce_into`](Self::block_reduce_into) into a new host vector.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let input = cpu.upload(&(0..100).collect::<Vec<u32>>())?;
    /// // Blocks 0..64 and the short 64..100.
    /// assert_eq!(cpu.block_reduce(&input, 64, ReduceOp::Sum)?, [2016, 2934]);
    /// assert_eq!(cpu.block_reduce(&input, 64, ReduceOp::Max)?, [63, 99]);
    /// assert!(cpu.block_reduce(&input, 48, ReduceOp::Sum).is_err()); // not a multiple of 32
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedOp` for a bitwise op on floats; `InvalidBlockSize` when `block` is not a
    /// multiple of 32 from 32 to 1024; `ForeignBuffer`; `OutOfMemory`; a backend's `Device` error.
    fn block_reduce<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        block: u32,
        op: ReduceOp,
    ) -> Result<Vec<T>> {
        check_block_reduce::<T>(block, op)?;
        let mut out = self.alloc::<T>(input.len().div_ceil(block as usize))?;
        self.block_reduce_into(input, block, op, &mut out)?;
        self.download(&out)
    }

    /// One canonical-order result per block of `block` consecutive elements (the last block
    /// padded with the op's identity) into `out`, which holds `ceil(n / block)` elements.
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, ReduceOp, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let input = b.upload(&[1u32; 100])?;
    /// let mut sums = b.alloc::<u32>(4)?; // ceil(100 / 32)
    /// b.block_reduce_into(&input, 32, ReduceOp::Sum, &mut sums)?;
    /// assert_eq!(b.download(&sums)?, [32, 32, 32, 4]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedOp`; `InvalidBlockSize`; `LengthMismatch` when `out` is not `ceil(n / block)`
    /// long; `ForeignBuffer`; a backend's `Device` error.
    fn block_reduce_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        block: u32,
        op: ReduceOp,
        out: &mut Self::Buffer<T>,
    ) -> Result<()> {
        check_block_reduce::<T>(block, op)?;
        check_len(
            "block reduce output (one per block)",
            input.len().div_ceil(block as usize),
            out.len(),
        )?;
        if input.is_empty() {
            return Ok(());
        }
        self.raw_block_reduce(Validated::new(), input, block, op, out)
    }

    /// [`reduce_into`](Self::reduce_into), read back: the canonical-order reduction of the
    /// whole buffer, the same bits on every backend and at every warp width, floats included
    /// (docs/SEMANTICS.md, "device_reduce").
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let data: Vec<i64> = (1..=1000).collect();
    /// let input = cpu.upload(&data)?;
    /// assert_eq!(cpu.reduce(&input, ReduceOp::Sum)?, 500_500);
    /// assert_eq!(cpu.reduce(&input, ReduceOp::Max)?, 1000);
    /// let halves = cpu.upload(&vec![0.5f32; 10_000])?;
    /// assert_eq!(cpu.reduce(&halves, ReduceOp::Sum)?, 5000.0);
    /// // An empty input has no result: an error, not the identity.
    /// assert!(cpu.reduce(&cpu.upload::<f32>(&[])?, ReduceOp::Sum).is_err());
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedOp`; `EmptyInput` for an empty buffer; `ForeignBuffer`; `OutOfMemory`; a
    /// backend's `Device` error.
    fn reduce<T: Element>(&self, input: &Self::Buffer<T>, op: ReduceOp) -> Result<T> {
        self.raw_scalar(Validated::new(), |out| self.reduce_into(input, op, out))
    }

    /// Canonical-order reduction of the whole buffer into `out` (one element).
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, ReduceOp, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let input = b.upload(&[1.0f32, 2.0, 3.0])?;
    /// let mut sum = b.alloc::<f32>(1)?;
    /// b.reduce_into(&input, ReduceOp::Sum, &mut sum)?;
    /// assert_eq!(b.download(&sum)?, [6.0]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedOp`; `LengthMismatch` when `out` is not one element; `EmptyInput` for an
    /// empty buffer; `ForeignBuffer`; a backend's `Device` error.
    fn reduce_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        op: ReduceOp,
        out: &mut Self::Buffer<T>,
    ) -> Result<()> {
        op.check::<T>()?;
        check_len("reduce output (one element)", 1, out.len())?;
        if input.is_empty() {
            return Err(WavekitError::EmptyInput {
                what: "device reduce input",
            });
        }
        self.raw_device_reduce(Validated::new(), input, op, out)
    }

    /// Canonical device scan of `input` into `output` (same length).
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, ReduceOp, ScanKind, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let input = b.upload(&[1u32, 2, 3, 4])?;
    /// let mut out = b.alloc::<u32>(4)?;
    /// b.scan(&input, &mut out, ReduceOp::Sum, ScanKind::Exclusive)?;
    /// assert_eq!(b.download(&out)?, [0, 1, 3, 6]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedOp`; `LengthMismatch` when `output` is not `input`'s length (`output` is then
    /// untouched); `ForeignBuffer`; `OutOfMemory`; a backend's `Device` error.
    fn scan<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        output: &mut Self::Buffer<T>,
        op: ReduceOp,
        kind: ScanKind,
    ) -> Result<()> {
        op.check::<T>()?;
        check_len("scan output", input.len(), output.len())?;
        if input.is_empty() {
            return Ok(());
        }
        self.raw_device_scan(Validated::new(), input, output, op, kind)
    }

    /// [`segmented_reduce_into`](Self::segmented_reduce_into) into a new buffer of one
    /// element per segment; synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let input = cpu.upload(&(0..8).collect::<Vec<i32>>())?;
    /// // Segments of 3: 0..3, 3..6 and the short 6..8.
    /// let fixed = Segments::fixed(3, VectorSize::Auto)?;
    /// let sums = cpu.segmented_reduce(&input, &fixed, ReduceOp::Sum)?;
    /// assert_eq!(cpu.download(&sums)?, [3, 12, 13]);
    /// // Segments 0..2, 2..2 (empty: the identity) and 2..8, four lanes a segment.
    /// let ragged = Segments::from_offsets(&cpu, &[0, 2, 2, 8], 8, VectorSize::Lanes(4))?;
    /// let sums = cpu.segmented_reduce(&input, &ragged, ReduceOp::Sum)?;
    /// assert_eq!(cpu.download(&sums)?, [1, 0, 27]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedOp`; `LengthMismatch` when offset segments were built for another length;
    /// `ForeignBuffer`; `OutOfMemory`; a backend's `Device` error.
    fn segmented_reduce<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        segments: &Segments<Self>,
        op: ReduceOp,
    ) -> Result<Self::Buffer<T>> {
        // Every check before the allocation, empty segment lists included.
        segment_spec::<Self, T>(input.len(), segments, op)?;
        let mut output = self.alloc::<T>(segments.count(input.len()))?;
        self.segmented_reduce_into(input, segments, op, &mut output)?;
        self.synchronize()?;
        Ok(output)
    }

    /// One result per segment into `out` (one element per segment); an empty segment yields
    /// the op's identity.
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, ReduceOp, Segments, VectorSize, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let input = b.upload(&[1u32, 2, 3, 4, 5])?;
    /// let segments = Segments::from_offsets(&b, &[0, 2, 2, 5], 5, VectorSize::Auto)?;
    /// let mut sums = b.alloc::<u32>(3)?;
    /// b.segmented_reduce_into(&input, &segments, ReduceOp::Sum, &mut sums)?;
    /// assert_eq!(b.download(&sums)?, [3, 0, 12]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedOp`; `LengthMismatch` when offset segments were built for another length or
    /// `out` is not one element per segment; `ForeignBuffer`; a backend's `Device` error.
    fn segmented_reduce_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        segments: &Segments<Self>,
        op: ReduceOp,
        out: &mut Self::Buffer<T>,
    ) -> Result<()> {
        let spec = segment_spec::<Self, T>(input.len(), segments, op)?;
        let count = segments.count(input.len());
        check_len(
            "segmented reduce output (one per segment)",
            count,
            out.len(),
        )?;
        if count == 0 {
            return Ok(());
        }
        self.raw_segmented_reduce(Validated::new(), input, spec, op, out)
    }

    /// y = A x, `vector` lanes per row (seed 001).
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, Csr, VectorSize, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// // [[1, 0], [2, 3]]
    /// let a = Csr::new(&b, 2, 2, &[0, 1, 3], &[0, 0, 1], &[1.0f32, 2.0, 3.0])?;
    /// let x = b.upload(&[1.0f32, 10.0])?;
    /// let mut y = b.alloc::<f32>(2)?;
    /// b.spmv(&a, &x, &mut y, VectorSize::Auto)?;
    /// assert_eq!(b.download(&y)?, [1.0, 32.0]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` when `x` is not `a.cols()` long or `y` not `a.rows()` long;
    /// `InvalidVectorSize`; `ForeignBuffer`; `OutOfMemory`; a backend's `Device` error. On error
    /// `y` is untouched.
    fn spmv<T: Element>(
        &self,
        a: &Csr<Self, T>,
        x: &Self::Buffer<T>,
        y: &mut Self::Buffer<T>,
        vector: VectorSize,
    ) -> Result<()> {
        check_len("SpMV x (matrix columns)", a.cols, x.len())?;
        check_len("SpMV y (matrix rows)", a.rows, y.len())?;
        let v = resolve_vector(vector, a.nnz, a.rows)?;
        if a.rows == 0 {
            return Ok(());
        }
        self.raw_spmv(
            Validated::new(),
            &a.row_offsets,
            &a.col_idx,
            &a.vals,
            x,
            y,
            v,
        )
    }

    /// [`atomic_agg_inc_into`](Self::atomic_agg_inc_into) with a new buffer of old values;
    /// synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let slots = cpu.upload(&[0u32, 1, 0, 0, 1])?;
    /// let mut counters = cpu.upload(&[10u32, 20])?;
    /// let olds = cpu.atomic_agg_inc(&slots, &mut counters)?;
    /// // Threads of one warp sharing a slot get consecutive values in lane order.
    /// assert_eq!(cpu.download(&olds)?, [10, 20, 11, 12, 21]);
    /// assert_eq!(cpu.download(&counters)?, [13, 22]);
    /// // A slot past the counters is refused and no counter moves.
    /// let bad = cpu.upload(&[0u32, 5])?;
    /// assert!(cpu.atomic_agg_inc(&bad, &mut counters).is_err());
    /// assert_eq!(cpu.download(&counters)?, [13, 22]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `EmptyInput` for slots with no counters; `IndexOutOfRange` naming the first slot (in thread
    /// order) past the counters, in which case no counter changed; `ForeignBuffer`; `OutOfMemory`;
    /// a backend's `Device` error.
    fn atomic_agg_inc(
        &self,
        slots: &Self::Buffer<u32>,
        counters: &mut Self::Buffer<u32>,
    ) -> Result<Self::Buffer<u32>> {
        check_counters::<Self>(slots, counters)?;
        let mut olds = self.alloc::<u32>(slots.len())?;
        self.atomic_agg_inc_into(slots, counters, &mut olds)?;
        self.synchronize()?;
        Ok(olds)
    }

    /// Seed 000's atomicAggInc per thread: thread t adds one to `counters[slots[t]]` through
    /// its warp's leader and gets the counter's old value in `olds[t]` (one per slot). All or
    /// nothing: every slot is checked first, which on a GPU waits for one 8-byte readback (the
    /// count of bad slots) before the increment is enqueued.
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let slots = b.upload(&[0u32, 1, 0])?;
    /// let mut counters = b.upload(&[10u32, 20])?;
    /// let mut olds = b.alloc::<u32>(3)?;
    /// b.atomic_agg_inc_into(&slots, &mut counters, &mut olds)?;
    /// assert_eq!(b.download(&counters)?, [12, 21]);
    /// let mut olds = b.download(&olds)?;
    /// olds.sort(); // which thread of slot 0 went first is not defined
    /// assert_eq!(olds, [10, 11, 20]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` when `olds` is not one per slot; `EmptyInput` for slots with no
    /// counters; `IndexOutOfRange` naming the first slot (in thread order) past the counters,
    /// in which case no counter changed; `ForeignBuffer`; a backend's `Device` error.
    fn atomic_agg_inc_into(
        &self,
        slots: &Self::Buffer<u32>,
        counters: &mut Self::Buffer<u32>,
        olds: &mut Self::Buffer<u32>,
    ) -> Result<()> {
        check_len(
            "atomic_agg_inc olds (one per slot)",
            slots.len(),
            olds.len(),
        )?;
        check_counters::<Self>(slots, counters)?;
        if slots.is_empty() {
            return Ok(());
        }
        self.raw_atomic_agg_inc(Validated::new(), slots, counters, olds)
    }

    /// [`count_if_into`](Self::count_if_into), read back.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let input = cpu.upload(&[1.5f32, -2.0, f32::NAN, 4.0, 0.0])?;
    /// assert_eq!(cpu.count_if(&input, Predicate::Gt(0.0))?, 2);
    /// assert_eq!(cpu.count_if(&input, Predicate::InRange(-3.0, 2.0))?, 3);
    /// // IEEE comparisons: NaN is only ever `Ne`.
    /// assert_eq!(cpu.count_if(&input, Predicate::Ne(1.5))?, 4);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `ForeignBuffer`; `OutOfMemory`; a backend's `Device` error.
    fn count_if<T: Element>(&self, input: &Self::Buffer<T>, pred: Predicate<T>) -> Result<u64> {
        self.raw_scalar(Validated::new(), |out| self.count_if_into(input, pred, out))
    }

    /// The number of elements for which `pred` holds, into `out` (one element; 0 for an
    /// empty input).
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, Predicate, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let input = b.upload(&[5u32, 50, 7, 70])?;
    /// let mut count = b.alloc::<u64>(1)?;
    /// b.count_if_into(&input, Predicate::Ge(10), &mut count)?;
    /// assert_eq!(b.download(&count)?, [2]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` when `out` is not one element; `ForeignBuffer`; a backend's `Device`
    /// error.
    fn count_if_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        pred: Predicate<T>,
        out: &mut Self::Buffer<u64>,
    ) -> Result<()> {
        check_len("count_if output (one element)", 1, out.len())?;
        self.raw_count_if(Validated::new(), input, pred, out)
    }

    /// [`compact_into`](Self::compact_into) into a new buffer of the input's length, with the
    /// count read back.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let input = cpu.upload(&[5i32, -1, 7, 0, -3, 2])?;
    /// let kept = cpu.compact(&input, Predicate::Gt(0), true)?;
    /// assert_eq!(kept.len, 3);
    /// assert_eq!(cpu.download(&kept.data)?[..kept.len], [5, 7, 2]);
    /// // Unordered: the same elements, in an order that may vary.
    /// let any = cpu.compact(&input, Predicate::Gt(0), false)?;
    /// let mut got = cpu.download(&any.data)?[..any.len].to_vec();
    /// got.sort();
    /// assert_eq!(got, [2, 5, 7]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `ForeignBuffer`; `OutOfMemory`; a backend's `Device` error.
    fn compact<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        pred: Predicate<T>,
        stable: bool,
    ) -> Result<Compacted<Self, T>> {
        let mut data = self.alloc::<T>(input.len())?;
        let len = self.raw_scalar(Validated::new(), |count| {
            self.compact_into(input, pred, stable, &mut data, count)
        })?;
        Ok(Compacted {
            data,
            len: len as usize,
        })
    }

    /// Stream compaction: the selected elements to the front of `out` (the input's length)
    /// and how many into `count` (one element); `stable` keeps their order, otherwise only the
    /// multiset is defined. The elements of `out` past the count are left as they were.
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, Predicate, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let input = b.upload(&[5u32, 50, 7, 70])?;
    /// let mut out = b.upload(&[0u32; 4])?;
    /// let mut count = b.alloc::<u64>(1)?;
    /// b.compact_into(&input, Predicate::Ge(10), true, &mut out, &mut count)?;
    /// assert_eq!(b.download(&count)?, [2]);
    /// assert_eq!(b.download(&out)?, [50, 70, 0, 0]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` when `out` is not the input's length or `count` not one element;
    /// `ForeignBuffer`; a backend's `Device` error.
    fn compact_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        pred: Predicate<T>,
        stable: bool,
        out: &mut Self::Buffer<T>,
        count: &mut Self::Buffer<u64>,
    ) -> Result<()> {
        check_len(
            "compaction output (the input's length)",
            input.len(),
            out.len(),
        )?;
        check_len("compaction count (one element)", 1, count.len())?;
        self.raw_compact(Validated::new(), input, pred, stable, out, count)
    }

    /// [`histogram_into`](Self::histogram_into) into new host vectors: the counts of each key
    /// below `bins`; larger keys are counted in `outside`.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let keys = cpu.upload(&[0u32, 1, 1, 3, 7])?;
    /// let h = cpu.histogram(&keys, 4)?;
    /// assert_eq!(h.counts, [1, 2, 0, 1]);
    /// assert_eq!(h.outside, 1); // the 7
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `ZeroBins`; `OutOfMemory` when `bins + 1` counts do not fit in host memory (`u32::MAX`
    /// bins, keys or not); `ForeignBuffer`; a backend's `Device` error.
    fn histogram(&self, keys: &Self::Buffer<u32>, bins: u32) -> Result<HistogramResult> {
        if bins == 0 {
            return Err(WavekitError::ZeroBins);
        }
        // The counts and the outside slot, as one host vector (and one device one).
        let slots = bins as usize + 1;
        host::check::<u64>(slots)?;
        let mut counts = self.alloc::<u64>(slots)?;
        self.histogram_into(keys, bins, &mut counts)?;
        let mut counts = self.download(&counts)?;
        let outside = counts.pop().expect("bins + 1 counts");
        Ok(HistogramResult { counts, outside })
    }

    /// Counts of each key below `bins` into `counts[..bins]` and of every other key into
    /// `counts[bins]` (`bins + 1` elements, the last is `outside`); no keys write zeros.
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let keys = b.upload(&[0u32, 2, 2, 9])?;
    /// let mut counts = b.alloc::<u64>(4)?; // 3 bins + outside
    /// b.histogram_into(&keys, 3, &mut counts)?;
    /// assert_eq!(b.download(&counts)?, [1, 0, 2, 1]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `ZeroBins`; `LengthMismatch` when `counts` is not `bins + 1` long; `ForeignBuffer`; a
    /// backend's `Device` error.
    fn histogram_into(
        &self,
        keys: &Self::Buffer<u32>,
        bins: u32,
        counts: &mut Self::Buffer<u64>,
    ) -> Result<()> {
        if bins == 0 {
            return Err(WavekitError::ZeroBins);
        }
        check_len(
            "histogram counts (bins + 1, the last for keys outside)",
            bins as usize + 1,
            counts.len(),
        )?;
        self.raw_histogram(Validated::new(), keys, bins, counts)
    }

    /// Host convenience: upload, run, download.
    ///
    /// # Errors
    /// `LengthMismatch` when `data` is not the buffer's length (the buffer is then untouched);
    /// `ForeignBuffer`; a backend's `Device` error.
    fn write_from<T: Element>(&self, buf: &mut Self::Buffer<T>, data: &[T]) -> Result<()> {
        check_len("write source", buf.len(), data.len())?;
        self.write(buf, data)
    }
}

fn check_block_reduce<T: Element>(block: u32, op: ReduceOp) -> Result<()> {
    op.check::<T>()?;
    if !block.is_multiple_of(LOGICAL_GROUP) || block == 0 || block > MAX_BLOCK {
        return Err(WavekitError::InvalidBlockSize(block));
    }
    Ok(())
}

fn check_counters<B: Backend>(slots: &B::Buffer<u32>, counters: &B::Buffer<u32>) -> Result<()> {
    if counters.is_empty() && !slots.is_empty() {
        return Err(WavekitError::EmptyInput {
            what: "atomic counters",
        });
    }
    Ok(())
}

/// The checked segments of a segmented reduce over `len` elements.
fn segment_spec<B: Backend, T: Element>(
    len: usize,
    segments: &Segments<B>,
    op: ReduceOp,
) -> Result<SegmentSpec<'_, B::Buffer<u32>>> {
    op.check::<T>()?;
    let count = segments.count(len);
    Ok(match &segments.kind {
        SegKind::Fixed(size) => SegmentSpec::Fixed {
            size: *size,
            count,
            vector: resolve_vector(segments.vector, (*size).min(len), 1)?,
        },
        SegKind::Offsets {
            offsets,
            count,
            total,
        } => {
            check_len(
                "segmented reduce input (the offsets' last value)",
                *total,
                len,
            )?;
            SegmentSpec::Offsets {
                offsets,
                count: *count,
                vector: resolve_vector(segments.vector, len, *count)?,
            }
        }
    })
}

impl<B: RawBackend> Collectives for B {}
