//! The `Backend` trait: what each backend (cpu, cuda, hip) implements.
//!
//! Methods here take arguments the public layer (`crate::api`) has already validated, so a
//! backend never sees a bad width, mask, length or index; results for lanes whose value is
//! undefined are unspecified here and turned into `None` by the public layer.

use crate::element::Element;
use crate::error::Result;
use crate::mask::LaneMask;
use crate::op::{Predicate, ReduceOp};
use crate::width::WarpWidth;

/// Memory that lives on a backend's device between calls.
pub trait DeviceBuffer<T: Element>: Send + Sync {
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A launch of `threads` threads split into warps of the backend's width. Every warp uses
/// `mask` as its member mask; lanes past `threads` in the last warp are not members.
#[derive(Clone, Copy, Debug)]
pub struct WarpLaunch {
    pub threads: usize,
    pub mask: LaneMask,
}

impl WarpLaunch {
    /// The member mask of warp `w`: `mask` less the lanes that do not exist.
    pub fn members(&self, warp: usize) -> LaneMask {
        let width = self.mask.width();
        let lanes = width.lanes() as usize;
        let live = self.threads.saturating_sub(warp * lanes).min(lanes) as u32;
        let live_bits = if live as usize == lanes {
            width.full_bits()
        } else {
            (1u64 << live) - 1
        };
        LaneMask::from_bits(self.mask.bits() & live_bits, width).expect("subset of a valid mask")
    }

    pub fn warps(&self) -> usize {
        self.threads.div_ceil(self.mask.width().lanes() as usize)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Vote {
    All = 0,
    Any = 1,
    Uni = 2,
    Ballot = 3,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Shfl {
    /// Read lane `arg % width` of the caller's width segment.
    Idx = 0,
    /// Read lane `lane - arg`, or keep the caller's value below the segment start.
    Up = 1,
    /// Read lane `lane + arg`, or keep the caller's value at or past the segment end.
    Down = 2,
    /// Read lane `lane ^ arg`, or keep the caller's value if that lies past the segment.
    Xor = 3,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Match {
    Any = 0,
    All = 1,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScanKind {
    Inclusive,
    Exclusive,
}

/// Segments of a segmented reduce, already validated. `vector` lanes share a segment.
#[derive(Clone, Copy, Debug)]
pub enum SegmentSpec<'a, O> {
    /// `count` segments of `size` consecutive elements; the last may be shorter.
    Fixed {
        size: usize,
        count: usize,
        vector: u32,
    },
    /// Segment i is `[offsets[i], offsets[i+1])`; `count + 1` offsets, monotone, in range.
    Offsets {
        offsets: &'a O,
        count: usize,
        vector: u32,
    },
}

pub struct HistogramResult {
    pub counts: Vec<u64>,
    /// Keys at or beyond the bin count, counted here instead of dropped.
    pub outside: u64,
}

pub trait Backend: Send + Sync + Sized {
    type Buffer<T: Element>: DeviceBuffer<T>;

    /// A short name with the device, such as `cpu/w32` or `cuda:0 (NVIDIA H100)`.
    fn name(&self) -> String;
    /// The device's warp width, read at run time.
    fn warp_width(&self) -> WarpWidth;
    /// Waits for all work queued on the device.
    fn synchronize(&self) -> Result<()>;

    /// A buffer of `len` zeroed elements.
    fn alloc<T: Element>(&self, len: usize) -> Result<Self::Buffer<T>>;
    fn upload<T: Element>(&self, data: &[T]) -> Result<Self::Buffer<T>>;
    fn download<T: Element>(&self, buf: &Self::Buffer<T>) -> Result<Vec<T>>;
    /// Overwrites `buf` with `data` (same length, checked by the caller).
    fn write<T: Element>(&self, buf: &mut Self::Buffer<T>, data: &[T]) -> Result<()>;

    // ---- warp primitives: one value per lane of the launch ----
    /// Vote results as bits: 0/1 for all/any/uni, the ballot mask for Ballot.
    fn raw_vote(&self, launch: &WarpLaunch, vote: Vote, preds: &[bool]) -> Result<Vec<u64>>;
    fn raw_shfl<T: Element>(
        &self,
        launch: &WarpLaunch,
        kind: Shfl,
        vals: &[T],
        arg: u32,
        width: u32,
    ) -> Result<Vec<T>>;
    /// match_any: the mask of members holding the same bits. match_all: (mask or 0, pred).
    fn raw_match<T: Element>(
        &self,
        launch: &WarpLaunch,
        kind: Match,
        vals: &[T],
    ) -> Result<Vec<(u64, bool)>>;
    /// `__activemask()` called by the member lanes inside a branch that only they take.
    fn raw_activemask(&self, launch: &WarpLaunch) -> Result<Vec<u64>>;
    /// Seed 000's transpose: members store, `__syncwarp(mask)`, then read the transposed slot.
    fn raw_syncwarp_transpose<T: Element>(&self, launch: &WarpLaunch, vals: &[T])
    -> Result<Vec<T>>;
    /// Tile-level shuffle over tiles of `tile` lanes (`arg` as in `raw_shfl`, width = tile).
    fn raw_tile_shfl<T: Element>(
        &self,
        threads: usize,
        tile: u32,
        kind: Shfl,
        vals: &[T],
        arg: u32,
    ) -> Result<Vec<T>>;
    /// Tile-level vote; Ballot bits are tile ranks.
    fn raw_tile_vote(
        &self,
        threads: usize,
        tile: u32,
        vote: Vote,
        preds: &[bool],
    ) -> Result<Vec<u64>>;
    /// Tile-level reduce: every lane of a tile gets the tile's butterfly result.
    fn raw_tile_reduce<T: Element>(
        &self,
        threads: usize,
        tile: u32,
        op: ReduceOp,
        vals: &[T],
    ) -> Result<Vec<T>>;

    // ---- warp collectives over sub-width segments (identity pads a short last segment) ----
    /// One butterfly result per segment of `width` lanes.
    fn raw_warp_reduce<T: Element>(&self, vals: &[T], width: u32, op: ReduceOp) -> Result<Vec<T>>;
    /// Kogge-Stone scan within each segment of `width` lanes.
    fn raw_warp_scan<T: Element>(
        &self,
        vals: &[T],
        width: u32,
        op: ReduceOp,
        kind: ScanKind,
    ) -> Result<Vec<T>>;

    // ---- device collectives on buffers ----
    /// One result per block of `block` consecutive elements (identity pads the last).
    fn raw_block_reduce<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        block: u32,
        op: ReduceOp,
    ) -> Result<Vec<T>>;
    /// Canonical device reduce of a non-empty buffer.
    fn raw_device_reduce<T: Element>(&self, input: &Self::Buffer<T>, op: ReduceOp) -> Result<T>;
    /// Canonical device scan; `output` has the input's length.
    fn raw_device_scan<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        output: &mut Self::Buffer<T>,
        op: ReduceOp,
        kind: ScanKind,
    ) -> Result<()>;
    fn raw_segmented_reduce<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        segments: SegmentSpec<'_, Self::Buffer<u32>>,
        op: ReduceOp,
        output: &mut Self::Buffer<T>,
    ) -> Result<()>;
    /// y = A x for a validated CSR matrix, `vector` lanes per row.
    #[allow(clippy::too_many_arguments)]
    fn raw_spmv<T: Element>(
        &self,
        row_offsets: &Self::Buffer<u32>,
        cols: &Self::Buffer<u32>,
        vals: &Self::Buffer<T>,
        x: &Self::Buffer<T>,
        y: &mut Self::Buffer<T>,
        vector: u32,
    ) -> Result<()>;
    /// Seed 000's atomicAggInc: each thread increments `counters[slots[t]]` by one through
    /// its warp's leader and gets its own old value. Returns Err(IndexOutOfRange) for a slot
    /// past the counters, leaving that thread's counter untouched.
    fn raw_atomic_agg_inc(
        &self,
        slots: &Self::Buffer<u32>,
        counters: &mut Self::Buffer<u32>,
        olds: &mut Self::Buffer<u32>,
    ) -> Result<()>;
    fn raw_count_if<T: Element>(&self, input: &Self::Buffer<T>, pred: Predicate<T>) -> Result<u64>;
    /// Writes the selected elements to the front of `output` and returns how many.
    /// Stable keeps input order; unordered keeps the multiset only.
    fn raw_compact<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        pred: Predicate<T>,
        stable: bool,
        output: &mut Self::Buffer<T>,
    ) -> Result<usize>;
    fn raw_histogram(&self, keys: &Self::Buffer<u32>, bins: u32) -> Result<HistogramResult>;
}
