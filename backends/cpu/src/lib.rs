//! wavekit-cpu: the rayon CPU backend, wavekit's reference oracle and a real backend for users.
//!
//! How it fits: it implements wavekit-core's `Backend` and `RawBackend` directly on host
//! memory, independently of the GPU kernels (it shares no code with csrc/), so the conformance
//! suite compares two separate implementations of docs/SEMANTICS.md.
//!
//! It computes every lane and every combining tree exactly as docs/SEMANTICS.md defines them,
//! parallel over warps, tiles, blocks and segments, combining in the defined order only, so a
//! result never depends on rayon's scheduling.

#![warn(missing_docs)]
#![warn(missing_debug_implementations)]

mod activemask;
mod arg_reduce;
mod atomic_agg_inc;
mod backend;
mod block_reduce;
mod buffer;
mod by_key;
mod combine;
mod compact;
mod compact_simd;
mod count_if;
mod device_reduce;
mod device_reduce_simd;
mod device_scan;
mod device_scan_avx512;
mod device_scan_half;
mod device_scan_int_simd;
mod device_scan_simd;
mod device_scan_tile;
mod disjoint;
mod features;
mod half;
mod half_simd;
mod histogram;
mod reduce_rows;
// Only where instances are shared: debug builds (opt-level 1). A release build would compile
// every instance at opt-level 3 for no one.
#[cfg(all(debug_assertions, not(test)))]
#[doc(hidden)]
pub mod instances;
mod lookback;
mod r#match;
mod memory;
mod order_free;
mod order_free_simd;
mod par;
mod partition;
mod partition_reversed;
mod pred;
mod reduce_partials;
mod runs;
mod scratch;
mod segmented_reduce;
mod segmented_sort;
mod shfl;
mod slice_device;
mod sort;
mod spmv;
mod syncwarp_transpose;
mod tile;
mod top_k;
mod vector;
mod vote;
mod warp_lanes;
mod warp_reduce;
mod warp_reduce_sync;
mod warp_scan;

#[cfg(test)]
mod tests;

pub use backend::CpuBackend;
pub use buffer::CpuBuffer;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::{
    ArgOp, ByKeyOut, DeviceBuffer, Match, RawBackend, RunsOut, ScanKind, SegmentSpec, Shfl,
    SortSpec, Validated, Vote, WarpLaunch,
};
use wavekit_core::{Predicate, ReduceOp};

impl RawBackend for CpuBackend {
    fn raw_vote(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        vote: Vote,
        preds: &[bool],
    ) -> Result<Vec<u64>> {
        vote::vote(launch, vote, preds)
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
        shfl::shfl(launch, kind, vals, arg, width)
    }

    fn raw_match<T: Element>(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        kind: Match,
        vals: &[T],
    ) -> Result<Vec<(u64, bool)>> {
        r#match::matching(launch, kind, vals)
    }

    fn raw_activemask(&self, _: Validated, launch: &WarpLaunch) -> Result<Vec<u64>> {
        activemask::activemask(launch)
    }

    fn raw_syncwarp_transpose<T: Element>(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        vals: &[T],
    ) -> Result<Vec<T>> {
        syncwarp_transpose::transpose(launch, vals)
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
        tile::shfl(&vals[..threads], tile, kind, arg, self.width)
    }

    fn raw_tile_vote(
        &self,
        _: Validated,
        threads: usize,
        tile: u32,
        vote: Vote,
        preds: &[bool],
    ) -> Result<Vec<u64>> {
        tile::vote(&preds[..threads], tile, vote)
    }

    fn raw_tile_reduce<T: Element>(
        &self,
        _: Validated,
        threads: usize,
        tile: u32,
        op: ReduceOp,
        vals: &[T],
    ) -> Result<Vec<T>> {
        tile::reduce(&vals[..threads], tile, op)
    }

    fn raw_warp_reduce<T: Element>(
        &self,
        _: Validated,
        vals: &[T],
        width: u32,
        op: ReduceOp,
    ) -> Result<Vec<T>> {
        warp_reduce::reduce(vals, width, op)
    }

    fn raw_warp_reduce_sync<T: Element>(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        op: ReduceOp,
        vals: &[T],
    ) -> Result<Vec<T>> {
        warp_reduce_sync::reduce(launch, op, vals)
    }

    fn raw_warp_scan<T: Element>(
        &self,
        _: Validated,
        vals: &[T],
        width: u32,
        op: ReduceOp,
        kind: ScanKind,
    ) -> Result<Vec<T>> {
        warp_scan::scan(vals, width, op, kind)
    }

    fn raw_block_reduce<T: Element>(
        &self,
        _: Validated,
        input: &CpuBuffer<T>,
        block: u32,
        op: ReduceOp,
        output: &mut CpuBuffer<T>,
    ) -> Result<()> {
        let blocks = input.len().div_ceil(block as usize);
        check_len("block reduce output (one per block)", blocks, output.len())?;
        block_reduce::block(input.data()?, block, op, output.data_mut()?);
        Ok(())
    }

    fn raw_device_reduce<T: Element>(
        &self,
        _: Validated,
        input: &CpuBuffer<T>,
        op: ReduceOp,
        output: &mut CpuBuffer<T>,
    ) -> Result<()> {
        check_len("reduce output (one element)", 1, output.len())?;
        let vals = input.data()?;
        output.data_mut()?[0] = if T::KIND.is_half() {
            half::reduce(vals, op, &self.wide, &self.scratch)?
        } else {
            device_reduce::device(vals, op, &self.scratch)?
        };
        Ok(())
    }

    fn raw_device_scan<T: Element>(
        &self,
        _: Validated,
        input: &CpuBuffer<T>,
        output: &mut CpuBuffer<T>,
        op: ReduceOp,
        kind: ScanKind,
    ) -> Result<()> {
        let (input, out) = (input.data()?, output.data_mut()?);
        if T::KIND.is_half() {
            device_scan_half::device(input, out, op, kind, &self.wide, &self.scratch)
        } else {
            device_scan::device(input, out, op, kind, &self.wide, &self.scratch)
        }
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
                len: input.len(),
                vector,
            },
            SegmentSpec::Offsets {
                offsets,
                count,
                vector,
                ..
            } => segmented_reduce::Bounds::Offsets {
                offsets: &offsets.data()?[..=count],
                vector,
            },
        };
        segmented_reduce::reduce(input.data()?, segments, op, output.data_mut()?);
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
            offsets: row_offsets.data()?,
            cols: cols.data()?,
            vals: vals.data()?,
        };
        spmv::spmv(csr, x.data()?, y.data_mut()?, vector);
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
        let limit = counters.len();
        if let Some(&bad) = slots.data()?.iter().find(|&&s| s as usize >= limit) {
            return Err(WavekitError::IndexOutOfRange {
                what: "atomic_agg_inc slot",
                value: u64::from(bad),
                limit: limit as u64,
            });
        }
        atomic_agg_inc::agg_inc(
            self.width,
            slots.data()?,
            counters.data_mut()?,
            olds.data_mut()?,
        )
    }

    fn raw_count_if<T: Element>(
        &self,
        _: Validated,
        input: &CpuBuffer<T>,
        pred: Predicate<T>,
        count: &mut CpuBuffer<u64>,
    ) -> Result<()> {
        check_len("count_if output (one element)", 1, count.len())?;
        count.data_mut()?[0] = count_if::count_if(input.data()?, pred);
        Ok(())
    }

    fn raw_compact<T: Element>(
        &self,
        _: Validated,
        input: &CpuBuffer<T>,
        pred: Predicate<T>,
        stable: bool,
        output: &mut CpuBuffer<T>,
        count: &mut CpuBuffer<u64>,
    ) -> Result<()> {
        // The unordered path writes through a raw pointer: never let a short output through.
        if output.len() < input.len() {
            return Err(WavekitError::LengthMismatch {
                what: "compaction output (at least the input's length)",
                expected: input.len(),
                got: output.len(),
            });
        }
        check_len("compaction count (one element)", 1, count.len())?;
        let selected = if input.is_empty() {
            0
        } else if stable {
            compact::stable(input.data()?, pred, output.data_mut()?, &self.scratch)?
        } else {
            compact::unordered(input.data()?, pred, output.data_mut()?)
        };
        count.data_mut()?[0] = selected as u64;
        Ok(())
    }

    fn raw_partition<T: Element>(
        &self,
        _: Validated,
        input: &CpuBuffer<T>,
        first: Predicate<T>,
        second: Option<Predicate<T>>,
        out: &mut CpuBuffer<T>,
        counts: &mut CpuBuffer<u64>,
    ) -> Result<()> {
        check_len(
            "partition output (the input's length)",
            input.len(),
            out.len(),
        )?;
        let parts = if second.is_some() { 2 } else { 1 };
        check_len(
            "partition counts (one per leading part)",
            parts,
            counts.len(),
        )?;
        let k = partition::partition(
            input.data()?,
            first,
            second,
            out.data_mut()?,
            partition::Layout::Stable,
        )?;
        let c = counts.data_mut()?;
        for (c, k) in c.iter_mut().zip(k) {
            *c = k as u64;
        }
        Ok(())
    }

    fn raw_partition_reversed<T: Element>(
        &self,
        _: Validated,
        input: &CpuBuffer<T>,
        first: Predicate<T>,
        second: Option<(Predicate<T>, &mut CpuBuffer<T>)>,
        out: &mut CpuBuffer<T>,
        counts: &mut CpuBuffer<u64>,
    ) -> Result<()> {
        partition_reversed::reversed(input, first, second, out, counts)
    }

    fn raw_histogram(
        &self,
        _: Validated,
        keys: &CpuBuffer<u32>,
        bins: u32,
        counts: &mut CpuBuffer<u64>,
    ) -> Result<()> {
        check_len(
            "histogram counts (bins + 1)",
            (bins as usize).saturating_add(1),
            counts.len(),
        )?;
        histogram::histogram(keys.data()?, bins, counts.data_mut()?)
    }

    fn raw_sort_keys<K: Element>(
        &self,
        _: Validated,
        keys: &CpuBuffer<K>,
        keys_out: &mut CpuBuffer<K>,
        spec: SortSpec,
    ) -> Result<()> {
        check_len("sorted keys (the keys' length)", keys.len(), keys_out.len())?;
        sort::sort::<K, K>(
            keys.data()?,
            sort::Values::None,
            Some(keys_out.data_mut()?),
            None,
            spec,
        )
    }

    fn raw_sort_pairs<K: Element, V: Element>(
        &self,
        _: Validated,
        keys: &CpuBuffer<K>,
        values: Option<&CpuBuffer<V>>,
        keys_out: Option<&mut CpuBuffer<K>>,
        values_out: &mut CpuBuffer<V>,
        spec: SortSpec,
    ) -> Result<()> {
        let n = keys.len();
        check_len("sorted values (the keys' length)", n, values_out.len())?;
        let values = match values {
            Some(v) => {
                check_len("values (one per key)", n, v.len())?;
                sort::Values::Given(v.data()?)
            }
            None => sort::Values::Indices,
        };
        let keys_out = match keys_out {
            Some(k) => {
                check_len("sorted keys (the keys' length)", n, k.len())?;
                Some(k.data_mut()?)
            }
            None => None,
        };
        sort::sort(
            keys.data()?,
            values,
            keys_out,
            Some(values_out.data_mut()?),
            spec,
        )
    }

    fn raw_segmented_sort<K: Element, V: Element>(
        &self,
        _: Validated,
        keys: &CpuBuffer<K>,
        values: Option<&CpuBuffer<V>>,
        segments: SegmentSpec<'_, CpuBuffer<u32>>,
        keys_out: &mut CpuBuffer<K>,
        values_out: Option<&mut CpuBuffer<V>>,
        spec: SortSpec,
    ) -> Result<()> {
        let n = keys.len();
        check_len("sorted keys (the keys' length)", n, keys_out.len())?;
        let values = values.map(CpuBuffer::data).transpose()?;
        let values_out = values_out.map(CpuBuffer::data_mut).transpose()?;
        let (k, ko) = (keys.data()?, keys_out.data_mut()?);
        match segments {
            SegmentSpec::Fixed { size, count, .. } => segmented_sort::sort(
                k,
                values,
                count,
                |s| s * size..n.min((s + 1) * size),
                ko,
                values_out,
                spec,
            ),
            SegmentSpec::Offsets { offsets, count, .. } => {
                let offsets = &offsets.data()?[..=count];
                segmented_sort::sort(
                    k,
                    values,
                    count,
                    |s| offsets[s] as usize..offsets[s + 1] as usize,
                    ko,
                    values_out,
                    spec,
                )
            }
        }
    }

    fn raw_top_k<T: Element>(
        &self,
        _: Validated,
        input: &CpuBuffer<T>,
        k: usize,
        spec: SortSpec,
        values_out: &mut CpuBuffer<T>,
        indices_out: Option<&mut CpuBuffer<u32>>,
    ) -> Result<()> {
        check_len("top-k values (k elements)", k, values_out.len())?;
        let indices = indices_out.map(CpuBuffer::data_mut).transpose()?;
        top_k::top_k(input.data()?, k, spec, values_out.data_mut()?, indices)
    }

    fn raw_runs<K: Element, V: Element>(
        &self,
        _: Validated,
        keys: &CpuBuffer<K>,
        values: Option<&CpuBuffer<V>>,
        out: RunsOut<'_, Self, K, V>,
        count: &mut CpuBuffer<u64>,
    ) -> Result<()> {
        count.data_mut()?[0] = runs::raw(keys, values, out)? as u64;
        Ok(())
    }

    fn raw_by_key<K: Element, V: Element>(
        &self,
        _: Validated,
        keys: &CpuBuffer<K>,
        values: &CpuBuffer<V>,
        op: ReduceOp,
        out: ByKeyOut<'_, Self, K, V>,
    ) -> Result<()> {
        by_key::raw(keys, values, op, out, &self.scratch)
    }

    fn raw_arg_reduce<T: Element>(
        &self,
        _: Validated,
        input: &CpuBuffer<T>,
        op: ArgOp,
        value: &mut CpuBuffer<T>,
        index: &mut CpuBuffer<u64>,
    ) -> Result<()> {
        arg_reduce::raw_device(input, op, value, index)
    }

    fn raw_segmented_arg_reduce<T: Element>(
        &self,
        _: Validated,
        input: &CpuBuffer<T>,
        segments: SegmentSpec<'_, CpuBuffer<u32>>,
        op: ArgOp,
        values: &mut CpuBuffer<T>,
        indices: &mut CpuBuffer<u32>,
    ) -> Result<()> {
        arg_reduce::raw_segmented(input, segments, op, values, indices)
    }

    fn raw_warp_arg_reduce<T: Element>(
        &self,
        _: Validated,
        vals: &[T],
        width: u32,
        op: ArgOp,
    ) -> Result<Vec<(T, u32)>> {
        arg_reduce::warp(vals, width, op)
    }
}
