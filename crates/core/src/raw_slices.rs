//! `RawSliceDevice`: what the collectives across devices (wavekit-dist) need of a backend
//! beyond [`RawBackend`], unvalidated: copies between buffers of one device, a strided read
//! back, and the device steps of the sharded reduce, scan, allreduce and sort.
//!
//! Sealed as `RawBackend` is (raw.rs): every method takes a [`Validated`] token, so only
//! [`SliceDevice`](crate::SliceDevice), which checks the arguments first, can call one. A
//! backend implements this trait to run wavekit-dist's collectives; nothing in wavekit-dist
//! names a backend.
//!
//! This trait only declares entry points; it calls nothing of the validated API (the raw layer
//! sits below it). The merge and the scan steps are optional: their provided methods answer
//! `Ok(None)`, "no kernel here", having touched nothing, and `SliceDevice` then composes the
//! step from the backend's own validated collectives (a sort for a merge, a scan per tile, a
//! fold on the host). A backend with a kernel for the step overrides the method and answers
//! `Ok(Some(..))`; it may also answer `Ok(None)` for some calls only (a GPU past its most
//! runs of a merge).
//!
//! Each method's arguments are the ones its validated twin checked (the "Called with"
//! sentences below); a backend may rely on them and may check them again. Results go into new
//! buffers or the outputs given; on a backend with a queue the work may only be enqueued, as
//! with `RawBackend`'s device collectives.

use crate::element::Element;
use crate::error::Result;
use crate::raw::{RawBackend, Validated};
use crate::vocab::{ReduceOp, ScanKind, SortOrder};
use std::ops::Range;

/// The device steps of the collectives across devices. Implemented by every backend that runs
/// them (the CPU and GPU backends); called only by [`SliceDevice`](crate::SliceDevice), which
/// hands over a [`Validated`] token (see the module docs).
pub trait RawSliceDevice: RawBackend {
    /// The most rows [`raw_reduce_rows_in_place`](Self::raw_reduce_rows_in_place) folds in one call
    /// (at least 1); the reproducible allreduce of more ranks than this composes pairwise
    /// exchanges instead.
    const MAX_REDUCE_ROWS: usize;
    /// [`MAX_REDUCE_ROWS`](Self::MAX_REDUCE_ROWS) under its former name.
    #[deprecated(since = "0.1.0", note = "renamed MAX_REDUCE_ROWS")]
    const MAX_BFLY_ROWS: usize = Self::MAX_REDUCE_ROWS;

    /// A new buffer holding a copy of `buf[range]`, copied on the device.
    ///
    /// Called with `range.start <= range.end <= buf.len()`.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`.
    fn raw_copy_range<T: Element>(
        &self,
        _: Validated,
        buf: &Self::Buffer<T>,
        range: Range<usize>,
    ) -> Result<Self::Buffer<T>>;

    /// A new buffer holding `parts` one after another, copied on the device.
    ///
    /// Called with any parts, empty ones included.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`.
    fn raw_concat<T: Element>(
        &self,
        _: Validated,
        parts: &[&Self::Buffer<T>],
    ) -> Result<Self::Buffer<T>>;

    /// `buf[start + k * stride]` for k in `0..count`, read back after the work queued before
    /// (as `download` waits), in one copy where the backend can.
    ///
    /// Called with every such index below `buf.len()` (`check_strided`); `count` may be 0.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory` (the host vector), `ForeignBuffer`, `Device`.
    fn raw_download_strided<T: Element>(
        &self,
        _: Validated,
        buf: &Self::Buffer<T>,
        start: usize,
        stride: usize,
        count: usize,
    ) -> Result<Vec<T>>;

    /// Overwrites `dst` with `src[start .. start + dst.len()]`, copied on the device.
    ///
    /// Called with `start + dst.len() <= src.len()` (no overflow).
    ///
    /// # Errors
    /// The backend's own: `ForeignBuffer`, `Device`.
    fn raw_copy_from<T: Element>(
        &self,
        _: Validated,
        dst: &mut Self::Buffer<T>,
        src: &Self::Buffer<T>,
        start: usize,
    ) -> Result<()>;

    /// Sizes the backend's workspace for collectives on up to `n` elements of `T`, so that
    /// planned collectives allocate nothing when they run. The default has no workspace.
    ///
    /// Called with any `n`.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `Device`.
    fn raw_reserve<T: Element>(&self, _: Validated, n: usize) -> Result<()> {
        let _ = n;
        Ok(())
    }

    /// Row `dst` of `rows` (`r` equal rows) becomes, column by column, the canonical
    /// butterfly over the rows (docs/SEMANTICS.md "dist_all_reduce"); the other rows stay.
    ///
    /// Called with `op` valid for `T`, `1 <= r <= MAX_REDUCE_ROWS`, `dst < r` and `rows.len()`
    /// a multiple of `r` (`check_reduce_rows`).
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`.
    fn raw_reduce_rows_in_place<T: Element>(
        &self,
        _: Validated,
        rows: &mut Self::Buffer<T>,
        r: usize,
        dst: usize,
        op: ReduceOp,
    ) -> Result<()>;

    /// The stable sort of `keys` by `order`, where `keys` is `runs.len()` runs one after
    /// another, each sorted stably by `order`, in a new buffer; `Ok(None)` when the backend has
    /// no merge for these runs (the default; a GPU past its most runs), having allocated and
    /// queued nothing: `SliceDevice` then sorts again.
    ///
    /// Called with a valid `order` for `K`, at least one run, and run lengths summing to
    /// `keys.len()`; a run that is not sorted gives some permutation of the keys.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`.
    fn raw_merge_runs_keys<K: Element>(
        &self,
        _: Validated,
        keys: &Self::Buffer<K>,
        runs: &[usize],
        order: SortOrder,
    ) -> Result<Option<Self::Buffer<K>>> {
        let _ = (keys, runs, order);
        Ok(None)
    }

    /// [`raw_merge_runs_keys`](Self::raw_merge_runs_keys) with a value beside each key, moved
    /// with it; `Ok(None)` as there (the default).
    ///
    /// Called as `raw_merge_runs_keys`, with `values` as long as `keys`.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`.
    #[allow(clippy::type_complexity)] // the merged pair, or none: an alias would hide it
    fn raw_merge_runs_pairs<K: Element, V: Element>(
        &self,
        _: Validated,
        keys: &Self::Buffer<K>,
        values: &Self::Buffer<V>,
        runs: &[usize],
        order: SortOrder,
    ) -> Result<Option<(Self::Buffer<K>, Self::Buffer<V>)>> {
        let _ = (keys, values, runs, order);
        Ok(None)
    }

    /// `out[t]` = the aggregate of tile `t` of `input` (docs/SEMANTICS.md "device_scan",
    /// steps 1-4), answering `Ok(Some(()))`; `Ok(None)` when the backend has no kernel for it
    /// (the default), `out` untouched: `SliceDevice` then scans tile by tile with the
    /// backend's own scan.
    ///
    /// Called with a full-width `T`, `op` valid for it, a non-empty input and one slot a
    /// `SCAN_TILE` tile in `out` (`check_scan_steps`).
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`.
    fn raw_scan_aggregates_into<T: Element>(
        &self,
        _: Validated,
        input: &Self::Buffer<T>,
        op: ReduceOp,
        out: &mut Self::Buffer<T>,
    ) -> Result<Option<()>> {
        let _ = (input, op, out);
        Ok(None)
    }

    /// The scan of `input` continuing an array whose earlier tiles fold to `carry[0]`
    /// (device_scan step 5 with `X_0 = carry[0]`; exclusive: `output[0] = carry[0]`),
    /// answering `Ok(Some(()))`; `Ok(None)` as `raw_scan_aggregates_into` (the default).
    ///
    /// Called as `raw_scan_aggregates_into`, with `output` the input's length and `carry`
    /// one element.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`.
    fn raw_scan_carried_into<T: Element>(
        &self,
        _: Validated,
        input: &Self::Buffer<T>,
        output: &mut Self::Buffer<T>,
        op: ReduceOp,
        kind: ScanKind,
        carry: &Self::Buffer<T>,
    ) -> Result<Option<()>> {
        let _ = (input, output, op, kind, carry);
        Ok(None)
    }

    /// `out[0]` = the left fold of `input`, in order (the chain of device_scan's tile
    /// prefixes over gathered aggregates), answering `Ok(Some(()))`; `Ok(None)` when the
    /// backend has no kernel for it (the default), `out` untouched: `SliceDevice` then folds
    /// on the host.
    ///
    /// Called as `raw_scan_aggregates_into`, with `out` one element.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`.
    fn raw_fold_left_into<T: Element>(
        &self,
        _: Validated,
        input: &Self::Buffer<T>,
        op: ReduceOp,
        out: &mut Self::Buffer<T>,
    ) -> Result<Option<()>> {
        let _ = (input, op, out);
        Ok(None)
    }

    /// `out[c]` = the reduce of chunk c of `input` before its rounding, in the accumulator
    /// type, chunks of `REDUCE_TILE^levels` elements (the last may be short): level `levels`
    /// of the device reduce's tree (docs/SEMANTICS.md "device_reduce", step 4).
    ///
    /// Called with `op` valid for `T`, `levels` in 1..=4, a non-empty input and one slot a
    /// chunk in `out` (`check_reduce_partials`).
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`.
    fn raw_reduce_partials_into<T: Element>(
        &self,
        _: Validated,
        input: &Self::Buffer<T>,
        op: ReduceOp,
        levels: u32,
        out: &mut Self::Buffer<T::Acc>,
    ) -> Result<()>;

    /// `out` (one element) = the reduce of partials of the accumulator type as the tree's
    /// levels above them, rounded to `T` once.
    ///
    /// Called with `op` valid for `T`, at least one partial and `out` one element
    /// (`check_reduce_acc`).
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`.
    fn raw_reduce_acc_into<T: Element>(
        &self,
        _: Validated,
        input: &Self::Buffer<T::Acc>,
        op: ReduceOp,
        out: &mut Self::Buffer<T>,
    ) -> Result<()>;
}
