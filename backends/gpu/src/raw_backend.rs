//! The `RawBackend` trait for `GpuBackend` (its `Backend` buffer calls are in buffer_calls.rs).
//! The warp primitives upload their host values, run one launcher from the table and read the
//! result back; the device collectives enqueue their launcher on the stream with the caller's
//! output pointers and return without waiting.
//!
//! Defence in depth: every raw method checks its arguments against the buffers it is handed
//! again (lengths, mask width, sub-width, tile and block size) before any launch, although the
//! validated API already did, so no kernel reads or writes past an allocation.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::ffi::{Status, cptr, dptr, kind};
use super::runtime::GpuRuntime;
use std::ffi::c_void;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::host;
use wavekit_core::{
    ArgOp, ByKeyOut, Match, RawBackend, RunsOut, ScanKind, SegmentSpec, Shfl, SortSpec, Validated,
    Vote, WarpLaunch,
};
use wavekit_core::{Predicate, ReduceOp};

/// The predicates as bytes, for the device; `OutOfMemory` when they do not fit on the host.
fn bools(preds: &[bool]) -> Result<Vec<u8>> {
    host::from_fn(preds.len(), |i| preds[i] as u8)
}

/// `f(a[i], b[i])` for every i of two results of one length, in a vector allocated fallibly.
pub(crate) fn zipped<A, B, C>(a: Vec<A>, b: Vec<B>, f: impl Fn(A, B) -> C) -> Result<Vec<C>> {
    let mut out = host::with_capacity(a.len().min(b.len()))?;
    out.extend(a.into_iter().zip(b).map(|(a, b)| f(a, b)));
    Ok(out)
}

impl<R: GpuRuntime> GpuBackend<R> {
    /// The shape of the warp primitives that take host values and give `out_len` values of the
    /// same type back: upload, one checked launch given the input and output addresses, read.
    fn map_values<T: Element>(
        &self,
        call: &'static str,
        vals: &[T],
        out_len: usize,
        launch: impl FnOnce(*mut c_void, *mut Status, *const c_void, *mut c_void) -> i32,
    ) -> Result<Vec<T>> {
        let mut work = self.lock();
        self.rt.make_current()?;
        let input = self.buffer_from(vals)?;
        let out = self.buffer_zeroed::<T>(out_len)?;
        self.run_checked(&mut work, call, |s, st| {
            launch(s, st, cptr(input.device_ptr()), dptr(out.device_ptr()))
        })?;
        self.read(&out.mem, out_len)
    }

    /// A warp launch this backend can run: its mask is for this warp width and `len` inputs
    /// give one value per thread.
    fn check_launch(&self, launch: &WarpLaunch, what: &'static str, len: usize) -> Result<()> {
        if launch.mask.width() != self.width {
            return Err(WavekitError::MaskWidthMismatch {
                mask_width: launch.mask.width().lanes(),
                warp: self.width.lanes(),
            });
        }
        check_len(what, launch.threads, len)
    }
}

impl<R: GpuRuntime> RawBackend for GpuBackend<R> {
    fn raw_vote(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        vote: Vote,
        preds: &[bool],
    ) -> Result<Vec<u64>> {
        self.check_launch(launch, "vote predicates", preds.len())?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = launch.threads;
        let input = self.mem_from(&bools(preds)?)?;
        let out = self.lanes_zeroed::<u64>(n)?;
        // SAFETY: the launcher reads `n` predicates from `input` (a fresh upload of `preds`, whose
        // length check_launch compared with the n threads) and writes `n` masks to `out` (fresh, n
        // u64s); nothing else holds either, and `s`/`st` are this backend's stream and a status
        // slot of its locked workspace.
        self.run_checked(&mut work, "vote", |s, st| unsafe {
            (self.table.vote)(
                s,
                st,
                self.launch_width,
                self.impl_code(),
                vote as u32,
                cptr(input.ptr),
                n as u64,
                launch.mask.bits(),
                dptr(out.ptr),
            )
        })?;
        self.read_u64s(&out, n)
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
        self.check_launch(launch, "shfl values", vals.len())?;
        self.width.check_sub_width(width)?;
        let n = launch.threads;
        // SAFETY: map_values passes a fresh upload of `vals` (n of them: check_launch compared the
        // length with the n threads) and a fresh output of n values; the launcher reads and writes
        // n of each, and nothing else holds them.
        self.map_values("shfl", vals, n, |s, st, input, out| unsafe {
            (self.table.shfl)(
                s,
                st,
                self.launch_width,
                kind::<T>(),
                kind_ as u32,
                input,
                n as u64,
                launch.mask.bits(),
                arg,
                width,
                out,
            )
        })
    }

    fn raw_match<T: Element>(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        kind_: Match,
        vals: &[T],
    ) -> Result<Vec<(u64, bool)>> {
        self.check_launch(launch, "match values", vals.len())?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = launch.threads;
        let input = self.buffer_from(vals)?;
        let masks = self.lanes_zeroed::<u64>(n)?;
        let preds = self.lanes_zeroed::<u8>(n)?;
        // SAFETY: the launcher reads n values from `input` (a fresh upload of `vals`, whose length
        // check_launch compared with the n threads) and writes n masks to `masks` and n bytes to
        // `preds` (fresh, sized for n); nothing else holds them.
        self.run_checked(&mut work, "match", |s, st| unsafe {
            (self.table.r#match)(
                s,
                st,
                self.launch_width,
                self.impl_code(),
                kind::<T>(),
                kind_ as u32,
                cptr(input.device_ptr()),
                n as u64,
                launch.mask.bits(),
                dptr(masks.ptr),
                dptr(preds.ptr),
            )
        })?;
        let m = self.read_u64s(&masks, n)?;
        let p = self.read_bytes(&preds, n)?;
        zipped(m, p, |m, p| (m, p != 0))
    }

    fn raw_activemask(&self, _: Validated, launch: &WarpLaunch) -> Result<Vec<u64>> {
        self.check_launch(launch, "activemask threads", launch.threads)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = launch.threads;
        let out = self.lanes_zeroed::<u64>(n)?;
        // SAFETY: the launcher writes one mask per thread, `n` u64s, to `out` (fresh, sized for n);
        // nothing else holds it.
        self.run_checked(&mut work, "activemask", |s, st| unsafe {
            (self.table.activemask)(
                s,
                st,
                self.launch_width,
                self.impl_code(),
                n as u64,
                launch.mask.bits(),
                dptr(out.ptr),
            )
        })?;
        self.read_u64s(&out, n)
    }

    fn raw_syncwarp_transpose<T: Element>(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        vals: &[T],
    ) -> Result<Vec<T>> {
        self.check_launch(launch, "transpose values", vals.len())?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = launch.threads;
        let input = self.buffer_from(vals)?;
        let out = self.buffer_zeroed::<T>(n)?;
        // SAFETY: the launcher reads n values from `input` (a fresh upload of `vals`, whose length
        // check_launch compared with the n threads) and writes n to `out` (fresh, n values);
        // nothing else holds them.
        self.run_checked(&mut work, "syncwarp_transpose", |s, st| unsafe {
            (self.table.syncwarp_transpose)(
                s,
                st,
                self.launch_width,
                self.impl_code(),
                kind::<T>(),
                cptr(input.device_ptr()),
                n as u64,
                launch.mask.bits(),
                dptr(out.device_ptr()),
            )
        })?;
        self.read(&out.mem, n)
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
        self.width.check_tile(tile)?;
        check_len("tile_shfl values", threads, vals.len())?;
        // SAFETY: map_values passes a fresh upload of `vals` (check_len: `threads` of them) and a
        // fresh output of `threads` values; the launcher reads and writes `threads` of each, and
        // nothing else holds them.
        self.map_values("tile_shfl", vals, threads, |s, st, input, out| unsafe {
            (self.table.tile_shfl)(
                s,
                st,
                self.launch_width,
                kind::<T>(),
                kind_ as u32,
                input,
                threads as u64,
                tile,
                arg,
                out,
            )
        })
    }

    fn raw_tile_vote(
        &self,
        _: Validated,
        threads: usize,
        tile: u32,
        vote: Vote,
        preds: &[bool],
    ) -> Result<Vec<u64>> {
        self.width.check_tile(tile)?;
        check_len("tile_vote predicates", threads, preds.len())?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let input = self.mem_from(&bools(preds)?)?;
        let out = self.lanes_zeroed::<u64>(threads)?;
        // SAFETY: the launcher reads `threads` predicates from `input` (a fresh upload of `preds`,
        // check_len: `threads` of them) and writes `threads` masks to `out` (fresh, sized for
        // them); nothing else holds either.
        self.run_checked(&mut work, "tile_vote", |s, st| unsafe {
            (self.table.tile_vote)(
                s,
                st,
                self.launch_width,
                self.impl_code(),
                vote as u32,
                cptr(input.ptr),
                threads as u64,
                tile,
                dptr(out.ptr),
            )
        })?;
        self.read_u64s(&out, threads)
    }

    fn raw_tile_reduce<T: Element>(
        &self,
        _: Validated,
        threads: usize,
        tile: u32,
        op: ReduceOp,
        vals: &[T],
    ) -> Result<Vec<T>> {
        self.width.check_tile(tile)?;
        check_len("tile_reduce values", threads, vals.len())?;
        // SAFETY: map_values passes a fresh upload of `vals` (check_len: `threads` of them) and a
        // fresh output of `threads` values; the launcher reads and writes `threads` of each, and
        // nothing else holds them.
        self.map_values("tile_reduce", vals, threads, |s, st, input, out| unsafe {
            (self.table.tile_reduce)(
                s,
                st,
                self.launch_width,
                kind::<T>(),
                op as u32,
                input,
                threads as u64,
                tile,
                out,
            )
        })
    }

    fn raw_warp_reduce<T: Element>(
        &self,
        _: Validated,
        vals: &[T],
        width: u32,
        op: ReduceOp,
    ) -> Result<Vec<T>> {
        self.width.check_sub_width(width)?;
        let n = vals.len();
        let segs = n.div_ceil(width as usize);
        // SAFETY: map_values passes a fresh upload of the n `vals` and a fresh output of `segs` =
        // ceil(n / width) values; the launcher reads n and writes one value per segment of `width`,
        // and nothing else holds them.
        self.map_values("warp_reduce", vals, segs, |s, st, input, out| unsafe {
            (self.table.warp_reduce)(
                s,
                st,
                self.launch_width,
                kind::<T>(),
                op as u32,
                input,
                n as u64,
                width,
                out,
            )
        })
    }

    fn raw_warp_reduce_sync<T: Element>(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        op: ReduceOp,
        vals: &[T],
    ) -> Result<Vec<T>> {
        self.check_launch(launch, "warp_reduce_sync values", vals.len())?;
        op.check::<T>()?;
        let n = launch.threads;
        // SAFETY: map_values passes a fresh upload of `vals` (check_launch: n of them, one per
        // thread) and a fresh output of n values; the launcher reads and writes n of each, and
        // nothing else holds them.
        self.map_values("warp_reduce_sync", vals, n, |s, st, input, out| unsafe {
            (self.table.warp_reduce_sync)(
                s,
                st,
                self.launch_width,
                self.impl_code(),
                kind::<T>(),
                op as u32,
                input,
                n as u64,
                launch.mask.bits(),
                out,
            )
        })
    }

    fn raw_warp_scan<T: Element>(
        &self,
        _: Validated,
        vals: &[T],
        width: u32,
        op: ReduceOp,
        scan: ScanKind,
    ) -> Result<Vec<T>> {
        self.width.check_sub_width(width)?;
        let n = vals.len();
        let exclusive = (scan == ScanKind::Exclusive) as u32;
        // SAFETY: map_values passes a fresh upload of the n `vals` and a fresh output of n values;
        // the launcher reads and writes n of each, and nothing else holds them.
        self.map_values("warp_scan", vals, n, |s, st, input, out| unsafe {
            (self.table.warp_scan)(
                s,
                st,
                self.launch_width,
                kind::<T>(),
                op as u32,
                exclusive,
                input,
                n as u64,
                width,
                out,
            )
        })
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
