//! The device steps of the collectives across devices on this backend (wavekit-core's
//! `RawSliceDevice`, this file): copies between buffers stay on the device (a shard never
//! round-trips through the host), and each step is one launch of its own kernel, in this
//! folder: the butterfly over rows (reduce_rows.rs), the merge of sorted runs (merge_runs.rs),
//! the sharded scan's steps (scan_steps.rs), the reduce's levels (reduce_partials.rs) and the
//! strided read a sample sort takes its splitters with (strided.rs). Each checks its arguments
//! again.

mod merge_runs;
mod reduce_partials;
mod reduce_rows;
mod scan_steps;
mod strided;

use crate::backend::GpuBackend;
use crate::buffer::GpuBuffer;
use crate::runtime::GpuRuntime;
pub use merge_runs::MAX_MERGE_RUNS;
pub use reduce_rows::MAX_REDUCE_ROWS;
use std::ops::Range;
use wavekit_core::{
    Backend, DeviceBuffer, Element, RawSliceDevice, ReduceOp, Result, ScanKind, SortOrder,
    Validated,
};

impl<R: GpuRuntime> RawSliceDevice for GpuBackend<R> {
    const MAX_REDUCE_ROWS: usize = MAX_REDUCE_ROWS;

    fn raw_copy_range<T: Element>(
        &self,
        _: Validated,
        buf: &GpuBuffer<T, R>,
        range: Range<usize>,
    ) -> Result<GpuBuffer<T, R>> {
        let part = self.slice(buf, range)?;
        let mut out = self.alloc::<T>(part.len())?;
        self.copy(&part, &mut out)?;
        Ok(out)
    }

    fn raw_concat<T: Element>(
        &self,
        _: Validated,
        parts: &[&GpuBuffer<T, R>],
    ) -> Result<GpuBuffer<T, R>> {
        let mut out = self.alloc::<T>(parts.iter().map(|p| p.len()).sum())?;
        let mut at = 0;
        for p in parts.iter().filter(|p| !p.is_empty()) {
            let mut part = self.slice_mut(&mut out, at..at + p.len())?;
            self.copy(p, &mut part)?;
            at += p.len();
        }
        Ok(out)
    }

    fn raw_download_strided<T: Element>(
        &self,
        _: Validated,
        buf: &GpuBuffer<T, R>,
        start: usize,
        stride: usize,
        count: usize,
    ) -> Result<Vec<T>> {
        self.read_strided(buf, start, stride, count)
    }

    fn raw_copy_from<T: Element>(
        &self,
        _: Validated,
        dst: &mut GpuBuffer<T, R>,
        src: &GpuBuffer<T, R>,
        start: usize,
    ) -> Result<()> {
        let part = self.slice(src, start..start + dst.len())?;
        self.copy(&part, dst)
    }

    fn raw_reserve<T: Element>(&self, _: Validated, n: usize) -> Result<()> {
        GpuBackend::reserve::<T>(self, n)
    }

    fn raw_reduce_rows_in_place<T: Element>(
        &self,
        _: Validated,
        rows: &mut GpuBuffer<T, R>,
        r: usize,
        dst: usize,
        op: ReduceOp,
    ) -> Result<()> {
        self.reduce_rows(rows, r, dst, op)
    }

    /// Merged on the device up to [`MAX_MERGE_RUNS`] runs; `None` past that (`SliceDevice`
    /// then sorts again).
    fn raw_merge_runs_keys<K: Element>(
        &self,
        _: Validated,
        keys: &GpuBuffer<K, R>,
        runs: &[usize],
        order: SortOrder,
    ) -> Result<Option<GpuBuffer<K, R>>> {
        if runs.len() > MAX_MERGE_RUNS {
            return Ok(None);
        }
        let mut out = self.alloc::<K>(keys.len())?;
        self.merge_runs_enqueue::<K, K>(keys, None, runs, order, &mut out, None)?;
        self.synchronize()?;
        Ok(Some(out))
    }

    /// Merged on the device up to [`MAX_MERGE_RUNS`] runs; `None` past that (`SliceDevice`
    /// then sorts again).
    #[allow(clippy::type_complexity)] // the merged pair, or none: an alias would hide it
    fn raw_merge_runs_pairs<K: Element, V: Element>(
        &self,
        _: Validated,
        keys: &GpuBuffer<K, R>,
        values: &GpuBuffer<V, R>,
        runs: &[usize],
        order: SortOrder,
    ) -> Result<Option<(GpuBuffer<K, R>, GpuBuffer<V, R>)>> {
        if runs.len() > MAX_MERGE_RUNS {
            return Ok(None);
        }
        let mut out = self.alloc::<K>(keys.len())?;
        let mut vout = self.alloc::<V>(values.len())?;
        self.merge_runs_enqueue(keys, Some(values), runs, order, &mut out, Some(&mut vout))?;
        self.synchronize()?;
        Ok(Some((out, vout)))
    }

    fn raw_scan_aggregates_into<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        op: ReduceOp,
        out: &mut GpuBuffer<T, R>,
    ) -> Result<Option<()>> {
        self.scan_aggregates_enqueue(input, op, out).map(Some)
    }

    fn raw_scan_carried_into<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        output: &mut GpuBuffer<T, R>,
        op: ReduceOp,
        kind: ScanKind,
        carry: &GpuBuffer<T, R>,
    ) -> Result<Option<()>> {
        self.scan_carried_enqueue(input, output, op, kind, carry)
            .map(Some)
    }

    fn raw_fold_left_into<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        op: ReduceOp,
        out: &mut GpuBuffer<T, R>,
    ) -> Result<Option<()>> {
        self.fold_left_enqueue(input, op, out).map(Some)
    }

    fn raw_reduce_partials_into<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        op: ReduceOp,
        levels: u32,
        out: &mut GpuBuffer<T::Acc, R>,
    ) -> Result<()> {
        self.reduce_partials_enqueue(input, op, levels, out)
    }

    fn raw_reduce_acc_into<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T::Acc, R>,
        op: ReduceOp,
        out: &mut GpuBuffer<T, R>,
    ) -> Result<()> {
        self.reduce_acc_enqueue(input, op, out)
    }
}
