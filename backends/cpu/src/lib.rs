//! wavekit-cpu: the rayon CPU backend, wavekit's reference oracle and a real backend for users.
//!
//! How it fits: it implements wavekit-core's `Backend` and `RawBackend` directly on host
//! memory, independently of the GPU kernels (it shares no code with csrc/), so the conformance
//! suite compares two separate implementations of docs/SEMANTICS.md.
//!
//! It computes every lane and every combining tree exactly as docs/SEMANTICS.md defines them,
//! parallel over warps, tiles, blocks and segments, combining in the defined order only, so a
//! result never depends on rayon's scheduling.

mod activemask;
mod atomic_agg_inc;
mod block_reduce;
mod combine;
mod compact;
mod compact_simd;
mod count_if;
mod device_reduce;
mod device_reduce_simd;
mod device_scan;
mod device_scan_int_simd;
mod device_scan_simd;
mod device_scan_tile;
mod features;
mod histogram;
mod lookback;
mod r#match;
mod memory;
mod order_free;
mod order_free_simd;
mod scratch;
mod segmented_reduce;
mod shfl;
mod spmv;
mod syncwarp_transpose;
mod tile;
mod vector;
mod vote;
mod warp_lanes;
mod warp_reduce;
mod warp_reduce_sync;
mod warp_scan;

#[cfg(test)]
mod tests;

use scratch::Scratch;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::host;
use wavekit_core::width::WarpWidth;
use wavekit_core::{
    Backend, DeviceBuffer, HistogramResult, Match, RawBackend, ScanKind, SegmentSpec, Shfl,
    Validated, Vote, WarpLaunch,
};
use wavekit_core::{Predicate, ReduceOp};

/// The CPU backend, simulating warps of 32 or 64 lanes.
pub struct CpuBackend {
    width: WarpWidth,
    scratch: Scratch,
}

impl CpuBackend {
    pub fn new(width: WarpWidth) -> CpuBackend {
        CpuBackend {
            width,
            scratch: Scratch::default(),
        }
    }
}

/// A CPU "device" buffer: host memory owned by the backend's caller.
#[derive(Clone, Debug, PartialEq)]
pub struct CpuBuffer<T> {
    data: Vec<T>,
}

impl<T: Element> CpuBuffer<T> {
    pub fn from_vec(data: Vec<T>) -> Self {
        CpuBuffer { data }
    }

    pub fn as_slice(&self) -> &[T] {
        &self.data
    }

    pub fn into_vec(self) -> Vec<T> {
        self.data
    }
}

impl<T: Element> DeviceBuffer<T> for CpuBuffer<T> {
    fn len(&self) -> usize {
        self.data.len()
    }
}

impl Backend for CpuBackend {
    type Buffer<T: Element> = CpuBuffer<T>;

    fn name(&self) -> String {
        format!("cpu/w{}", self.width.lanes())
    }

    fn warp_width(&self) -> WarpWidth {
        self.width
    }

    fn synchronize(&self) -> Result<()> {
        // Every call has finished its work before it returns.
        Ok(())
    }

    fn alloc<T: Element>(&self, len: usize) -> Result<CpuBuffer<T>> {
        Ok(CpuBuffer {
            data: memory::zeroed(len)?,
        })
    }

    fn upload<T: Element>(&self, data: &[T]) -> Result<CpuBuffer<T>> {
        let mut v = host::with_capacity(data.len())?;
        v.extend_from_slice(data);
        Ok(CpuBuffer { data: v })
    }

    fn download<T: Element>(&self, buf: &CpuBuffer<T>) -> Result<Vec<T>> {
        let mut v = host::with_capacity(buf.data.len())?;
        v.extend_from_slice(&buf.data);
        Ok(v)
    }

    fn write<T: Element>(&self, buf: &mut CpuBuffer<T>, data: &[T]) -> Result<()> {
        if buf.data.len() != data.len() {
            return Err(WavekitError::LengthMismatch {
                what: "write source",
                expected: buf.data.len(),
                got: data.len(),
            });
        }
        buf.data.copy_from_slice(data);
        Ok(())
    }
}

impl RawBackend for CpuBackend {
    fn raw_vote(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        vote: Vote,
        preds: &[bool],
    ) -> Result<Vec<u64>> {
        Ok(vote::vote(launch, vote, preds))
    }

    fn raw_shfl<T: Element>(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        kind: Shfl,
        vals: &[T],
        arg: i32,
        width: u32,
    ) -> Result<Vec<T>> {
        Ok(shfl::shfl(launch, kind, vals, arg, width))
    }

    fn raw_match<T: Element>(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        kind: Match,
        vals: &[T],
    ) -> Result<Vec<(u64, bool)>> {
        Ok(r#match::matching(launch, kind, vals))
    }

    fn raw_activemask(&self, _: Validated, launch: &WarpLaunch) -> Result<Vec<u64>> {
        Ok(activemask::activemask(launch))
    }

    fn raw_syncwarp_transpose<T: Element>(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        vals: &[T],
    ) -> Result<Vec<T>> {
        Ok(syncwarp_transpose::transpose(launch, vals))
    }

    fn raw_tile_shfl<T: Element>(
        &self,
        _: Validated,
        threads: usize,
        tile: u32,
        kind: Shfl,
        vals: &[T],
        arg: i32,
    ) -> Result<Vec<T>> {
        Ok(tile::shfl(&vals[..threads], tile, kind, arg, self.width))
    }

    fn raw_tile_vote(
        &self,
        _: Validated,
        threads: usize,
        tile: u32,
        vote: Vote,
        preds: &[bool],
    ) -> Result<Vec<u64>> {
        Ok(tile::vote(&preds[..threads], tile, vote))
    }

    fn raw_tile_reduce<T: Element>(
        &self,
        _: Validated,
        threads: usize,
        tile: u32,
        op: ReduceOp,
        vals: &[T],
    ) -> Result<Vec<T>> {
        Ok(tile::reduce(&vals[..threads], tile, op))
    }

    fn raw_warp_reduce<T: Element>(
        &self,
        _: Validated,
        vals: &[T],
        width: u32,
        op: ReduceOp,
    ) -> Result<Vec<T>> {
        Ok(warp_reduce::reduce(vals, width, op))
    }

    fn raw_warp_reduce_sync<T: Element>(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        op: ReduceOp,
        vals: &[T],
    ) -> Result<Vec<T>> {
        Ok(warp_reduce_sync::reduce(launch, op, vals))
    }

    fn raw_warp_scan<T: Element>(
        &self,
        _: Validated,
        vals: &[T],
        width: u32,
        op: ReduceOp,
        kind: ScanKind,
    ) -> Result<Vec<T>> {
        Ok(warp_scan::scan(vals, width, op, kind))
    }

    fn raw_block_reduce<T: Element>(
        &self,
        _: Validated,
        input: &CpuBuffer<T>,
        block: u32,
        op: ReduceOp,
    ) -> Result<Vec<T>> {
        Ok(block_reduce::block(&input.data, block, op))
    }

    fn raw_device_reduce<T: Element>(
        &self,
        _: Validated,
        input: &CpuBuffer<T>,
        op: ReduceOp,
    ) -> Result<T> {
        Ok(device_reduce::device(&input.data, op, &self.scratch))
    }

    fn raw_device_scan<T: Element>(
        &self,
        _: Validated,
        input: &CpuBuffer<T>,
        output: &mut CpuBuffer<T>,
        op: ReduceOp,
        kind: ScanKind,
    ) -> Result<()> {
        device_scan::device(&input.data, &mut output.data, op, kind, &self.scratch);
        Ok(())
    }

    fn raw_segmented_reduce<T: Element>(
        &self,
        _: Validated,
        input: &CpuBuffer<T>,
        segments: SegmentSpec<'_, CpuBuffer<u32>>,
        op: ReduceOp,
        output: &mut CpuBuffer<T>,
    ) -> Result<()> {
        let segments = match segments {
            SegmentSpec::Fixed {
                size,
                count,
                vector,
            } => segmented_reduce::Bounds::Fixed {
                size,
                count,
                len: input.data.len(),
                vector,
            },
            SegmentSpec::Offsets {
                offsets,
                count,
                vector,
            } => segmented_reduce::Bounds::Offsets {
                offsets: &offsets.data[..=count],
                vector,
            },
        };
        segmented_reduce::reduce(&input.data, segments, op, &mut output.data);
        Ok(())
    }

    fn raw_spmv<T: Element>(
        &self,
        _: Validated,
        row_offsets: &CpuBuffer<u32>,
        cols: &CpuBuffer<u32>,
        vals: &CpuBuffer<T>,
        x: &CpuBuffer<T>,
        y: &mut CpuBuffer<T>,
        vector: u32,
    ) -> Result<()> {
        let csr = spmv::CsrView {
            offsets: &row_offsets.data,
            cols: &cols.data,
            vals: &vals.data,
        };
        spmv::spmv(csr, &x.data, &mut y.data, vector);
        Ok(())
    }

    fn raw_atomic_agg_inc(
        &self,
        _: Validated,
        slots: &CpuBuffer<u32>,
        counters: &mut CpuBuffer<u32>,
        olds: &mut CpuBuffer<u32>,
    ) -> Result<()> {
        // All or nothing: no counter moves when any slot is out of range.
        let limit = counters.data.len();
        if let Some(&bad) = slots.data.iter().find(|&&s| s as usize >= limit) {
            return Err(WavekitError::IndexOutOfRange {
                what: "atomic_agg_inc slot",
                value: u64::from(bad),
                limit: limit as u64,
            });
        }
        atomic_agg_inc::agg_inc(self.width, &slots.data, &mut counters.data, &mut olds.data)
    }

    fn raw_count_if<T: Element>(
        &self,
        _: Validated,
        input: &CpuBuffer<T>,
        pred: Predicate<T>,
    ) -> Result<u64> {
        Ok(count_if::count_if(&input.data, pred))
    }

    fn raw_compact<T: Element>(
        &self,
        _: Validated,
        input: &CpuBuffer<T>,
        pred: Predicate<T>,
        stable: bool,
        output: &mut CpuBuffer<T>,
    ) -> Result<usize> {
        // The unordered path writes through a raw pointer: never let a short output through.
        if output.data.len() < input.data.len() {
            return Err(WavekitError::LengthMismatch {
                what: "compaction output (at least the input's length)",
                expected: input.data.len(),
                got: output.data.len(),
            });
        }
        Ok(if stable {
            compact::stable(&input.data, pred, &mut output.data, &self.scratch)
        } else {
            compact::unordered(&input.data, pred, &mut output.data)
        })
    }

    fn raw_histogram(
        &self,
        _: Validated,
        keys: &CpuBuffer<u32>,
        bins: u32,
    ) -> Result<HistogramResult> {
        Ok(histogram::histogram(&keys.data, bins))
    }
}
