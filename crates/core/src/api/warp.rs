//! The warp primitives ([`WarpPrimitives`]): one value per thread of a launch, a member mask
//! applied to every warp, and `None` for every lane whose result is undefined.

use super::check_mask;
use crate::backend::{Match, ScanKind, Shfl, Vote};
use crate::element::Element;
use crate::error::Result;
use crate::host;
use crate::lanes::{shfl_source, transpose_source};
use crate::mask::LaneMask;
use crate::raw::{RawBackend, Validated, WarpLaunch};
use crate::vocab::ReduceOp;
use crate::width::WarpWidth;

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
    /// // 16-bit floats add in f32 and round once: 2048 + 1 + 1 is 2050, where adding in f16
    /// // would round 2049 back to 2048 twice.
    /// let h = [2048.0f32, 1.0, 1.0].map(f16::from_f32);
    /// assert_eq!(cpu.warp_reduce(&h, 4, ReduceOp::Sum)?, [f16::from_f32(2050.0)]);
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
