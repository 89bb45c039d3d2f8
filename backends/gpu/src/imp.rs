//! The `Backend` trait for `GpuBackend`: each method uploads what it needs, runs one launcher
//! from the table and reads the result back.
//!
//! Defence in depth: every raw method checks its arguments against the buffers it is handed
//! again (lengths, mask width, sub-width, tile and block size) before any launch, although the
//! validated API already did, so no kernel reads or writes past an allocation.

use super::backend::{GpuBackend, Work};
use super::buffer::GpuBuffer;
use super::ffi::{self, dptr};
use super::runtime::GpuRuntime;
use wavekit_core::api::check_len;
use wavekit_core::canonical::MAX_BLOCK;
use wavekit_core::element::{Element, as_bytes};
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::width::{LOGICAL_GROUP, WarpWidth};
use wavekit_core::{
    Backend, HistogramResult, Match, RawBackend, ScanKind, SegmentSpec, Shfl, Validated, Vote,
    WarpLaunch,
};
use wavekit_core::{Predicate, ReduceOp};

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

    fn synchronize(&self) -> Result<()> {
        self.rt.make_current()?;
        self.rt.synchronize()
    }

    fn alloc<T: Element>(&self, len: usize) -> Result<GpuBuffer<T, R>> {
        self.rt.make_current()?;
        self.buffer_zeroed(len)
    }

    fn upload<T: Element>(&self, data: &[T]) -> Result<GpuBuffer<T, R>> {
        self.rt.make_current()?;
        self.buffer_from(data)
    }

    fn download<T: Element>(&self, buf: &GpuBuffer<T, R>) -> Result<Vec<T>> {
        self.own(buf)?;
        self.rt.make_current()?;
        self.read(buf.device_ptr(), buf.len)
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
}

impl<R: GpuRuntime> GpuBackend<R> {
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

    /// The count_if kernel over `input`, read back.
    fn count_on_device<T: Element>(
        &self,
        work: &Work<R>,
        call: &str,
        input: &GpuBuffer<T, R>,
        pred: Predicate<T>,
    ) -> Result<u64> {
        let (code, a, b) = pred.encode();
        let result = work.result.ptr;
        self.run_checked(work, call, |s, st| unsafe {
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
                dptr(result),
            )
        })?;
        Ok(self.read_u64s(result, 1)?[0])
    }

    /// The first slot (in thread order) at or past `limit`, if any: counted on the device with
    /// the count_if kernel; only when one exists are the slots read back to name it.
    fn first_slot_at_or_past(
        &self,
        work: &Work<R>,
        slots: &GpuBuffer<u32, R>,
        limit: usize,
    ) -> Result<Option<u32>> {
        let Ok(limit) = u32::try_from(limit) else {
            return Ok(None); // every u32 slot is below it
        };
        if self.count_on_device(
            work,
            "atomic_agg_inc slot check",
            slots,
            Predicate::Ge(limit),
        )? == 0
        {
            return Ok(None);
        }
        let host = self.read::<u32>(slots.device_ptr(), slots.len)?;
        Ok(host.into_iter().find(|&s| s >= limit))
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
        let work = self.lock();
        self.rt.make_current()?;
        let n = launch.threads;
        let input = self.mem_from(&bools(preds))?;
        let out = self.lanes_zeroed::<u64>(n)?;
        self.run_checked(&work, "vote", |s, st| unsafe {
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
        let work = self.lock();
        self.rt.make_current()?;
        let n = launch.threads;
        let input = self.buffer_from(vals)?;
        let out = self.buffer_zeroed::<T>(n)?;
        self.run_checked(&work, "shfl", |s, st| unsafe {
            (self.table.shfl)(
                s,
                st,
                self.launch_width,
                kind::<T>(),
                kind_ as u32,
                cptr(input.device_ptr()),
                n as u64,
                launch.mask.bits(),
                arg,
                width,
                dptr(out.device_ptr()),
            )
        })?;
        self.read(out.device_ptr(), n)
    }

    fn raw_match<T: Element>(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        kind_: Match,
        vals: &[T],
    ) -> Result<Vec<(u64, bool)>> {
        self.check_launch(launch, "match values", vals.len())?;
        let work = self.lock();
        self.rt.make_current()?;
        let n = launch.threads;
        let input = self.buffer_from(vals)?;
        let masks = self.lanes_zeroed::<u64>(n)?;
        let preds = self.lanes_zeroed::<u8>(n)?;
        self.run_checked(&work, "match", |s, st| unsafe {
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
        let work = self.lock();
        self.rt.make_current()?;
        let n = launch.threads;
        let out = self.lanes_zeroed::<u64>(n)?;
        self.run_checked(&work, "activemask", |s, st| unsafe {
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
        let work = self.lock();
        self.rt.make_current()?;
        let n = launch.threads;
        let input = self.buffer_from(vals)?;
        let out = self.buffer_zeroed::<T>(n)?;
        self.run_checked(&work, "syncwarp_transpose", |s, st| unsafe {
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
        let work = self.lock();
        self.rt.make_current()?;
        let input = self.buffer_from(vals)?;
        let out = self.buffer_zeroed::<T>(threads)?;
        self.run_checked(&work, "tile_shfl", |s, st| unsafe {
            (self.table.tile_shfl)(
                s,
                st,
                self.launch_width,
                kind::<T>(),
                kind_ as u32,
                cptr(input.device_ptr()),
                threads as u64,
                tile,
                arg,
                dptr(out.device_ptr()),
            )
        })?;
        self.read(out.device_ptr(), threads)
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
        let work = self.lock();
        self.rt.make_current()?;
        let input = self.mem_from(&bools(preds))?;
        let out = self.lanes_zeroed::<u64>(threads)?;
        self.run_checked(&work, "tile_vote", |s, st| unsafe {
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
        let work = self.lock();
        self.rt.make_current()?;
        let input = self.buffer_from(vals)?;
        let out = self.buffer_zeroed::<T>(threads)?;
        self.run_checked(&work, "tile_reduce", |s, st| unsafe {
            (self.table.tile_reduce)(
                s,
                st,
                self.launch_width,
                kind::<T>(),
                op as u32,
                cptr(input.device_ptr()),
                threads as u64,
                tile,
                dptr(out.device_ptr()),
            )
        })?;
        self.read(out.device_ptr(), threads)
    }

    fn raw_warp_reduce<T: Element>(
        &self,
        _: Validated,
        vals: &[T],
        width: u32,
        op: ReduceOp,
    ) -> Result<Vec<T>> {
        self.width.check_sub_width(width)?;
        let work = self.lock();
        self.rt.make_current()?;
        let n = vals.len();
        let segs = n.div_ceil(width as usize);
        let input = self.buffer_from(vals)?;
        let out = self.buffer_zeroed::<T>(segs)?;
        self.run_checked(&work, "warp_reduce", |s, st| unsafe {
            (self.table.warp_reduce)(
                s,
                st,
                self.launch_width,
                kind::<T>(),
                op as u32,
                cptr(input.device_ptr()),
                n as u64,
                width,
                dptr(out.device_ptr()),
            )
        })?;
        self.read(out.device_ptr(), segs)
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
        let work = self.lock();
        self.rt.make_current()?;
        let n = launch.threads;
        let input = self.buffer_from(vals)?;
        let out = self.buffer_zeroed::<T>(n)?;
        self.run_checked(&work, "warp_reduce_sync", |s, st| unsafe {
            (self.table.warp_reduce_sync)(
                s,
                st,
                self.launch_width,
                self.impl_code(),
                kind::<T>(),
                op as u32,
                cptr(input.device_ptr()),
                n as u64,
                launch.mask.bits(),
                dptr(out.device_ptr()),
            )
        })?;
        self.read(out.device_ptr(), n)
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
        let work = self.lock();
        self.rt.make_current()?;
        let n = vals.len();
        let input = self.buffer_from(vals)?;
        let out = self.buffer_zeroed::<T>(n)?;
        let exclusive = (scan == ScanKind::Exclusive) as u32;
        self.run_checked(&work, "warp_scan", |s, st| unsafe {
            (self.table.warp_scan)(
                s,
                st,
                self.launch_width,
                kind::<T>(),
                op as u32,
                exclusive,
                cptr(input.device_ptr()),
                n as u64,
                width,
                dptr(out.device_ptr()),
            )
        })?;
        self.read(out.device_ptr(), n)
    }

    fn raw_block_reduce<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        block: u32,
        op: ReduceOp,
    ) -> Result<Vec<T>> {
        self.own(input)?;
        if !block.is_multiple_of(LOGICAL_GROUP) || block == 0 || block > MAX_BLOCK {
            return Err(WavekitError::InvalidBlockSize(block));
        }
        let work = self.lock();
        self.rt.make_current()?;
        let n = input.len;
        let blocks = n.div_ceil(block as usize);
        let out = self.buffer_zeroed::<T>(blocks)?;
        self.run_checked(&work, "block_reduce", |s, st| unsafe {
            (self.table.block_reduce)(
                s,
                st,
                kind::<T>(),
                op as u32,
                cptr(input.device_ptr()),
                n as u64,
                block,
                dptr(out.device_ptr()),
            )
        })?;
        self.read(out.device_ptr(), blocks)
    }

    fn raw_device_reduce<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        op: ReduceOp,
    ) -> Result<T> {
        self.own(input)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = input.len;
        let bytes = self.scratch_bytes(ffi::ALGO_DEVICE_REDUCE, T::KIND, n);
        let scratch = self.ensure_reduce_pool(&mut work, bytes)?;
        let result = work.result.ptr;
        self.run_checked(&work, "device_reduce", |s, st| unsafe {
            (self.table.device_reduce)(
                s,
                st,
                kind::<T>(),
                op as u32,
                cptr(input.device_ptr()),
                n as u64,
                dptr(scratch),
                bytes,
                dptr(result),
            )
        })?;
        Ok(self.read::<T>(result, 1)?[0])
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
        self.run_checked(&work, "device_scan", |s, st| unsafe {
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
        let (offsets, size, count, vector) = match segments {
            SegmentSpec::Fixed {
                size,
                count,
                vector,
            } => (0, size as u64, count, vector),
            SegmentSpec::Offsets {
                offsets,
                count,
                vector,
            } => {
                self.own(offsets)?;
                check_len(
                    "segment offsets (count + 1)",
                    count.saturating_add(1),
                    offsets.len,
                )?;
                (offsets.device_ptr(), 0, count, vector)
            }
        };
        check_len(
            "segmented reduce output (one per segment)",
            count,
            output.len,
        )?;
        let work = self.lock();
        self.rt.make_current()?;
        self.run_checked(&work, "segmented_reduce", |s, st| unsafe {
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
        // themselves are checked against x's length by the kernels.
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
        let status = self.run(&work, "spmv", |s, st| unsafe {
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
        })?;
        match status.code {
            ffi::OK => Ok(()),
            ffi::ERR_INDEX => Err(WavekitError::IndexOutOfRange {
                what: "SpMV column",
                value: status.detail & u64::from(u32::MAX),
                limit: x.len as u64,
            }),
            code => Err(self.device_error("spmv", self.message(code))),
        }
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
        let work = self.lock();
        self.rt.make_current()?;
        // All or nothing: a validation pass over the slots before the increment kernel, so
        // that a bad slot moves no counter (the kernel's own check would skip only that
        // thread, after other warps had already added).
        if let Some(bad) = self.first_slot_at_or_past(&work, slots, counters.len)? {
            return Err(WavekitError::IndexOutOfRange {
                what: "atomic_agg_inc slot",
                value: u64::from(bad),
                limit: counters.len as u64,
            });
        }
        let status = self.run(&work, "atomic_agg_inc", |s, st| unsafe {
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
        })?;
        match status.code {
            ffi::OK => Ok(()),
            ffi::ERR_INDEX => Err(WavekitError::IndexOutOfRange {
                what: "atomic_agg_inc slot",
                value: status.detail & u64::from(u32::MAX),
                limit: counters.len as u64,
            }),
            code => {
                Err(self.device_error("atomic_agg_inc", format!("kernel reported error {code}")))
            }
        }
    }

    fn raw_count_if<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        pred: Predicate<T>,
    ) -> Result<u64> {
        self.own(input)?;
        let work = self.lock();
        self.rt.make_current()?;
        self.count_on_device(&work, "count_if", input, pred)
    }

    fn raw_compact<T: Element>(
        &self,
        _: Validated,
        input: &GpuBuffer<T, R>,
        pred: Predicate<T>,
        stable: bool,
        output: &mut GpuBuffer<T, R>,
    ) -> Result<usize> {
        self.own(input)?;
        self.own(output)?;
        if output.len < input.len {
            return Err(WavekitError::LengthMismatch {
                what: "compaction output (at least the input's length)",
                expected: input.len,
                got: output.len,
            });
        }
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = input.len;
        let bytes = if stable {
            self.scratch_bytes(ffi::ALGO_COMPACT, T::KIND, n)
        } else {
            0
        };
        let scratch = self.ensure_pool(&mut work, bytes)?;
        let (code, a, b) = pred.encode();
        let result = work.result.ptr;
        self.run_checked(&work, "compact", |s, st| unsafe {
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
                dptr(result),
            )
        })?;
        Ok(self.read_u64s(result, 1)?[0] as usize)
    }

    fn raw_histogram(
        &self,
        _: Validated,
        keys: &GpuBuffer<u32, R>,
        bins: u32,
    ) -> Result<HistogramResult> {
        self.own(keys)?;
        let work = self.lock();
        self.rt.make_current()?;
        let slots = (bins as usize).saturating_add(1);
        let out = self.lanes_zeroed::<u64>(slots)?;
        self.run_checked(&work, "histogram", |s, st| unsafe {
            (self.table.histogram)(
                s,
                st,
                cptr(keys.device_ptr()),
                keys.len as u64,
                bins,
                dptr(out.ptr),
            )
        })?;
        let mut counts = self.read_u64s(out.ptr, slots)?;
        let outside = counts.pop().expect("bins + 1 slots");
        Ok(HistogramResult { counts, outside })
    }
}
