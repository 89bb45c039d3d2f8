//! The `RawBackend` trait for `GpuBackend` (its `Backend` buffer calls are in buffer_calls.rs):
//! each raw method hands its call to the collective's own file (vote.rs, device_reduce.rs,
//! sort.rs, ...), named as the collective is in wavekit-core's API, the CPU backend and
//! csrc/kernels. The warp primitives upload their host values, run their launcher and read the
//! result back; the device collectives enqueue their launcher on the stream with the caller's
//! outputs and return without waiting.
//!
//! Defence in depth: every raw method checks its arguments against the buffers it is handed
//! again (lengths, mask width, sub-width, tile and block size) before any launch, although the
//! validated API already did, and every launch checks its memory arguments against what its
//! launcher reaches (launch.rs), so no kernel reads or writes past an allocation.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::runtime::GpuRuntime;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::{
    ArgOp, ByKeyOut, Match, RawBackend, RunsOut, ScanKind, SegmentSpec, Shfl, SortSpec, Validated,
    Vote, WarpLaunch,
};
use wavekit_core::{Predicate, ReduceOp};

impl<R: GpuRuntime> RawBackend for GpuBackend<R> {
    fn raw_vote(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        vote: Vote,
        preds: &[bool],
    ) -> Result<Vec<u64>> {
        self.vote_run(launch, vote, preds)
    }

    fn raw_shfl<T: Element>(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        kind_: Shfl,
        vals: &[T],
        arg: i32,
        width: u32,
    ) -> Result<Vec<T>> {
        self.shfl_run(launch, kind_, vals, arg, width)
    }

    fn raw_match<T: Element>(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        kind_: Match,
        vals: &[T],
    ) -> Result<Vec<(u64, bool)>> {
        self.match_run(launch, kind_, vals)
    }

    fn raw_activemask(&self, _: Validated, launch: &WarpLaunch) -> Result<Vec<u64>> {
        self.activemask_run(launch)
    }

    fn raw_syncwarp_transpose<T: Element>(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        vals: &[T],
    ) -> Result<Vec<T>> {
        self.syncwarp_transpose_run(launch, vals)
    }

    fn raw_tile_shfl<T: Element>(
        &self,
        _: Validated,
        threads: usize,
        tile: u32,
        kind_: Shfl,
        vals: &[T],
        arg: i32,
    ) -> Result<Vec<T>> {
        self.tile_shfl_run(threads, tile, kind_, vals, arg)
    }

    fn raw_tile_vote(
        &self,
        _: Validated,
        threads: usize,
        tile: u32,
        vote: Vote,
        preds: &[bool],
    ) -> Result<Vec<u64>> {
        self.tile_vote_run(threads, tile, vote, preds)
    }

    fn raw_tile_reduce<T: Element>(
        &self,
        _: Validated,
        threads: usize,
        tile: u32,
        op: ReduceOp,
        vals: &[T],
    ) -> Result<Vec<T>> {
        self.tile_reduce_run(threads, tile, op, vals)
    }

    fn raw_warp_reduce<T: Element>(
        &self,
        _: Validated,
        vals: &[T],
        width: u32,
        op: ReduceOp,
    ) -> Result<Vec<T>> {
        self.warp_reduce_run(vals, width, op)
    }

    fn raw_warp_reduce_sync<T: Element>(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        op: ReduceOp,
        vals: &[T],
    ) -> Result<Vec<T>> {
        self.warp_reduce_sync_run(launch, op, vals)
    }

    fn raw_warp_scan<T: Element>(
        &self,
        _: Validated,
        vals: &[T],
        width: u32,
        op: ReduceOp,
        scan: ScanKind,
    ) -> Result<Vec<T>> {
        self.warp_scan_run(vals, width, op, scan)
    }

    fn raw_block_reduce<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        block: u32,
        op: ReduceOp,
        output: &mut GpuBuffer<T, R>,
    ) -> Result<()> {
        self.block_reduce_enqueue(input, block, op, output)
    }

    fn raw_device_reduce<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        op: ReduceOp,
        output: &mut GpuBuffer<T, R>,
    ) -> Result<()> {
        self.device_reduce_enqueue(input, op, output)
    }

    fn raw_device_scan<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        output: &mut GpuBuffer<T, R>,
        op: ReduceOp,
        scan: ScanKind,
    ) -> Result<()> {
        self.device_scan_enqueue(input, output, op, scan, None)
    }

    fn raw_segmented_reduce<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        segments: SegmentSpec<'_, GpuBuffer<u32, R>>,
        op: ReduceOp,
        output: &mut GpuBuffer<T, R>,
    ) -> Result<()> {
        self.segmented_reduce_enqueue(input, segments, op, output)
    }

    fn raw_spmv<T: Element>(
        &self,
        _: Validated,
        row_offsets: &GpuBuffer<u32, R>,
        cols: &GpuBuffer<u32, R>,
        vals: &GpuBuffer<T, R>,
        x: &GpuBuffer<T, R>,
        y: &mut GpuBuffer<T, R>,
        vector: u32,
    ) -> Result<()> {
        self.spmv_enqueue(row_offsets, cols, vals, None, x, y, vector)
    }

    fn raw_spmv_plan(
        &self,
        _: Validated,
        row_offsets: &GpuBuffer<u32, R>,
        nnz: usize,
    ) -> Result<Option<GpuBuffer<u64, R>>> {
        self.spmv_plan(row_offsets, nnz)
    }

    fn raw_spmv_planned<T: Element>(
        &self,
        _: Validated,
        row_offsets: &GpuBuffer<u32, R>,
        cols: &GpuBuffer<u32, R>,
        vals: &GpuBuffer<T, R>,
        plan: &GpuBuffer<u64, R>,
        longest_row: usize,
        x: &GpuBuffer<T, R>,
        y: &mut GpuBuffer<T, R>,
        vector: u32,
    ) -> Result<()> {
        self.spmv_enqueue(
            row_offsets,
            cols,
            vals,
            Some((plan, longest_row)),
            x,
            y,
            vector,
        )
    }

    fn raw_atomic_agg_inc(
        &self,
        _: Validated,
        slots: &GpuBuffer<u32, R>,
        counters: &mut GpuBuffer<u32, R>,
        olds: &mut GpuBuffer<u32, R>,
    ) -> Result<()> {
        self.atomic_agg_inc_enqueue(slots, counters, olds)
    }

    fn raw_count_if<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        pred: Predicate<T>,
        count: &mut GpuBuffer<u64, R>,
    ) -> Result<()> {
        self.count_if_enqueue(input, pred, count)
    }

    fn raw_compact<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        pred: Predicate<T>,
        stable: bool,
        output: &mut GpuBuffer<T, R>,
        count: &mut GpuBuffer<u64, R>,
    ) -> Result<()> {
        self.compact_enqueue(input, pred, stable, output, count)
    }

    fn raw_histogram(
        &self,
        _: Validated,
        keys: &GpuBuffer<u32, R>,
        bins: u32,
        counts: &mut GpuBuffer<u64, R>,
    ) -> Result<()> {
        self.histogram_enqueue(keys, bins, counts)
    }

    fn raw_scalar<T: Element>(
        &self,
        _: Validated,
        fill: impl FnOnce(&mut GpuBuffer<T, R>) -> Result<()>,
    ) -> Result<T> {
        // A slot this backend keeps, so a convenience allocates nothing in steady state.
        let mut out = GpuBuffer::<T, R>::from_mem(self.take_slot()?, 1);
        let value = fill(&mut out).and_then(|()| self.read_flushed::<T>(&out.mem, 1));
        self.return_slot(out.into_mem());
        Ok(value?[0])
    }

    fn raw_sort_keys<K: Element>(
        &self,
        _: Validated,
        keys: &GpuBuffer<K, R>,
        keys_out: &mut GpuBuffer<K, R>,
        spec: SortSpec,
    ) -> Result<()> {
        self.sort_enqueue::<K, K>(keys, None, Some(keys_out), None, spec)
    }

    fn raw_sort_pairs<K: Element, V: Element>(
        &self,
        _: Validated,
        keys: &GpuBuffer<K, R>,
        values: Option<&GpuBuffer<V, R>>,
        keys_out: Option<&mut GpuBuffer<K, R>>,
        values_out: &mut GpuBuffer<V, R>,
        spec: SortSpec,
    ) -> Result<()> {
        self.sort_enqueue(keys, values, keys_out, Some(values_out), spec)
    }

    fn raw_segmented_sort<K: Element, V: Element>(
        &self,
        _: Validated,
        keys: &GpuBuffer<K, R>,
        values: Option<&GpuBuffer<V, R>>,
        segments: SegmentSpec<'_, GpuBuffer<u32, R>>,
        keys_out: &mut GpuBuffer<K, R>,
        values_out: Option<&mut GpuBuffer<V, R>>,
        spec: SortSpec,
    ) -> Result<()> {
        self.segmented_sort_enqueue(keys, values, segments, keys_out, values_out, spec)
    }

    fn raw_top_k<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        k: usize,
        spec: SortSpec,
        values_out: &mut GpuBuffer<T, R>,
        indices_out: Option<&mut GpuBuffer<u32, R>>,
    ) -> Result<()> {
        self.top_k_enqueue(input, k, spec, values_out, indices_out)
    }

    fn raw_runs<K: Element, V: Element>(
        &self,
        _: Validated,
        keys: &GpuBuffer<K, R>,
        values: Option<&GpuBuffer<V, R>>,
        out: RunsOut<'_, Self, K, V>,
        count: &mut GpuBuffer<u64, R>,
    ) -> Result<()> {
        self.runs_enqueue(keys, values, out, count)
    }

    fn raw_by_key<K: Element, V: Element>(
        &self,
        _: Validated,
        keys: &GpuBuffer<K, R>,
        values: &GpuBuffer<V, R>,
        op: ReduceOp,
        out: ByKeyOut<'_, Self, K, V>,
    ) -> Result<()> {
        self.by_key_enqueue(keys, values, op, out)
    }

    fn raw_partition<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        first: Predicate<T>,
        second: Option<Predicate<T>>,
        out: &mut GpuBuffer<T, R>,
        counts: &mut GpuBuffer<u64, R>,
    ) -> Result<()> {
        self.partition_enqueue(input, first, second, out, counts)
    }

    fn raw_partition_reversed<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        first: Predicate<T>,
        second: Option<(Predicate<T>, &mut GpuBuffer<T, R>)>,
        out: &mut GpuBuffer<T, R>,
        counts: &mut GpuBuffer<u64, R>,
    ) -> Result<()> {
        self.partition_reversed_enqueue(input, first, second, out, counts)
    }

    fn raw_arg_reduce<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        op: ArgOp,
        value: &mut GpuBuffer<T, R>,
        index: &mut GpuBuffer<u64, R>,
    ) -> Result<()> {
        self.arg_reduce_enqueue(input, op, value, index)
    }

    fn raw_segmented_arg_reduce<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        segments: SegmentSpec<'_, GpuBuffer<u32, R>>,
        op: ArgOp,
        values: &mut GpuBuffer<T, R>,
        indices: &mut GpuBuffer<u32, R>,
    ) -> Result<()> {
        self.segmented_arg_reduce_enqueue(input, segments, op, values, indices)
    }

    fn raw_warp_arg_reduce<T: Element>(
        &self,
        _: Validated,
        vals: &[T],
        width: u32,
        op: ArgOp,
    ) -> Result<Vec<(T, u32)>> {
        self.warp_arg_reduce_run(vals, width, op)
    }
}
