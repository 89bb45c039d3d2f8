//! The `Backend` trait for `GpuBackend`. The warp primitives upload their host values, run one
//! launcher from the table and read the result back; the device collectives enqueue their
//! launcher on the stream with the caller's output pointers and return without waiting.
//!
//! Defence in depth: every raw method checks its arguments against the buffers it is handed
//! again (lengths, mask width, sub-width, tile and block size) before any launch, although the
//! validated API already did, so no kernel reads or writes past an allocation.

use super::backend::{GpuBackend, Reports, Work};
use super::buffer::GpuBuffer;
use super::ffi::{self, Status, dptr};
use super::runtime::{DevPtr, GpuRuntime};
use std::ffi::c_void;
use std::ops::Range;
use wavekit_core::api::check_len;
use wavekit_core::canonical::MAX_BLOCK;
use wavekit_core::element::{Element, as_bytes};
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::width::{LOGICAL_GROUP, WarpWidth};
use wavekit_core::{
    ArgOp, Backend, ByKeyOut, Match, RawBackend, RunsOut, ScanKind, SegmentSpec, Shfl, SortSpec,
    Validated, Vote, WarpLaunch,
};
use wavekit_core::{Predicate, ReduceOp, View, ViewMut};

fn cptr<T>(p: u64) -> *const T {
    dptr::<T>(p).cast_const()
}

fn bools(preds: &[bool]) -> Vec<u8> {
    preds.iter().map(|&p| p as u8).collect()
}

fn kind<T: Element>() -> u32 {
    T::KIND as u32
}

impl<R: GpuRuntime> Backend for GpuBackend<R> {
    type Buffer<T: Element> = GpuBuffer<T, R>;

    fn name(&self) -> String {
        let emu = if self.emulation() {
            " [emulated primitives]"
        } else {
            ""
        };
        format!(
            "{}:{} ({}){emu}",
            R::BACKEND,
            self.rt.ordinal(),
            self.rt.device_name()
        )
    }

    fn warp_width(&self) -> WarpWidth {
        self.width
    }

    /// Waits for the work queued on this backend's stream, then returns the first error its
    /// kernels reported (see [`Collectives`](wavekit_core::Collectives)).
    fn synchronize(&self) -> Result<()> {
        self.synchronize_flushed()
    }

    fn alloc<T: Element>(&self, len: usize) -> Result<GpuBuffer<T, R>> {
        self.rt.make_current()?;
        let buf = self.buffer_zeroed(len)?;
        // The zero fill is queued on this stream: wait for it (as `upload` waits for its copy),
        // so that a backend on another stream of the device may write the buffer at once.
        // Without this, its kernel could run before the fill and be overwritten by zeros
        // (found by compute-sanitizer racecheck slowing the kernels in tests/fuzz_streams.rs).
        if len != 0 {
            self.rt.synchronize()?;
        }
        Ok(buf)
    }

    fn upload<T: Element>(&self, data: &[T]) -> Result<GpuBuffer<T, R>> {
        self.rt.make_current()?;
        self.buffer_from(data)
    }

    fn download<T: Element>(&self, buf: &GpuBuffer<T, R>) -> Result<Vec<T>> {
        self.own(buf)?;
        self.read_flushed(buf.device_ptr(), buf.len)
    }

    fn write<T: Element>(&self, buf: &mut GpuBuffer<T, R>, data: &[T]) -> Result<()> {
        self.own(buf)?;
        if data.len() != buf.len {
            return Err(WavekitError::LengthMismatch {
                what: "write source",
                expected: buf.len,
                got: data.len(),
            });
        }
        self.rt.make_current()?;
        if buf.bytes() != 0 {
            self.rt.copy_htod(buf.device_ptr(), as_bytes(data))?;
        }
        Ok(())
    }

    fn slice<'a, T: Element>(
        &self,
        buf: &'a GpuBuffer<T, R>,
        range: Range<usize>,
    ) -> Result<View<'a, GpuBuffer<T, R>>> {
        self.slice_of(buf, range)
    }

    fn slice_mut<'a, T: Element>(
        &self,
        buf: &'a mut GpuBuffer<T, R>,
        range: Range<usize>,
    ) -> Result<ViewMut<'a, GpuBuffer<T, R>>> {
        self.slice_mut_of(buf, range)
    }
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
        self.read(out.device_ptr(), out_len)
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

    /// Enqueues the count_if kernel over `input`, its count into the `u64` at `out`; an empty
    /// input writes 0 without a launch (the kernels need one element).
    fn enqueue_count_if<T: Element>(
        &self,
        work: &mut Work<R>,
        call: &'static str,
        input: &GpuBuffer<T, R>,
        pred: Predicate<T>,
        out: DevPtr,
    ) -> Result<()> {
        if input.len == 0 {
            return self.rt.memset_zero(out, size_of::<u64>());
        }
        let (code, a, b) = pred.encode();
        // The count_if launcher does not pass the status word to its kernel.
        self.launch(work, call, Reports::Nothing, |s, st| unsafe {
            (self.table.count_if)(
                s,
                st,
                kind::<T>(),
                code,
                a,
                b,
                cptr(input.device_ptr()),
                input.len as u64,
                std::ptr::null_mut(),
                0,
                dptr(out),
            )
        })
    }

    /// The first slot (in thread order) at or past `limit`, if any: counted on the device with
    /// the count_if kernel and read back (this waits for the stream); only when one exists are
    /// the slots read back to name it.
    fn first_slot_at_or_past(
        &self,
        work: &mut Work<R>,
        slots: &GpuBuffer<u32, R>,
        limit: usize,
    ) -> Result<Option<u32>> {
        let Ok(limit) = u32::try_from(limit) else {
            return Ok(None); // every u32 slot is below it
        };
        let result = work.result.ptr;
        self.enqueue_count_if(
            work,
            "atomic_agg_inc slot check",
            slots,
            Predicate::Ge(limit),
            result,
        )?;
        if self.read::<u64>(result, 1)?[0] == 0 {
            return Ok(None);
        }
        let host = self.read::<u32>(slots.device_ptr(), slots.len)?;
        Ok(host.into_iter().find(|&s| s >= limit))
    }
}

impl<R: GpuRuntime> GpuBackend<R> {
    /// A segment spec as the segmented launchers take it: the offsets' device address (0 for
    /// fixed segments, whose size comes second), the segment count and the vector size. The
    /// offsets are checked to be this backend's and `count + 1` long.
    pub(crate) fn segment_args(
        &self,
        segments: SegmentSpec<'_, GpuBuffer<u32, R>>,
    ) -> Result<(DevPtr, u64, usize, u32)> {
        Ok(match segments {
            SegmentSpec::Fixed {
                size,
                count,
                vector,
            } => (0, size as u64, count, vector),
            SegmentSpec::Offsets {
                offsets,
                count,
                vector,
                ..
            } => {
                self.own(offsets)?;
                check_len(
                    "segment offsets (count + 1)",
                    count.saturating_add(1),
                    offsets.len,
                )?;
                (offsets.device_ptr(), 0, count, vector)
            }
        })
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
        let input = self.mem_from(&bools(preds))?;
        let out = self.lanes_zeroed::<u64>(n)?;
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
        self.read_u64s(out.ptr, n)
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
        let m = self.read_u64s(masks.ptr, n)?;
        let p = self.read_bytes(preds.ptr, n)?;
        Ok(m.into_iter().zip(p).map(|(m, p)| (m, p != 0)).collect())
    }

    fn raw_activemask(&self, _: Validated, launch: &WarpLaunch) -> Result<Vec<u64>> {
        self.check_launch(launch, "activemask threads", launch.threads)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = launch.threads;
        let out = self.lanes_zeroed::<u64>(n)?;
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
        self.read_u64s(out.ptr, n)
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
        self.read(out.device_ptr(), n)
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
        let input = self.mem_from(&bools(preds))?;
        let out = self.lanes_zeroed::<u64>(threads)?;
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
        self.read_u64s(out.ptr, threads)
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
        self.own(input)?;
        self.own(output)?;
        if !block.is_multiple_of(LOGICAL_GROUP) || block == 0 || block > MAX_BLOCK {
            return Err(WavekitError::InvalidBlockSize(block));
        }
        let n = input.len;
        check_len(
            "block reduce output (one per block)",
            n.div_ceil(block as usize),
            output.len,
        )?;
        let mut work = self.lock();
        // The block_reduce launcher does not pass the status word to its kernel.
        self.launch(
            &mut work,
            "block_reduce",
            Reports::Nothing,
            |s, st| unsafe {
                (self.table.block_reduce)(
                    s,
                    st,
                    kind::<T>(),
                    op as u32,
                    cptr(input.device_ptr()),
                    n as u64,
                    block,
                    dptr(output.device_ptr()),
                )
            },
        )
    }

    fn raw_device_reduce<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        op: ReduceOp,
        output: &mut GpuBuffer<T, R>,
    ) -> Result<()> {
        self.own(input)?;
        self.own(output)?;
        check_len("reduce output (one element)", 1, output.len)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = input.len;
        let bytes = self.scratch_bytes(ffi::ALGO_DEVICE_REDUCE, T::KIND, n);
        let scratch = self.ensure_reduce_pool(&mut work, bytes)?;
        // The device_reduce launcher does not pass the status word to its kernels.
        self.launch(
            &mut work,
            "device_reduce",
            Reports::Nothing,
            |s, st| unsafe {
                (self.table.device_reduce)(
                    s,
                    st,
                    kind::<T>(),
                    op as u32,
                    cptr(input.device_ptr()),
                    n as u64,
                    dptr(scratch),
                    bytes,
                    dptr(output.device_ptr()),
                )
            },
        )
    }

    fn raw_device_scan<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        output: &mut GpuBuffer<T, R>,
        op: ReduceOp,
        scan: ScanKind,
    ) -> Result<()> {
        self.own(input)?;
        self.own(output)?;
        check_len("scan output", input.len, output.len)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = input.len;
        let bytes = self.scratch_bytes(ffi::ALGO_DEVICE_SCAN, T::KIND, n);
        let scratch = self.ensure_pool(&mut work, bytes)?;
        let exclusive = (scan == ScanKind::Exclusive) as u32;
        self.launch(&mut work, "device_scan", Reports::Errors, |s, st| unsafe {
            (self.table.device_scan)(
                s,
                st,
                kind::<T>(),
                op as u32,
                exclusive,
                cptr(input.device_ptr()),
                n as u64,
                dptr(scratch),
                bytes,
                dptr(output.device_ptr()),
            )
        })
    }

    fn raw_segmented_reduce<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        segments: SegmentSpec<'_, GpuBuffer<u32, R>>,
        op: ReduceOp,
        output: &mut GpuBuffer<T, R>,
    ) -> Result<()> {
        self.own(input)?;
        self.own(output)?;
        let (offsets, size, count, vector) = self.segment_args(segments)?;
        check_len(
            "segmented reduce output (one per segment)",
            count,
            output.len,
        )?;
        let mut work = self.lock();
        // The kernels check the offsets against the input's length again (an offset past it
        // comes back at the next synchronisation); fixed segments cannot leave it.
        let reports = match offsets {
            0 => Reports::Nothing,
            _ => Reports::Index {
                what: "segment offset",
                limit: input.len as u64 + 1,
            },
        };
        self.launch(&mut work, "segmented_reduce", reports, |s, st| unsafe {
            (self.table.segmented_reduce)(
                s,
                st,
                kind::<T>(),
                op as u32,
                cptr(input.device_ptr()),
                input.len as u64,
                cptr(offsets),
                size,
                count as u64,
                vector,
                dptr(output.device_ptr()),
            )
        })
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
        self.own(row_offsets)?;
        self.own(cols)?;
        self.own(vals)?;
        self.own(x)?;
        self.own(y)?;
        // One offset per row and one past; one value per column index. The column indices
        // themselves are checked against x's length by the kernels, which report the first
        // bad one through the status word (an error at the next synchronisation).
        check_len(
            "SpMV row offsets (rows + 1)",
            y.len.saturating_add(1),
            row_offsets.len,
        )?;
        check_len("SpMV values (one per column index)", cols.len, vals.len)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let nnz = cols.len;
        let bytes = self.scratch_bytes(ffi::ALGO_SPMV, T::KIND, nnz);
        let scratch = self.ensure_pool(&mut work, bytes)?;
        let reports = Reports::Index {
            what: "SpMV column",
            limit: x.len as u64,
        };
        self.launch(&mut work, "spmv", reports, |s, st| unsafe {
            (self.table.spmv_balanced)(
                s,
                st,
                kind::<T>(),
                cptr(row_offsets.device_ptr()),
                cptr(cols.device_ptr()),
                cptr(vals.device_ptr()),
                cptr(x.device_ptr()),
                x.len as u64,
                y.len as u64,
                nnz as u64,
                vector,
                dptr(scratch),
                bytes,
                dptr(y.device_ptr()),
            )
        })
    }

    fn raw_atomic_agg_inc(
        &self,
        _: Validated,
        slots: &GpuBuffer<u32, R>,
        counters: &mut GpuBuffer<u32, R>,
        olds: &mut GpuBuffer<u32, R>,
    ) -> Result<()> {
        self.own(slots)?;
        self.own(counters)?;
        self.own(olds)?;
        check_len("atomic_agg_inc olds (one per slot)", slots.len, olds.len)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        // All or nothing: a validation pass over the slots before the increment kernel, so
        // that a bad slot moves no counter (the kernel's own check would skip only that
        // thread, after other warps had already added). It waits for its count.
        if let Some(bad) = self.first_slot_at_or_past(&mut work, slots, counters.len)? {
            return Err(WavekitError::IndexOutOfRange {
                what: "atomic_agg_inc slot",
                value: u64::from(bad),
                limit: counters.len as u64,
            });
        }
        let reports = Reports::Index {
            what: "atomic_agg_inc slot",
            limit: counters.len as u64,
        };
        self.launch(&mut work, "atomic_agg_inc", reports, |s, st| unsafe {
            (self.table.atomic_agg_inc)(
                s,
                st,
                self.launch_width,
                self.impl_code(),
                cptr(slots.device_ptr()),
                slots.len as u64,
                dptr(counters.device_ptr()),
                counters.len as u64,
                dptr(olds.device_ptr()),
            )
        })
    }

    fn raw_count_if<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        pred: Predicate<T>,
        count: &mut GpuBuffer<u64, R>,
    ) -> Result<()> {
        self.own(input)?;
        self.own(count)?;
        check_len("count_if output (one element)", 1, count.len)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        self.enqueue_count_if(&mut work, "count_if", input, pred, count.device_ptr())
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
        self.own(input)?;
        self.own(output)?;
        self.own(count)?;
        if output.len < input.len {
            return Err(WavekitError::LengthMismatch {
                what: "compaction output (at least the input's length)",
                expected: input.len,
                got: output.len,
            });
        }
        check_len("compaction count (one element)", 1, count.len)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = input.len;
        if n == 0 {
            return self.rt.memset_zero(count.device_ptr(), size_of::<u64>());
        }
        let bytes = if stable {
            self.scratch_bytes(ffi::ALGO_COMPACT, T::KIND, n)
        } else {
            0
        };
        let scratch = self.ensure_pool(&mut work, bytes)?;
        let (code, a, b) = pred.encode();
        self.launch(&mut work, "compact", Reports::Errors, |s, st| unsafe {
            (self.table.compact)(
                s,
                st,
                self.launch_width,
                kind::<T>(),
                code,
                a,
                b,
                stable as u32,
                cptr(input.device_ptr()),
                n as u64,
                dptr(scratch),
                bytes,
                dptr(output.device_ptr()),
                dptr(count.device_ptr()),
            )
        })
    }

    fn raw_histogram(
        &self,
        _: Validated,
        keys: &GpuBuffer<u32, R>,
        bins: u32,
        counts: &mut GpuBuffer<u64, R>,
    ) -> Result<()> {
        self.own(keys)?;
        self.own(counts)?;
        if bins == 0 {
            return Err(WavekitError::ZeroBins);
        }
        let slots = (bins as usize).saturating_add(1);
        check_len("histogram counts (bins + 1)", slots, counts.len)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        if keys.len == 0 {
            return self
                .rt
                .memset_zero(counts.device_ptr(), slots * size_of::<u64>());
        }
        // The histogram launcher zeroes the counts itself and does not pass the status word.
        self.launch(&mut work, "histogram", Reports::Nothing, |s, st| unsafe {
            (self.table.histogram)(
                s,
                st,
                cptr(keys.device_ptr()),
                keys.len as u64,
                bins,
                dptr(counts.device_ptr()),
            )
        })
    }

    fn raw_scalar<T: Element>(
        &self,
        _: Validated,
        fill: impl FnOnce(&mut GpuBuffer<T, R>) -> Result<()>,
    ) -> Result<T> {
        // A slot this backend keeps, so a convenience allocates nothing in steady state.
        let mut out = GpuBuffer::<T, R>::from_mem(self.take_slot()?, 1);
        let value = fill(&mut out).and_then(|()| self.read_flushed::<T>(out.device_ptr(), 1));
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
