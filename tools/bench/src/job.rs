//! What one bench case times, with the buffers it runs on. The generic path (`Job::call`) goes
//! through the public API; a GPU backend may instead launch the kernel directly on its stream
//! and time it with device events (`BenchBackend::time_job`), which is why a job also carries
//! the raw arrays (segment offsets, CSR arrays) the public objects keep private.

use std::hint::black_box;
use wavekit::api::{Collectives, Csr, Segments, VectorSize};
use wavekit::element::Element;
use wavekit::error::Result;
use wavekit::{
    ArgOp, ArgReduce, ByKey, Partition, PartitionReversed, Runs, SegmentedSort, Sort, SortOrder,
    TopK,
};
use wavekit::{Backend, ScanKind};
use wavekit::{Predicate, ReduceOp};

/// The segments of a segmented reduce as arrays: `offsets` (None for fixed segments of
/// `seg_size`), the resolved vector size, and offsets materialised for a library baseline.
#[derive(Debug)]
pub struct RawSegments<'a, B: Backend> {
    pub offsets: Option<&'a B::Buffer<u32>>,
    pub seg_size: usize,
    pub count: usize,
    pub vector: u32,
    /// `count + 1` offsets, also for fixed segments (CUB takes offsets only).
    pub baseline_offsets: &'a B::Buffer<u32>,
}

/// The CSR arrays of an SpMV.
#[derive(Debug)]
pub struct RawCsr<'a, B: Backend> {
    pub row_offsets: &'a B::Buffer<u32>,
    pub cols: &'a B::Buffer<u32>,
}

/// The `u32` values of a sort job and where they go.
pub type SortValues<'a, B> = (
    &'a <B as Backend>::Buffer<u32>,
    &'a mut <B as Backend>::Buffer<u32>,
);

/// Where a reduce_by_key job writes its run keys and its number of runs.
pub type RunOutputs<'a, B> = (
    &'a mut <B as Backend>::Buffer<u32>,
    &'a mut <B as Backend>::Buffer<u64>,
);

#[derive(Debug)]
pub enum Job<'a, B: Backend, T: Element> {
    Reduce {
        input: &'a B::Buffer<T>,
        op: ReduceOp,
    },
    Scan {
        input: &'a B::Buffer<T>,
        output: &'a mut B::Buffer<T>,
        op: ReduceOp,
        kind: ScanKind,
    },
    Segmented {
        input: &'a B::Buffer<T>,
        segments: &'a Segments<B>,
        raw: RawSegments<'a, B>,
        output: &'a mut B::Buffer<T>,
        op: ReduceOp,
    },
    Spmv {
        a: &'a Csr<B, T>,
        raw: RawCsr<'a, B>,
        vals: &'a B::Buffer<T>,
        x: &'a B::Buffer<T>,
        y: &'a mut B::Buffer<T>,
        vector: u32,
    },
    CountIf {
        input: &'a B::Buffer<T>,
        pred: Predicate<T>,
    },
    Compact {
        input: &'a B::Buffer<T>,
        pred: Predicate<T>,
        stable: bool,
        output: &'a mut B::Buffer<T>,
        /// Where the API call writes how many it kept (the raw GPU path keeps its own).
        count: &'a mut B::Buffer<u64>,
    },
    /// Keys are `u32`; the job's `T` is `u32` too.
    Histogram { keys: &'a B::Buffer<u32>, bins: u32 },
    /// An ascending stable sort of the keys, with `u32` values when given.
    Sort {
        keys: &'a B::Buffer<T>,
        keys_out: &'a mut B::Buffer<T>,
        values: Option<SortValues<'a, B>>,
    },
    /// The positions of the keys' stable ascending sort (an argsort).
    Argsort {
        keys: &'a B::Buffer<T>,
        indices: &'a mut B::Buffer<u32>,
    },
    /// Each segment sorted ascending.
    SegmentedSort {
        keys: &'a B::Buffer<T>,
        segments: &'a Segments<B>,
        /// `count + 1` offsets, also for fixed segments (CUB takes offsets only).
        baseline_offsets: &'a B::Buffer<u32>,
        count: usize,
        out: &'a mut B::Buffer<T>,
    },
    /// The runs of equal keys: with `lengths` a run-length encode, else unique keys.
    Runs {
        keys: &'a B::Buffer<T>,
        keys_out: &'a mut B::Buffer<T>,
        lengths: Option<&'a mut B::Buffer<u32>>,
        count: &'a mut B::Buffer<u64>,
    },
    /// The values of each run of equal `u32` keys summed: with `reduce` (the run keys and the
    /// number of runs) a reduce_by_key, else an inclusive scan_by_key into `out`.
    ByKey {
        keys: &'a B::Buffer<u32>,
        values: &'a B::Buffer<T>,
        out: &'a mut B::Buffer<T>,
        reduce: Option<RunOutputs<'a, B>>,
    },
    /// A stable two-way partition by `pred` into `out`, the number selected into `count`.
    Partition {
        input: &'a B::Buffer<T>,
        pred: Predicate<T>,
        out: &'a mut B::Buffer<T>,
        count: &'a mut B::Buffer<u64>,
    },
    /// A two-way partition by `pred` in CUB's order (the rest reversed), or three-way with
    /// `second` and its `middle` output (the sizes of the first two parts into `count`).
    PartitionReversed {
        input: &'a B::Buffer<T>,
        pred: Predicate<T>,
        second: Option<(Predicate<T>, &'a mut B::Buffer<T>)>,
        out: &'a mut B::Buffer<T>,
        count: &'a mut B::Buffer<u64>,
    },
    /// The k largest, with their indices.
    TopK {
        input: &'a B::Buffer<T>,
        k: usize,
        values: &'a mut B::Buffer<T>,
        indices: &'a mut B::Buffer<u32>,
    },
    /// argmin or argmax of the input: its value and index.
    ArgReduce {
        input: &'a B::Buffer<T>,
        op: ArgOp,
        value: &'a mut B::Buffer<T>,
        index: &'a mut B::Buffer<u64>,
    },
}

impl<B: Collectives, T: Element> Job<'_, B, T> {
    /// One call through the public API (what the CPU backend is timed on).
    pub fn call(&mut self, b: &B) -> Result<()> {
        match self {
            Job::Reduce { input, op } => b.reduce(*input, *op).map(sink),
            Job::Scan {
                input,
                output,
                op,
                kind,
            } => b.scan(*input, output, *op, *kind),
            Job::Segmented {
                input,
                segments,
                op,
                ..
            } => b.segmented_reduce(*input, segments, *op).map(sink),
            Job::Spmv {
                a, x, y, vector, ..
            } => b.spmv(a, *x, y, VectorSize::Lanes(*vector)),
            Job::CountIf { input, pred } => b.count_if(*input, *pred).map(sink),
            // Into the caller's output, as a user who keeps the buffers between calls would:
            // the returning form allocates an input-sized output every call, and on the CPU
            // its first-touch page faults cost more than the compaction.
            Job::Compact {
                input,
                pred,
                stable,
                output,
                count,
            } => b.compact_into(*input, *pred, *stable, output, count),
            Job::Histogram { keys, bins } => b.histogram(*keys, *bins).map(sink),
            Job::Sort {
                keys,
                keys_out,
                values: None,
            } => b.sort_keys_into(*keys, keys_out, SortOrder::ASCENDING),
            Job::Sort {
                keys,
                keys_out,
                values: Some((values, values_out)),
            } => b.sort_pairs_into(*keys, *values, keys_out, values_out, SortOrder::ASCENDING),
            Job::Argsort { keys, indices } => b.argsort_into(*keys, indices, SortOrder::ASCENDING),
            Job::SegmentedSort {
                keys,
                segments,
                out,
                ..
            } => b.segmented_sort_keys_into(*keys, segments, out, SortOrder::ASCENDING),
            Job::TopK {
                input,
                k,
                values,
                indices,
            } => b.top_k_with_indices_into(*input, *k, SortOrder::DESCENDING, values, indices),
            Job::Runs {
                keys,
                keys_out,
                lengths: Some(lengths),
                count,
            } => b.run_length_encode_into(*keys, keys_out, lengths, count),
            Job::Runs {
                keys,
                keys_out,
                lengths: None,
                count,
            } => b.unique_into(*keys, keys_out, count),
            Job::ArgReduce {
                input,
                op,
                value,
                index,
            } => b.arg_reduce_into(*input, *op, value, index),
            Job::ByKey {
                keys,
                values,
                out,
                reduce: Some((keys_out, count)),
            } => b.reduce_by_key_into(*keys, *values, keys_out, out, count, ReduceOp::Sum),
            Job::ByKey {
                keys,
                values,
                out,
                reduce: None,
            } => b.scan_by_key_into(*keys, *values, out, ReduceOp::Sum, ScanKind::Inclusive),
            Job::Partition {
                input,
                pred,
                out,
                count,
            } => b.partition_into(*input, *pred, out, count),
            Job::PartitionReversed {
                input,
                pred,
                second: None,
                out,
                count,
            } => b.partition_reversed_into(*input, *pred, out, count),
            Job::PartitionReversed {
                input,
                pred,
                second: Some((second, middle)),
                out,
                count,
            } => b.partition3_reversed_into(*input, *pred, *second, out, middle, count),
        }
    }
}

/// Keeps a timed call's result alive so the call cannot be optimised away.
fn sink<R>(r: R) {
    let _ = black_box(r);
}
