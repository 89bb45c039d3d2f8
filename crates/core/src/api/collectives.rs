//! The device collectives ([`Collectives`]): each method's contract and example here, its
//! checks in the file of the collective's name (`device_reduce.rs`, `compact.rs`, ...), the
//! same name as its kernel (csrc/kernels/) and its conformance cases.

use super::{
    Compacted, Csr, Segments, VectorSize, atomic_agg_inc, block_reduce, check_len, compact,
    count_if, device_reduce, device_scan, histogram, segmented_reduce, spmv,
};
use crate::backend::{DeviceBuffer, HistogramResult, ScanKind};
use crate::element::Element;
use crate::error::Result;
use crate::predicate::Predicate;
use crate::raw::RawBackend;
use crate::vocab::ReduceOp;

/// Collectives over device buffers.
///
/// Every collective has one shape: inputs by reference, outputs `&mut` buffers the caller
/// allocated (the `_into` forms, and `scan` and `spmv`), and a returning convenience beside
/// it, implemented as the `_into` form plus a readback. Every length is checked before any
/// work; on an error the outputs are untouched. The table of all of them, with their output
/// lengths: docs/COLLECTIVES.md (`wavekit::collectives`).
///
/// Asynchronous work: on a backend with a queue (a GPU stream: CUDA, HIP) the `_into` forms,
/// `scan` and `spmv` only enqueue the work and return; the outputs hold the results once the
/// queue has run. Reading them with `download`, or calling `synchronize`, waits for it. An
/// error a kernel reports while it runs (its status word) surfaces at the next
/// `synchronize`, `download` or synchronous call on that backend, every check that can be
/// made on the host is made before the launch and returned at once. The returning
/// conveniences synchronise. On the CPU backend every call has finished when it returns.
///
/// Allocation: the `_into` forms allocate no device memory once the backend's workspace has
/// grown to the largest input seen (or was sized with `reserve`); the conveniences allocate
/// their outputs, except the one-value ones (`reduce`, `count_if`), whose slot the GPU
/// backend keeps.
pub trait Collectives: RawBackend {
    /// [`block_reduce_into`](Self::block_reduce_into) into a new host vector.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let input = cpu.upload(&(0..100).collect::<Vec<u32>>())?;
    /// // Blocks 0..64 and the short 64..100.
    /// assert_eq!(cpu.block_reduce(&input, 64, ReduceOp::Sum)?, [2016, 2934]);
    /// assert_eq!(cpu.block_reduce(&input, 64, ReduceOp::Max)?, [63, 99]);
    /// assert!(cpu.block_reduce(&input, 48, ReduceOp::Sum).is_err()); // not a multiple of 32
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedOp` for a bitwise op on floats; `InvalidBlockSize` when `block` is not a
    /// multiple of 32 from 32 to 1024; `ForeignBuffer`; `OutOfMemory`; a backend's `Device` error.
    fn block_reduce<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        block: u32,
        op: ReduceOp,
    ) -> Result<Vec<T>> {
        block_reduce::block_reduce(self, input, block, op)
    }

    /// One canonical-order result per block of `block` consecutive elements (the last block
    /// padded with the op's identity) into `out`, which holds `ceil(n / block)` elements.
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, ReduceOp, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let input = b.upload(&[1u32; 100])?;
    /// let mut sums = b.alloc::<u32>(4)?; // ceil(100 / 32)
    /// b.block_reduce_into(&input, 32, ReduceOp::Sum, &mut sums)?;
    /// assert_eq!(b.download(&sums)?, [32, 32, 32, 4]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedOp`; `InvalidBlockSize`; `LengthMismatch` when `out` is not `ceil(n / block)`
    /// long; `ForeignBuffer`; a backend's `Device` error.
    fn block_reduce_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        block: u32,
        op: ReduceOp,
        out: &mut Self::Buffer<T>,
    ) -> Result<()> {
        block_reduce::block_reduce_into(self, input, block, op, out)
    }

    /// [`reduce_into`](Self::reduce_into), read back: the canonical-order reduction of the
    /// whole buffer, the same bits on every backend and at every warp width, floats included
    /// (docs/SEMANTICS.md, "device_reduce").
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let data: Vec<i64> = (1..=1000).collect();
    /// let input = cpu.upload(&data)?;
    /// assert_eq!(cpu.reduce(&input, ReduceOp::Sum)?, 500_500);
    /// assert_eq!(cpu.reduce(&input, ReduceOp::Max)?, 1000);
    /// let halves = cpu.upload(&vec![0.5f32; 10_000])?;
    /// assert_eq!(cpu.reduce(&halves, ReduceOp::Sum)?, 5000.0);
    /// // An empty input has no result: an error, not the identity.
    /// assert!(cpu.reduce(&cpu.upload::<f32>(&[])?, ReduceOp::Sum).is_err());
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedOp`; `EmptyInput` for an empty buffer; `ForeignBuffer`; `OutOfMemory`; a
    /// backend's `Device` error.
    fn reduce<T: Element>(&self, input: &Self::Buffer<T>, op: ReduceOp) -> Result<T> {
        device_reduce::reduce(self, input, op)
    }

    /// Canonical-order reduction of the whole buffer into `out` (one element).
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, ReduceOp, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let input = b.upload(&[1.0f32, 2.0, 3.0])?;
    /// let mut sum = b.alloc::<f32>(1)?;
    /// b.reduce_into(&input, ReduceOp::Sum, &mut sum)?;
    /// assert_eq!(b.download(&sum)?, [6.0]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedOp`; `LengthMismatch` when `out` is not one element; `EmptyInput` for an
    /// empty buffer; `ForeignBuffer`; a backend's `Device` error.
    fn reduce_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        op: ReduceOp,
        out: &mut Self::Buffer<T>,
    ) -> Result<()> {
        device_reduce::reduce_into(self, input, op, out)
    }

    /// Canonical device scan of `input` into `output` (same length).
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, ReduceOp, ScanKind, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let input = b.upload(&[1u32, 2, 3, 4])?;
    /// let mut out = b.alloc::<u32>(4)?;
    /// b.scan(&input, &mut out, ReduceOp::Sum, ScanKind::Exclusive)?;
    /// assert_eq!(b.download(&out)?, [0, 1, 3, 6]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedOp`; `LengthMismatch` when `output` is not `input`'s length (`output` is then
    /// untouched); `ForeignBuffer`; `OutOfMemory`; a backend's `Device` error.
    fn scan<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        output: &mut Self::Buffer<T>,
        op: ReduceOp,
        kind: ScanKind,
    ) -> Result<()> {
        device_scan::scan(self, input, output, op, kind)
    }

    /// [`segmented_reduce_into`](Self::segmented_reduce_into) into a new buffer of one
    /// element per segment; synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let input = cpu.upload(&(0..8).collect::<Vec<i32>>())?;
    /// // Segments of 3: 0..3, 3..6 and the short 6..8.
    /// let fixed = Segments::fixed(3, VectorSize::Auto)?;
    /// let sums = cpu.segmented_reduce(&input, &fixed, ReduceOp::Sum)?;
    /// assert_eq!(cpu.download(&sums)?, [3, 12, 13]);
    /// // Segments 0..2, 2..2 (empty: the identity) and 2..8, four lanes a segment.
    /// let ragged = Segments::from_offsets(&cpu, &[0, 2, 2, 8], 8, VectorSize::Lanes(4))?;
    /// let sums = cpu.segmented_reduce(&input, &ragged, ReduceOp::Sum)?;
    /// assert_eq!(cpu.download(&sums)?, [1, 0, 27]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedOp`; `LengthMismatch` when offset segments were built for another length;
    /// `ForeignBuffer`; `OutOfMemory`; a backend's `Device` error.
    fn segmented_reduce<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        segments: &Segments<Self>,
        op: ReduceOp,
    ) -> Result<Self::Buffer<T>> {
        segmented_reduce::segmented_reduce(self, input, segments, op)
    }

    /// One result per segment into `out` (one element per segment); an empty segment yields
    /// the op's identity.
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, ReduceOp, Segments, VectorSize, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let input = b.upload(&[1u32, 2, 3, 4, 5])?;
    /// let segments = Segments::from_offsets(&b, &[0, 2, 2, 5], 5, VectorSize::Auto)?;
    /// let mut sums = b.alloc::<u32>(3)?;
    /// b.segmented_reduce_into(&input, &segments, ReduceOp::Sum, &mut sums)?;
    /// assert_eq!(b.download(&sums)?, [3, 0, 12]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedOp`; `LengthMismatch` when offset segments were built for another length or
    /// `out` is not one element per segment; `ForeignBuffer`; a backend's `Device` error.
    fn segmented_reduce_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        segments: &Segments<Self>,
        op: ReduceOp,
        out: &mut Self::Buffer<T>,
    ) -> Result<()> {
        segmented_reduce::segmented_reduce_into(self, input, segments, op, out)
    }

    /// y = A x, `vector` lanes per row (seed 001).
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, Csr, VectorSize, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// // [[1, 0], [2, 3]]
    /// let a = Csr::new(&b, 2, 2, &[0, 1, 3], &[0, 0, 1], &[1.0f32, 2.0, 3.0])?;
    /// let x = b.upload(&[1.0f32, 10.0])?;
    /// let mut y = b.alloc::<f32>(2)?;
    /// b.spmv(&a, &x, &mut y, VectorSize::Auto)?;
    /// assert_eq!(b.download(&y)?, [1.0, 32.0]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` when `x` is not `a.cols()` long or `y` not `a.rows()` long;
    /// `InvalidVectorSize`; `ForeignBuffer`; `OutOfMemory`; a backend's `Device` error. On error
    /// `y` is untouched.
    fn spmv<T: Element>(
        &self,
        a: &Csr<Self, T>,
        x: &Self::Buffer<T>,
        y: &mut Self::Buffer<T>,
        vector: VectorSize,
    ) -> Result<()> {
        spmv::spmv(self, a, x, y, vector)
    }

    /// [`atomic_agg_inc_into`](Self::atomic_agg_inc_into) with a new buffer of old values;
    /// synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let slots = cpu.upload(&[0u32, 1, 0, 0, 1])?;
    /// let mut counters = cpu.upload(&[10u32, 20])?;
    /// let olds = cpu.atomic_agg_inc(&slots, &mut counters)?;
    /// // Threads of one warp sharing a slot get consecutive values in lane order.
    /// assert_eq!(cpu.download(&olds)?, [10, 20, 11, 12, 21]);
    /// assert_eq!(cpu.download(&counters)?, [13, 22]);
    /// // A slot past the counters is refused and no counter moves.
    /// let bad = cpu.upload(&[0u32, 5])?;
    /// assert!(cpu.atomic_agg_inc(&bad, &mut counters).is_err());
    /// assert_eq!(cpu.download(&counters)?, [13, 22]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `EmptyInput` for slots with no counters; `IndexOutOfRange` naming the first slot (in thread
    /// order) past the counters, in which case no counter changed; `ForeignBuffer`; `OutOfMemory`;
    /// a backend's `Device` error.
    fn atomic_agg_inc(
        &self,
        slots: &Self::Buffer<u32>,
        counters: &mut Self::Buffer<u32>,
    ) -> Result<Self::Buffer<u32>> {
        atomic_agg_inc::atomic_agg_inc(self, slots, counters)
    }

    /// Seed 000's atomicAggInc per thread: thread t adds one to `counters[slots[t]]` through
    /// its warp's leader and gets the counter's old value in `olds[t]` (one per slot). All or
    /// nothing: every slot is checked first, which on a GPU waits for one 8-byte readback (the
    /// count of bad slots) before the increment is enqueued.
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let slots = b.upload(&[0u32, 1, 0])?;
    /// let mut counters = b.upload(&[10u32, 20])?;
    /// let mut olds = b.alloc::<u32>(3)?;
    /// b.atomic_agg_inc_into(&slots, &mut counters, &mut olds)?;
    /// assert_eq!(b.download(&counters)?, [12, 21]);
    /// let mut olds = b.download(&olds)?;
    /// olds.sort(); // which thread of slot 0 went first is not defined
    /// assert_eq!(olds, [10, 11, 20]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` when `olds` is not one per slot; `EmptyInput` for slots with no
    /// counters; `IndexOutOfRange` naming the first slot (in thread order) past the counters,
    /// in which case no counter changed; `ForeignBuffer`; a backend's `Device` error.
    fn atomic_agg_inc_into(
        &self,
        slots: &Self::Buffer<u32>,
        counters: &mut Self::Buffer<u32>,
        olds: &mut Self::Buffer<u32>,
    ) -> Result<()> {
        atomic_agg_inc::atomic_agg_inc_into(self, slots, counters, olds)
    }

    /// [`count_if_into`](Self::count_if_into), read back.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let input = cpu.upload(&[1.5f32, -2.0, f32::NAN, 4.0, 0.0])?;
    /// assert_eq!(cpu.count_if(&input, Predicate::Gt(0.0))?, 2);
    /// assert_eq!(cpu.count_if(&input, Predicate::InRange(-3.0, 2.0))?, 3);
    /// // IEEE comparisons: NaN is only ever `Ne`.
    /// assert_eq!(cpu.count_if(&input, Predicate::Ne(1.5))?, 4);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `ForeignBuffer`; `OutOfMemory`; a backend's `Device` error.
    fn count_if<T: Element>(&self, input: &Self::Buffer<T>, pred: Predicate<T>) -> Result<u64> {
        count_if::count_if(self, input, pred)
    }

    /// The number of elements for which `pred` holds, into `out` (one element; 0 for an
    /// empty input).
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, Predicate, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let input = b.upload(&[5u32, 50, 7, 70])?;
    /// let mut count = b.alloc::<u64>(1)?;
    /// b.count_if_into(&input, Predicate::Ge(10), &mut count)?;
    /// assert_eq!(b.download(&count)?, [2]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` when `out` is not one element; `ForeignBuffer`; a backend's `Device`
    /// error.
    fn count_if_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        pred: Predicate<T>,
        out: &mut Self::Buffer<u64>,
    ) -> Result<()> {
        count_if::count_if_into(self, input, pred, out)
    }

    /// [`compact_into`](Self::compact_into) into a new buffer of the input's length, with the
    /// count read back.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let input = cpu.upload(&[5i32, -1, 7, 0, -3, 2])?;
    /// let kept = cpu.compact(&input, Predicate::Gt(0), true)?;
    /// assert_eq!(kept.len, 3);
    /// assert_eq!(cpu.download(&kept.data)?[..kept.len], [5, 7, 2]);
    /// // Unordered: the same elements, in an order that may vary.
    /// let any = cpu.compact(&input, Predicate::Gt(0), false)?;
    /// let mut got = cpu.download(&any.data)?[..any.len].to_vec();
    /// got.sort();
    /// assert_eq!(got, [2, 5, 7]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `ForeignBuffer`; `OutOfMemory`; a backend's `Device` error.
    fn compact<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        pred: Predicate<T>,
        stable: bool,
    ) -> Result<Compacted<Self, T>> {
        compact::compact(self, input, pred, stable)
    }

    /// Stream compaction: the selected elements to the front of `out` (the input's length)
    /// and how many into `count` (one element); `stable` keeps their order, otherwise only the
    /// multiset is defined. The elements of `out` past the count are left as they were.
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, Predicate, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let input = b.upload(&[5u32, 50, 7, 70])?;
    /// let mut out = b.upload(&[0u32; 4])?;
    /// let mut count = b.alloc::<u64>(1)?;
    /// b.compact_into(&input, Predicate::Ge(10), true, &mut out, &mut count)?;
    /// assert_eq!(b.download(&count)?, [2]);
    /// assert_eq!(b.download(&out)?, [50, 70, 0, 0]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` when `out` is not the input's length or `count` not one element;
    /// `ForeignBuffer`; a backend's `Device` error.
    fn compact_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        pred: Predicate<T>,
        stable: bool,
        out: &mut Self::Buffer<T>,
        count: &mut Self::Buffer<u64>,
    ) -> Result<()> {
        compact::compact_into(self, input, pred, stable, out, count)
    }

    /// [`histogram_into`](Self::histogram_into) into new host vectors: the counts of each key
    /// below `bins`; larger keys are counted in `outside`.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let keys = cpu.upload(&[0u32, 1, 1, 3, 7])?;
    /// let h = cpu.histogram(&keys, 4)?;
    /// assert_eq!(h.counts, [1, 2, 0, 1]);
    /// assert_eq!(h.outside, 1); // the 7
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `ZeroBins`; `OutOfMemory` when `bins + 1` counts do not fit in host memory (`u32::MAX`
    /// bins, keys or not); `ForeignBuffer`; a backend's `Device` error.
    fn histogram(&self, keys: &Self::Buffer<u32>, bins: u32) -> Result<HistogramResult> {
        histogram::histogram(self, keys, bins)
    }

    /// Counts of each key below `bins` into `counts[..bins]` and of every other key into
    /// `counts[bins]` (`bins + 1` elements, the last is `outside`); no keys write zeros.
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let keys = b.upload(&[0u32, 2, 2, 9])?;
    /// let mut counts = b.alloc::<u64>(4)?; // 3 bins + outside
    /// b.histogram_into(&keys, 3, &mut counts)?;
    /// assert_eq!(b.download(&counts)?, [1, 0, 2, 1]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `ZeroBins`; `LengthMismatch` when `counts` is not `bins + 1` long; `ForeignBuffer`; a
    /// backend's `Device` error.
    fn histogram_into(
        &self,
        keys: &Self::Buffer<u32>,
        bins: u32,
        counts: &mut Self::Buffer<u64>,
    ) -> Result<()> {
        histogram::histogram_into(self, keys, bins, counts)
    }

    /// Host convenience: upload, run, download.
    ///
    /// # Errors
    /// `LengthMismatch` when `data` is not the buffer's length (the buffer is then untouched);
    /// `ForeignBuffer`; a backend's `Device` error.
    fn write_from<T: Element>(&self, buf: &mut Self::Buffer<T>, data: &[T]) -> Result<()> {
        check_len("write source", buf.len(), data.len())?;
        self.write(buf, data)
    }
}

impl<B: RawBackend> Collectives for B {}
