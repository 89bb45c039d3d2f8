//! `RawBackend`: the kernel entry points each backend implements, unvalidated.
//!
//! Every method takes arguments the validated API (api/) has already checked, so a backend
//! never sees a bad width, mask, length or index; results for lanes whose value is undefined
//! are unspecified here and turned into `None` by the API. Because these methods trust their
//! arguments, users must not be able to call them: each takes a [`Validated`] token, which only
//! this crate's API layer can make. Any crate can implement `RawBackend` (that is how the
//! backends plug in), but only `WarpPrimitives` and `Collectives` can call it. This is a sealed
//! call rather than an `unsafe fn` because a wrong argument must be impossible, not merely
//! documented: no `unsafe` block in a user's program can reach an unchecked launch.

use crate::backend::Backend;
use crate::element::Element;
use crate::error::Result;
use crate::predicate::Predicate;
use crate::vocab::{ArgOp, Match, ReduceOp, ScanKind, Shfl, Vote};

pub use crate::raw_args::{ByKeyOut, RunsOut, SegmentSpec, Validated, WarpLaunch};
pub use crate::raw_slices::RawSliceDevice;
pub use crate::vocab::SortSpec;

/// The kernel entry points of a backend. Implemented by every backend; called only by the
/// validated API, which hands over a [`Validated`] token (see the module docs).
pub trait RawBackend: Backend {
    // ---- warp primitives: one value per lane of the launch ----
    /// Vote results as bits: 0/1 for all/any/uni, the ballot mask for Ballot.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_vote(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        vote: Vote,
        preds: &[bool],
    ) -> Result<Vec<u64>>;
    /// A kernel entry point; see the validated method of the same name.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_shfl<T: Element>(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        kind: Shfl,
        vals: &[T],
        arg: i32,
        width: u32,
    ) -> Result<Vec<T>>;
    /// match_any: the mask of members holding the same bits. match_all: (mask or 0, pred).
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_match<T: Element>(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        kind: Match,
        vals: &[T],
    ) -> Result<Vec<(u64, bool)>>;
    /// `__activemask()` called by the member lanes inside a branch that only they take.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_activemask(&self, _: Validated, launch: &WarpLaunch) -> Result<Vec<u64>>;
    /// Seed 000's transpose: members store, `__syncwarp(mask)`, then read the transposed slot.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_syncwarp_transpose<T: Element>(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        vals: &[T],
    ) -> Result<Vec<T>>;
    /// Tile-level shuffle over tiles of `tile` lanes (`arg` as in `raw_shfl`, width = tile);
    /// a lane whose source lies outside its tile may hold anything.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_tile_shfl<T: Element>(
        &self,
        _: Validated,
        threads: usize,
        tile: u32,
        kind: Shfl,
        vals: &[T],
        arg: i32,
    ) -> Result<Vec<T>>;
    /// Tile-level vote; Ballot bits are tile ranks.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_tile_vote(
        &self,
        _: Validated,
        threads: usize,
        tile: u32,
        vote: Vote,
        preds: &[bool],
    ) -> Result<Vec<u64>>;
    /// Tile-level reduce: every lane of a tile gets the tile's butterfly result.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_tile_reduce<T: Element>(
        &self,
        _: Validated,
        threads: usize,
        tile: u32,
        op: ReduceOp,
        vals: &[T],
    ) -> Result<Vec<T>>;

    // ---- warp collectives over sub-width segments (identity pads a short last segment) ----
    /// One butterfly result per segment of `width` lanes.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_warp_reduce<T: Element>(
        &self,
        _: Validated,
        vals: &[T],
        width: u32,
        op: ReduceOp,
    ) -> Result<Vec<T>>;
    /// `__reduce_*_sync(mask, v)`: every member lane gets the reduction over its warp's
    /// members (floats in the canonical order of docs/SEMANTICS.md "warp_reduce_sync");
    /// other lanes may hold anything.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_warp_reduce_sync<T: Element>(
        &self,
        _: Validated,
        launch: &WarpLaunch,
        op: ReduceOp,
        vals: &[T],
    ) -> Result<Vec<T>>;
    /// Kogge-Stone scan within each segment of `width` lanes.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_warp_scan<T: Element>(
        &self,
        _: Validated,
        vals: &[T],
        width: u32,
        op: ReduceOp,
        kind: ScanKind,
    ) -> Result<Vec<T>>;

    // ---- device collectives on buffers ----
    //
    // Each writes into outputs the caller allocated, with lengths the validated API checked.
    // A backend that runs on a queue (a GPU stream) may only enqueue the work and return; the
    // outputs then hold the results once the queue has run (`synchronize`, or a read).

    /// One result per block of `block` consecutive elements (identity pads the last) into
    /// `output` (`ceil(n / block)` elements) for a non-empty input.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_block_reduce<T: Element>(
        &self,
        _: Validated,
        input: &Self::Buffer<T>,
        block: u32,
        op: ReduceOp,
        output: &mut Self::Buffer<T>,
    ) -> Result<()>;
    /// Canonical device reduce of a non-empty buffer into `output` (one element).
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_device_reduce<T: Element>(
        &self,
        _: Validated,
        input: &Self::Buffer<T>,
        op: ReduceOp,
        output: &mut Self::Buffer<T>,
    ) -> Result<()>;
    /// Canonical device scan; `output` has the input's length.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_device_scan<T: Element>(
        &self,
        _: Validated,
        input: &Self::Buffer<T>,
        output: &mut Self::Buffer<T>,
        op: ReduceOp,
        kind: ScanKind,
    ) -> Result<()>;
    /// A kernel entry point; see the validated method of the same name.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_segmented_reduce<T: Element>(
        &self,
        _: Validated,
        input: &Self::Buffer<T>,
        segments: SegmentSpec<'_, Self::Buffer<u32>>,
        op: ReduceOp,
        output: &mut Self::Buffer<T>,
    ) -> Result<()>;
    /// y = A x for a validated CSR matrix, `vector` lanes per row.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    #[allow(clippy::too_many_arguments)]
    fn raw_spmv<T: Element>(
        &self,
        _: Validated,
        row_offsets: &Self::Buffer<u32>,
        cols: &Self::Buffer<u32>,
        vals: &Self::Buffer<T>,
        x: &Self::Buffer<T>,
        y: &mut Self::Buffer<T>,
        vector: u32,
    ) -> Result<()>;
    /// What the backend derives once from a CSR matrix's row offsets for its `raw_spmv_planned`
    /// launches, kept with the matrix ([`crate::Csr`]) as cuSPARSE keeps its SpMV
    /// preprocessing: on the GPU backends the first row of each chunk of the merge path (rows
    /// and nonzeros together), where `raw_spmv` derives chunks of nonzeros on every call.
    /// `None` (the default): the backend keeps nothing.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`.
    fn raw_spmv_plan(
        &self,
        _: Validated,
        _row_offsets: &Self::Buffer<u32>,
        _nnz: usize,
    ) -> Result<Option<Self::Buffer<u64>>> {
        Ok(None)
    }
    /// `raw_spmv` of a matrix whose row offsets `raw_spmv_plan` made `plan` from, and whose
    /// longest row has `longest_row` nonzeros (a backend may pick its kernel by it): the same
    /// bits. The default ignores both.
    ///
    /// # Errors
    /// As `raw_spmv`.
    #[allow(clippy::too_many_arguments)]
    fn raw_spmv_planned<T: Element>(
        &self,
        ok: Validated,
        row_offsets: &Self::Buffer<u32>,
        cols: &Self::Buffer<u32>,
        vals: &Self::Buffer<T>,
        _plan: &Self::Buffer<u64>,
        _longest_row: usize,
        x: &Self::Buffer<T>,
        y: &mut Self::Buffer<T>,
        vector: u32,
    ) -> Result<()> {
        self.raw_spmv(ok, row_offsets, cols, vals, x, y, vector)
    }
    /// Seed 000's atomicAggInc: each thread increments `counters[slots[t]]` by one through
    /// its warp's leader and gets its own old value. A slot past the counters is the input's
    /// to check, so the backend checks every slot first: Err(IndexOutOfRange) naming the first
    /// bad slot in thread order, with no counter changed.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_atomic_agg_inc(
        &self,
        _: Validated,
        slots: &Self::Buffer<u32>,
        counters: &mut Self::Buffer<u32>,
        olds: &mut Self::Buffer<u32>,
    ) -> Result<()>;
    /// The number of elements for which `pred` holds, into `count` (one element); an empty
    /// input writes 0.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_count_if<T: Element>(
        &self,
        _: Validated,
        input: &Self::Buffer<T>,
        pred: Predicate<T>,
        count: &mut Self::Buffer<u64>,
    ) -> Result<()>;
    /// Writes the selected elements to the front of `output` (at least the input's length) and
    /// how many into `count` (one element); an empty input writes a count of 0.
    /// Stable keeps input order; unordered keeps the multiset only.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_compact<T: Element>(
        &self,
        _: Validated,
        input: &Self::Buffer<T>,
        pred: Predicate<T>,
        stable: bool,
        output: &mut Self::Buffer<T>,
        count: &mut Self::Buffer<u64>,
    ) -> Result<()>;
    /// Counts of each key below `bins` into `counts[..bins]` and of the keys at or past it
    /// into `counts[bins]` (`bins + 1` elements, `bins > 0`); no keys write zeros.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_histogram(
        &self,
        _: Validated,
        keys: &Self::Buffer<u32>,
        bins: u32,
        counts: &mut Self::Buffer<u64>,
    ) -> Result<()>;

    // ---- sorting (docs/SEMANTICS.md "sort", "segmented_sort", "top_k") ----

    /// Stable sort of `keys` by `spec` into `keys_out` (the same length, non-empty input).
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_sort_keys<K: Element>(
        &self,
        _: Validated,
        keys: &Self::Buffer<K>,
        keys_out: &mut Self::Buffer<K>,
        spec: SortSpec,
    ) -> Result<()>;
    /// Stable sort of `keys` by `spec`, the values moved with their keys into `values_out`
    /// and, when given, the keys into `keys_out` (each the keys' length, non-empty). `values`
    /// `None` sorts the indices `0..n` (then `V` is `u32` and `n <= u32::MAX`): an argsort.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_sort_pairs<K: Element, V: Element>(
        &self,
        _: Validated,
        keys: &Self::Buffer<K>,
        values: Option<&Self::Buffer<V>>,
        keys_out: Option<&mut Self::Buffer<K>>,
        values_out: &mut Self::Buffer<V>,
        spec: SortSpec,
    ) -> Result<()>;
    /// The stable sort of each segment of `keys` by `spec`, in place in the output: elements
    /// never leave their segment. `values`/`values_out` as in `raw_sort_pairs` but always
    /// given together or not at all. The segments cover the input (`SegmentSpec`'s `vector`
    /// is unused); the input is non-empty.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    #[allow(clippy::too_many_arguments)]
    fn raw_segmented_sort<K: Element, V: Element>(
        &self,
        _: Validated,
        keys: &Self::Buffer<K>,
        values: Option<&Self::Buffer<V>>,
        segments: SegmentSpec<'_, Self::Buffer<u32>>,
        keys_out: &mut Self::Buffer<K>,
        values_out: Option<&mut Self::Buffer<V>>,
        spec: SortSpec,
    ) -> Result<()>;
    /// The first `k` elements (`1 <= k <= n`, `n <= u32::MAX`) of the stable sort of `input`
    /// by `spec` into `values_out` (`k` elements), and their input indices into
    /// `indices_out` when given.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_top_k<T: Element>(
        &self,
        _: Validated,
        input: &Self::Buffer<T>,
        k: usize,
        spec: SortSpec,
        values_out: &mut Self::Buffer<T>,
        indices_out: Option<&mut Self::Buffer<u32>>,
    ) -> Result<()>;

    // ---- grouped (docs/SEMANTICS.md "runs") ----

    /// The runs of equal (`==`) consecutive keys, in order, into `out`, and their number into
    /// `count` (one element; an empty input writes 0). `values`, when given, is the keys'
    /// length and goes with `out.values`.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_runs<K: Element, V: Element>(
        &self,
        _: Validated,
        keys: &Self::Buffer<K>,
        values: Option<&Self::Buffer<V>>,
        out: RunsOut<'_, Self, K, V>,
        count: &mut Self::Buffer<u64>,
    ) -> Result<()>;

    /// Reduce or scan by key (docs/SEMANTICS.md "by_key"): `values` (the keys' length) over
    /// the runs of equal (`==`) consecutive keys with `op` (supported for `V`) into `out`. A
    /// scan has a non-empty input; a reduce of an empty input writes 0 runs.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_by_key<K: Element, V: Element>(
        &self,
        _: Validated,
        keys: &Self::Buffer<K>,
        values: &Self::Buffer<V>,
        op: ReduceOp,
        out: ByKeyOut<'_, Self, K, V>,
    ) -> Result<()>;

    // ---- partition (docs/SEMANTICS.md "partition") ----

    /// Stable partition of `input` into `out` (the input's length): the elements for which
    /// `first` holds, then (three-way, `second` given) those for which `first` does not hold
    /// and `second` does, then the rest, each part in input order; the sizes of the leading
    /// parts into `counts` (one element two-way, two three-way). An empty input writes zeros.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// lengths again, `LengthMismatch`.
    fn raw_partition<T: Element>(
        &self,
        _: Validated,
        input: &Self::Buffer<T>,
        first: Predicate<T>,
        second: Option<Predicate<T>>,
        out: &mut Self::Buffer<T>,
        counts: &mut Self::Buffer<u64>,
    ) -> Result<()>;

    /// Partition of `input` reading it once, the rest reversed (docs/SEMANTICS.md
    /// "partition_reversed"): the elements for which `first` holds into `out` (the input's
    /// length) from the front in input order; three-way (`second` given with its output, the
    /// input's length), those for which `first` does not hold and `second` does into that
    /// output from the front in input order; the rest into `out` from the back in reverse input
    /// order. Slots no part reaches are not written. The sizes of the leading parts into
    /// `counts` (one element two-way, two three-way). An empty input writes zeros.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`, `TooLarge` (a GPU's
    /// index limits); a backend that checks its lengths again, `LengthMismatch`.
    fn raw_partition_reversed<T: Element>(
        &self,
        _: Validated,
        input: &Self::Buffer<T>,
        first: Predicate<T>,
        second: Option<(Predicate<T>, &mut Self::Buffer<T>)>,
        out: &mut Self::Buffer<T>,
        counts: &mut Self::Buffer<u64>,
    ) -> Result<()>;

    // ---- arg reduce (docs/SEMANTICS.md "arg_reduce") ----

    /// The first smallest (`ArgOp::Min`) or largest (`ArgOp::Max`) element of a non-empty
    /// `input` into `value` (one element) and its index into `index` (one element).
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_arg_reduce<T: Element>(
        &self,
        _: Validated,
        input: &Self::Buffer<T>,
        op: ArgOp,
        value: &mut Self::Buffer<T>,
        index: &mut Self::Buffer<u64>,
    ) -> Result<()>;
    /// Per segment (at least one; `SegmentSpec`'s `vector` lanes per segment, `n <=
    /// u32::MAX`), the first smallest or largest element into `values` and its input index
    /// into `indices` (one per segment each); an empty segment gives `op.identity()` and
    /// `u32::MAX`.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_segmented_arg_reduce<T: Element>(
        &self,
        _: Validated,
        input: &Self::Buffer<T>,
        segments: SegmentSpec<'_, Self::Buffer<u32>>,
        op: ArgOp,
        values: &mut Self::Buffer<T>,
        indices: &mut Self::Buffer<u32>,
    ) -> Result<()>;
    /// For each of the (non-empty) `vals`, the first smallest or largest value of its segment
    /// of `width` lanes and that element's lane within the segment.
    ///
    /// # Errors
    /// The backend's own: `OutOfMemory`, `ForeignBuffer`, `Device`; a backend that checks its
    /// arguments again (`GpuBackend`) also returns the validated API's errors for them.
    fn raw_warp_arg_reduce<T: Element>(
        &self,
        _: Validated,
        vals: &[T],
        width: u32,
        op: ArgOp,
    ) -> Result<Vec<(T, u32)>>;

    /// The one value `fill` writes into a one-element buffer, read back once the work is
    /// done: how the returning conveniences (`reduce`, `count_if`, `compact`) wrap their
    /// `_into` forms. The default allocates the buffer; a backend may lend one it keeps, so a
    /// convenience call allocates nothing in steady state either.
    ///
    /// # Errors
    /// What `fill` returns; `OutOfMemory`, `ForeignBuffer` or a `Device` error of the
    /// allocation or the read (on a queued backend, also an error the queued work reported).
    fn raw_scalar<T: Element>(
        &self,
        _: Validated,
        fill: impl FnOnce(&mut Self::Buffer<T>) -> Result<()>,
    ) -> Result<T> {
        let mut out = self.alloc::<T>(1)?;
        fill(&mut out)?;
        Ok(self.download(&out)?[0])
    }
}
