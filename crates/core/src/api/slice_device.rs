//! [`SliceDevice`]: the validated device steps that the collectives across devices
//! (wavekit-dist) are made of, for every backend that implements
//! [`RawSliceDevice`](crate::RawSliceDevice). Each method checks its arguments here, then calls
//! the raw entry point of its name. Where that answers `Ok(None)` (the backend has no kernel
//! for the merge or the scan steps) the step is composed here from the backend's validated
//! collectives: a sort for a merge, its scan tile by tile, a fold on the host.

use super::{
    Collectives, Sort, SortOrder, check_len, check_reduce_acc, check_reduce_partials,
    check_reduce_rows, check_scan_steps, check_strided,
};
use crate::backend::{DeviceBuffer, ScanKind};
use crate::canonical::SCAN_TILE;
use crate::element::Element;
use crate::error::{Result, WavekitError};
use crate::raw::{RawSliceDevice, Validated};
use crate::vocab::ReduceOp;
use std::ops::Range;

/// What the collectives across devices need of one device beyond [`Collectives`]: copies
/// between its buffers (a GPU never round-trips a shard through the host), a strided read, and
/// the device steps of the sharded reduce, scan, allreduce and sort. wavekit-dist's
/// `Transport` asks this of its backend; the CPU and GPU backends have it.
///
/// Every argument is checked before any work, as in [`Collectives`]; on an error nothing is
/// written. On a backend with a queue the `_into` steps and
/// [`reduce_rows_in_place`](Self::reduce_rows_in_place) may only be enqueued.
///
/// ```
/// use wavekit::prelude::*;
/// use wavekit::SliceDevice;
///
/// let cpu = CpuBackend::new(WarpWidth::W32);
/// let a = cpu.upload(&[1u32, 2, 3, 4])?;
/// let b = cpu.upload(&[5u32, 6])?;
/// let ab = cpu.concat(&[&a, &b])?;
/// assert_eq!(cpu.download(&cpu.copy_range(&ab, 3..5)?)?, [4, 5]);
/// assert_eq!(cpu.download_strided(&ab, 1, 2, 3)?, [2, 4, 6]);
/// let mut two = cpu.alloc::<u32>(2)?;
/// cpu.copy_from(&mut two, &ab, 2)?;
/// assert_eq!(cpu.download(&two)?, [3, 4]);
/// assert!(cpu.copy_from(&mut two, &ab, 5).is_err()); // 5 + 2 is past the 6 elements
/// # Ok::<(), wavekit::WavekitError>(())
/// ```
pub trait SliceDevice: RawSliceDevice + Collectives {
    /// A new buffer holding a copy of `buf[range]` ([`Backend::slice`](crate::Backend::slice)
    /// borrows instead). Example: [`SliceDevice`].
    ///
    /// # Errors
    /// `IndexOutOfRange` when `range.end` is past the buffer, `InvalidRange` when it is
    /// before `range.start`; `ForeignBuffer`; `OutOfMemory`; a backend's `Device` error.
    fn copy_range<T: Element>(
        &self,
        buf: &Self::Buffer<T>,
        range: Range<usize>,
    ) -> Result<Self::Buffer<T>> {
        check_end("slice end", range.end, buf.len())?;
        crate::view::check_range(&range, buf.len())?;
        self.raw_copy_range(Validated::new(), buf, range)
    }

    /// A new buffer holding `parts` one after another. Example: [`SliceDevice`].
    ///
    /// # Errors
    /// `ForeignBuffer`; `OutOfMemory`; a backend's `Device` error.
    fn concat<T: Element>(&self, parts: &[&Self::Buffer<T>]) -> Result<Self::Buffer<T>> {
        self.raw_concat(Validated::new(), parts)
    }

    /// `buf[start + k * stride]` for k in `0..count`, read back (after the work queued
    /// before, as `download` waits) in one copy where the backend can. Example:
    /// [`SliceDevice`].
    ///
    /// # Errors
    /// `IndexOutOfRange` when the last element lies at or past the buffer's end (no
    /// overflow: any `start`, `stride` and `count` are safe to pass); `OutOfMemory` for the
    /// host vector; `ForeignBuffer`; a backend's `Device` error (also one a queued kernel
    /// reported).
    fn download_strided<T: Element>(
        &self,
        buf: &Self::Buffer<T>,
        start: usize,
        stride: usize,
        count: usize,
    ) -> Result<Vec<T>> {
        check_strided(buf.len(), start, stride, count)?;
        self.raw_download_strided(Validated::new(), buf, start, stride, count)
    }

    /// Overwrites `dst` with `src[start .. start + dst.len()]`. Example: [`SliceDevice`].
    ///
    /// # Errors
    /// `IndexOutOfRange` when that range ends past `src` (a `start` near `usize::MAX` too);
    /// `ForeignBuffer`; a backend's `Device` error.
    fn copy_from<T: Element>(
        &self,
        dst: &mut Self::Buffer<T>,
        src: &Self::Buffer<T>,
        start: usize,
    ) -> Result<()> {
        // Saturating: a start near usize::MAX is an error, not an overflow.
        check_end(
            "copy source end",
            start.saturating_add(dst.len()),
            src.len(),
        )?;
        self.raw_copy_from(Validated::new(), dst, src, start)
    }

    /// Sizes the backend's workspace for collectives on up to `n` elements of `T`, so that the
    /// planned collectives allocate nothing when they run (what a graph capture needs). A
    /// backend with no workspace (the CPU) does nothing.
    ///
    /// # Errors
    /// `OutOfMemory`; a backend's `Device` error.
    fn reserve<T: Element>(&self, n: usize) -> Result<()> {
        self.raw_reserve::<T>(Validated::new(), n)
    }

    /// `rows` holds `r` rows of `rows.len() / r` elements; row `dst` becomes, at every column
    /// j, the canonical butterfly over the rows' values there (docs/SEMANTICS.md "bfly" and
    /// "dist_all_reduce": padded with the identity to the next power of two, j combined with
    /// j + Q/2 first; the 16-bit floats in `f32`, rounded once). The other rows are left as
    /// they were. At most [`MAX_REDUCE_ROWS`](RawSliceDevice::MAX_REDUCE_ROWS) rows (the GPU
    /// backend's 32; the CPU's any number).
    ///
    /// ```
    /// use wavekit::prelude::*;
    /// use wavekit::SliceDevice;
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// // Three rows of two: row 0 becomes (x0 + x2) + x1, column by column.
    /// let mut rows = cpu.upload(&[1.0f32, 2.0, 10.0, 20.0, 100.0, 200.0])?;
    /// cpu.reduce_rows_in_place(&mut rows, 3, 0, ReduceOp::Sum)?;
    /// assert_eq!(rows.as_slice(), [111.0, 222.0, 10.0, 20.0, 100.0, 200.0]);
    /// assert!(cpu.reduce_rows_in_place(&mut rows, 4, 0, ReduceOp::Sum).is_err()); // 6 % 4
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedOp` (a bitwise op on floats), `IndexOutOfRange` for `r` outside
    /// 1..=`MAX_REDUCE_ROWS` or `dst >= r`, `LengthMismatch` when the length is not a multiple
    /// of `r`; `ForeignBuffer`; a backend's `Device` error.
    fn reduce_rows_in_place<T: Element>(
        &self,
        rows: &mut Self::Buffer<T>,
        r: usize,
        dst: usize,
        op: ReduceOp,
    ) -> Result<()> {
        check_reduce_rows::<T>(op, rows.len(), r, dst, Self::MAX_REDUCE_ROWS)?;
        self.raw_reduce_rows_in_place(Validated::new(), rows, r, dst, op)
    }

    /// [`reduce_rows_in_place`](Self::reduce_rows_in_place) under its former name.
    ///
    /// # Errors
    /// As `reduce_rows_in_place`'s.
    #[deprecated(since = "0.1.0", note = "renamed reduce_rows_in_place")]
    fn bfly_rows_in_place<T: Element>(
        &self,
        rows: &mut Self::Buffer<T>,
        r: usize,
        dst: usize,
        op: ReduceOp,
    ) -> Result<()> {
        self.reduce_rows_in_place(rows, r, dst, op)
    }

    /// The stable sort of `keys` by `order`, where `keys` is `runs.len()` runs one after
    /// another (run k of `runs[k]` keys), each already sorted stably by `order`: what the
    /// sample sort receives, one run from each rank. Equal keys keep the runs' order. A GPU
    /// merges the runs (up to `wavekit_gpu::MAX_MERGE_RUNS` of them; it sorts past that); the
    /// CPU sorts again. A run that is not sorted is not an error: the output is then some
    /// permutation of the keys.
    ///
    /// ```
    /// use wavekit::prelude::*;
    /// use wavekit::SliceDevice;
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let keys = cpu.upload(&[1u32, 4, 9, 2, 4, 8, 4])?; // runs [1, 4, 9], [2, 4, 8], [4]
    /// let merged = cpu.merge_runs_keys(&keys, &[3, 3, 1], SortOrder::ASCENDING)?;
    /// assert_eq!(cpu.download(&merged)?, [1, 2, 4, 4, 4, 8, 9]);
    /// assert!(cpu.merge_runs_keys(&keys, &[3, 3], SortOrder::ASCENDING).is_err());
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidBitRange` for the order, `EmptyInput` for no runs, `LengthMismatch` when the
    /// run lengths do not sum to the keys' length; `ForeignBuffer`; `OutOfMemory`; a
    /// backend's `Device` error.
    fn merge_runs_keys<K: Element>(
        &self,
        keys: &Self::Buffer<K>,
        runs: &[usize],
        order: SortOrder,
    ) -> Result<Self::Buffer<K>> {
        check_merge_runs::<K>(keys.len(), None, runs, order)?;
        match self.raw_merge_runs_keys(Validated::new(), keys, runs, order)? {
            Some(merged) => Ok(merged),
            // No merge here: a stable sort of the whole gives the merge's order.
            None => self.sort_keys(keys, order),
        }
    }

    /// [`merge_runs_keys`](Self::merge_runs_keys) with a value beside each key, moved with it.
    ///
    /// ```
    /// use wavekit::prelude::*;
    /// use wavekit::SliceDevice;
    /// let cpu = CpuBackend::new(WarpWidth::W64);
    /// let keys = cpu.upload(&[3i32, 5, 3, 4])?; // runs [3, 5], [3, 4]
    /// let vals = cpu.upload(&[0u64, 1, 2, 3])?;
    /// let (k, v) = cpu.merge_runs_pairs(&keys, &vals, &[2, 2], SortOrder::ASCENDING)?;
    /// assert_eq!(cpu.download(&k)?, [3, 3, 4, 5]);
    /// assert_eq!(cpu.download(&v)?, [0, 2, 3, 1]); // the first run's 3 first
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`merge_runs_keys`](Self::merge_runs_keys), and `LengthMismatch` when `values` is
    /// not as long as `keys`.
    fn merge_runs_pairs<K: Element, V: Element>(
        &self,
        keys: &Self::Buffer<K>,
        values: &Self::Buffer<V>,
        runs: &[usize],
        order: SortOrder,
    ) -> Result<(Self::Buffer<K>, Self::Buffer<V>)> {
        check_merge_runs::<K>(keys.len(), Some(values.len()), runs, order)?;
        match self.raw_merge_runs_pairs(Validated::new(), keys, values, runs, order)? {
            Some(merged) => Ok(merged),
            None => self.sort_pairs(keys, values, order),
        }
    }

    /// `out[t]` = the aggregate `A_t` of tile `t` of `input` (docs/SEMANTICS.md
    /// "device_scan", steps 1-4; tiles of `SCAN_TILE`, the last padded with the identity),
    /// bit for bit the last value of the tile's own scan: what the sharded scan gathers.
    ///
    /// ```
    /// use wavekit::prelude::*;
    /// use wavekit::SliceDevice;
    /// use wavekit::canonical::SCAN_TILE;
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let data: Vec<f32> = (0..3 * SCAN_TILE).map(|i| (i % 13) as f32 * 0.1).collect();
    /// let (head, tail) = data.split_at(2 * SCAN_TILE);
    /// // The aggregates of the head's two tiles, folded in order: the tail's carried prefix.
    /// let mut aggs = cpu.alloc::<f32>(2)?;
    /// cpu.scan_aggregates_into(&cpu.upload(head)?, ReduceOp::Sum, &mut aggs)?;
    /// let mut carry = cpu.alloc::<f32>(1)?;
    /// cpu.fold_left_into(&aggs, ReduceOp::Sum, &mut carry)?;
    /// let mut out = cpu.alloc::<f32>(tail.len())?;
    /// let tail = cpu.upload(tail)?;
    /// cpu.scan_carried_into(&tail, &mut out, ReduceOp::Sum, ScanKind::Inclusive, &carry)?;
    /// // The tail of the scan of the whole, bit for bit.
    /// let mut whole = cpu.alloc::<f32>(data.len())?;
    /// cpu.scan(&cpu.upload(&data)?, &mut whole, ReduceOp::Sum, ScanKind::Inclusive)?;
    /// assert_eq!(cpu.download(&out)?, cpu.download(&whole)?[2 * SCAN_TILE..]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedType` (f16, bf16), `UnsupportedOp`, `EmptyInput`, `LengthMismatch` unless
    /// `out` has one slot a tile; `ForeignBuffer`; `OutOfMemory`; a backend's `Device` error.
    fn scan_aggregates_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        op: ReduceOp,
        out: &mut Self::Buffer<T>,
    ) -> Result<()> {
        check_scan_steps::<T>("scan_aggregates", op, input.len(), out.len(), None)?;
        if self
            .raw_scan_aggregates_into(Validated::new(), input, op, out)?
            .is_some()
        {
            return Ok(());
        }
        let aggs: Vec<T> = tile_scans(self, input, op)?
            .iter()
            .map(|l| *l.last().expect("tiles are non-empty"))
            .collect();
        self.write(out, &aggs)
    }

    /// The device scan of `input` as the continuation of an array whose earlier tiles fold to
    /// `carry[0]` (device_scan step 5 with `X_0 = carry[0]`; exclusive: `output[0] =
    /// carry[0]`). Example: [`scan_aggregates_into`](Self::scan_aggregates_into).
    ///
    /// # Errors
    /// As [`scan_aggregates_into`](Self::scan_aggregates_into); `LengthMismatch` unless
    /// `output` is the input's length and `carry` one element.
    fn scan_carried_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        output: &mut Self::Buffer<T>,
        op: ReduceOp,
        kind: ScanKind,
        carry: &Self::Buffer<T>,
    ) -> Result<()> {
        check_scan_steps::<T>(
            "scan_carried",
            op,
            input.len(),
            output.len(),
            Some(carry.len()),
        )?;
        if self
            .raw_scan_carried_into(Validated::new(), input, output, op, kind, carry)?
            .is_some()
        {
            return Ok(());
        }
        let mut x = self.download(carry)?[0];
        let mut out = Vec::with_capacity(input.len());
        for l in tile_scans(self, input, op)? {
            let incl = l.iter().map(|&v| T::combine(op, x, v));
            match kind {
                ScanKind::Inclusive => out.extend(incl),
                ScanKind::Exclusive => {
                    out.push(x);
                    out.extend(incl.take(l.len() - 1));
                }
            }
            x = T::combine(op, x, *l.last().expect("tiles are non-empty"));
        }
        self.write(output, &out)
    }

    /// `out[0]` = the left fold `op(…op(op(input[0], input[1]), input[2])…)` of `input`, in
    /// order: the chain of device_scan's tile prefixes over gathered aggregates. Example:
    /// [`scan_aggregates_into`](Self::scan_aggregates_into).
    ///
    /// # Errors
    /// As [`scan_aggregates_into`](Self::scan_aggregates_into); `LengthMismatch` unless `out`
    /// is one element.
    fn fold_left_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        op: ReduceOp,
        out: &mut Self::Buffer<T>,
    ) -> Result<()> {
        check_scan_steps::<T>("fold_left", op, input.len(), out.len(), None)?;
        if self
            .raw_fold_left_into(Validated::new(), input, op, out)?
            .is_some()
        {
            return Ok(());
        }
        let v = self.download(input)?;
        let x = v[1..].iter().fold(v[0], |x, &a| T::combine(op, x, a));
        self.write(out, &[x])
    }

    /// `out[c]` = `reduce` of the chunk `input[c * REDUCE_TILE^levels ..]` of
    /// `REDUCE_TILE^levels` elements (the last may be short) before its rounding, in the
    /// accumulator type (`f32` for `f16` / `bf16`, the type itself otherwise): level `levels`
    /// (1..=4) of the device reduce's tree (docs/SEMANTICS.md "device_reduce", step 4), what
    /// the sharded reduce takes of each rank.
    ///
    /// ```
    /// use wavekit::prelude::*;
    /// use wavekit::SliceDevice;
    /// use wavekit::canonical::REDUCE_TILE;
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// // Two tiles of 16-bit ones: each partial is its tile's sum in f32, not rounded.
    /// let input = cpu.upload(&vec![f16::ONE; REDUCE_TILE + 3])?;
    /// let mut parts = cpu.alloc::<f32>(2)?;
    /// cpu.reduce_partials_into(&input, ReduceOp::Sum, 1, &mut parts)?;
    /// assert_eq!(parts.as_slice(), [REDUCE_TILE as f32, 3.0]);
    /// // The levels above them, rounded once: the device reduce of the whole input.
    /// let mut sum = cpu.alloc::<f16>(1)?;
    /// cpu.reduce_acc_into(&parts, ReduceOp::Sum, &mut sum)?;
    /// assert_eq!(sum.as_slice()[0], cpu.reduce(&input, ReduceOp::Sum)?);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedOp` (a bitwise op on floats), `EmptyInput`, `IndexOutOfRange` for `levels`
    /// outside 1..=4, `LengthMismatch` when `out` does not have one slot a chunk;
    /// `ForeignBuffer`; `OutOfMemory`; a backend's `Device` error.
    fn reduce_partials_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        op: ReduceOp,
        levels: u32,
        out: &mut Self::Buffer<T::Acc>,
    ) -> Result<()> {
        check_reduce_partials::<T>(op, input.len(), levels, out.len())?;
        self.raw_reduce_partials_into(Validated::new(), input, op, levels, out)
    }

    /// `out` (one element) = the reduce of `input`, values of `T`'s accumulator type, as the
    /// levels of the device reduce's tree above them, rounded to `T` once: of the partials
    /// [`reduce_partials_into`](Self::reduce_partials_into) gives for consecutive chunks of an
    /// array, in order, `reduce` of that array, bit for bit. Example:
    /// [`reduce_partials_into`](Self::reduce_partials_into).
    ///
    /// # Errors
    /// `UnsupportedOp`, `EmptyInput`, `LengthMismatch` when `out` is not one element;
    /// `ForeignBuffer`; `OutOfMemory`; a backend's `Device` error.
    fn reduce_acc_into<T: Element>(
        &self,
        input: &Self::Buffer<T::Acc>,
        op: ReduceOp,
        out: &mut Self::Buffer<T>,
    ) -> Result<()> {
        check_reduce_acc::<T>(op, input.len(), out.len())?;
        self.raw_reduce_acc_into(Validated::new(), input, op, out)
    }
}

impl<B: RawSliceDevice> SliceDevice for B {}

/// The sharded scan's device steps as a backend without their kernels computes them from its
/// own scan (what a GPU does in one launch each): tile by tile, each tile's scan alone being
/// its local values `L` (docs/SEMANTICS.md "device_scan"). `input` is non-empty (checked), so
/// every tile is too.
fn tile_scans<B: Collectives, T: Element>(
    b: &B,
    input: &B::Buffer<T>,
    op: ReduceOp,
) -> Result<Vec<Vec<T>>> {
    let mut out = Vec::new();
    for at in (0..input.len()).step_by(SCAN_TILE) {
        let tile = b.slice(input, at..(at + SCAN_TILE).min(input.len()))?;
        let mut l = b.alloc::<T>(tile.len())?;
        b.scan(&tile, &mut l, op, ScanKind::Inclusive)?;
        out.push(b.download(&l)?);
    }
    Ok(out)
}

/// `IndexOutOfRange` naming `what` unless `end <= len`.
fn check_end(what: &'static str, end: usize, len: usize) -> Result<()> {
    if end > len {
        return Err(WavekitError::IndexOutOfRange {
            what,
            value: end as u64,
            limit: len as u64,
        });
    }
    Ok(())
}

/// The checks of a merge of sorted runs: a valid order for `K`, at least one run, the run
/// lengths summing to the `n` keys, and the values (when given) one per key.
fn check_merge_runs<K: Element>(
    n: usize,
    values: Option<usize>,
    runs: &[usize],
    order: SortOrder,
) -> Result<()> {
    order.spec::<K>()?;
    if runs.is_empty() {
        return Err(WavekitError::EmptyInput {
            what: "merge runs (at least one run)",
        });
    }
    let total = runs.iter().try_fold(0usize, |t, &r| t.checked_add(r));
    check_len(
        "merge run lengths (summing to the keys)",
        n,
        total.unwrap_or(usize::MAX),
    )?;
    match values {
        Some(v) => check_len("values (one per key)", n, v),
        None => Ok(()),
    }
}
