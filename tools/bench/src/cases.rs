//! The bench's collectives. Each case makes random input (never zeros), computes the expected
//! result with the conformance suite's sequential reference (written from docs/SEMANTICS.md,
//! independently of every backend, the CPU oracle included), runs the backend once and compares
//! bit for bit, and only then times it (`BenchBackend::time_job`): a wrong result gets no number.
//! Collectives with outputs are checked again after timing, so a run that went wrong while being
//! timed is refused too.

use super::case::{
    Case, CaseResult, Measured, Refused, check_all, check_one, random, size_of, try_random,
};
use super::job::{Job, RawCsr, RawSegments};
use super::timing::{BenchBackend, Harness};
use rayon::prelude::*;
use wavekit::api::{Csr, Segments, VectorSize};
use wavekit::backend::ScanKind;
use wavekit::element::{Element, bf16, f16, splitmix};
use wavekit::{ArgOp, ArgReduce, Predicate, ReduceOp};
use wavekit_conformance::reference;

/// Bins of the histogram cases; keys run a little past them so `outside` is exercised. The
/// large one is past what fits in shared memory, so its counts live in global memory.
pub const BINS: u32 = 256;
const LARGE_BINS: u32 = 65536;
/// Segment sizes of the fixed segmented reduces: short (4 lanes a segment) and long (a warp).
const SHORT_SEGMENT: usize = 8;
const LONG_SEGMENT: usize = 1024;
/// Mean length of the random offsets segments (lengths 0..=16).
const MEAN_SEGMENT: usize = 8;

macro_rules! case {
    ($name:expr, $elem:ident, $f:expr) => {
        Case {
            collective: $name,
            elem: stringify!($elem),
            run: $f,
        }
    };
}

pub fn all<B: BenchBackend>() -> Vec<Case<B>> {
    use ReduceOp::{Max, Min, Sum};
    use ScanKind::{Exclusive, Inclusive};
    vec![
        case!("reduce sum", f32, |b, h, n| reduce::<B, f32>(b, h, n, Sum)),
        case!("reduce sum", i32, |b, h, n| reduce::<B, i32>(b, h, n, Sum)),
        case!("reduce sum", f64, |b, h, n| reduce::<B, f64>(b, h, n, Sum)),
        case!("reduce min", f32, |b, h, n| reduce::<B, f32>(b, h, n, Min)),
        case!("reduce min", i32, |b, h, n| reduce::<B, i32>(b, h, n, Min)),
        case!("reduce min", f64, |b, h, n| reduce::<B, f64>(b, h, n, Min)),
        case!("reduce max", f32, |b, h, n| reduce::<B, f32>(b, h, n, Max)),
        case!("reduce max", i32, |b, h, n| reduce::<B, i32>(b, h, n, Max)),
        case!("reduce max", f64, |b, h, n| reduce::<B, f64>(b, h, n, Max)),
        // The 16-bit floats: loaded in 16 bits, summed in f32 (against a read of their bytes).
        case!("reduce sum", f16, |b, h, n| reduce::<B, f16>(b, h, n, Sum)),
        case!("reduce sum", bf16, |b, h, n| reduce::<B, bf16>(
            b, h, n, Sum
        )),
        case!("reduce max", f16, |b, h, n| reduce::<B, f16>(b, h, n, Max)),
        case!("reduce max", bf16, |b, h, n| reduce::<B, bf16>(
            b, h, n, Max
        )),
        case!("reduce min", f16, |b, h, n| reduce::<B, f16>(b, h, n, Min)),
        case!("argmin", f32, |b, h, n| arg_reduce::<B, f32>(
            b,
            h,
            n,
            ArgOp::Min
        )),
        case!("argmax", f64, |b, h, n| arg_reduce::<B, f64>(
            b,
            h,
            n,
            ArgOp::Max
        )),
        // argmax of 16-bit logits: a selection, 2 bytes read an element.
        case!("argmax", f16, |b, h, n| arg_reduce::<B, f16>(
            b,
            h,
            n,
            ArgOp::Max
        )),
        case!("argmax", bf16, |b, h, n| arg_reduce::<B, bf16>(
            b,
            h,
            n,
            ArgOp::Max
        )),
        case!("scan inclusive sum", f32, |b, h, n| scan::<B, f32>(
            b, h, n, Inclusive
        )),
        case!("scan inclusive sum", i32, |b, h, n| scan::<B, i32>(
            b, h, n, Inclusive
        )),
        case!("scan inclusive sum", i64, |b, h, n| scan::<B, i64>(
            b, h, n, Inclusive
        )),
        case!("scan exclusive sum", f32, |b, h, n| scan::<B, f32>(
            b, h, n, Exclusive
        )),
        case!("scan exclusive sum", i32, |b, h, n| scan::<B, i32>(
            b, h, n, Exclusive
        )),
        case!("scan exclusive sum", i64, |b, h, n| scan::<B, i64>(
            b, h, n, Exclusive
        )),
        case!("scan inclusive max", f32, |b, h, n| scan_op::<B, f32>(
            b, h, n, Max, Inclusive
        )),
        case!("scan inclusive max", i32, |b, h, n| scan_op::<B, i32>(
            b, h, n, Max, Inclusive
        )),
        case!("scan inclusive sum", f16, |b, h, n| scan::<B, f16>(
            b, h, n, Inclusive
        )),
        case!("scan inclusive sum", bf16, |b, h, n| scan::<B, bf16>(
            b, h, n, Inclusive
        )),
        case!("segreduce fixed 8", f32, |b, h, n| segreduce_fixed::<B>(
            b,
            h,
            n,
            SHORT_SEGMENT
        )),
        case!("segreduce fixed 1024", f32, |b, h, n| segreduce_fixed::<B>(
            b,
            h,
            n,
            LONG_SEGMENT
        )),
        case!("segreduce offsets", f32, segreduce_offsets::<B>),
        case!("spmv regular 8..64", f32, |b, h, n| spmv::<B>(
            b,
            h,
            n,
            RowLengths::Regular
        )),
        case!("spmv power-law", f32, |b, h, n| spmv::<B>(
            b,
            h,
            n,
            RowLengths::PowerLaw
        )),
        case!("count_if x<0", f32, count_if::<B>),
        case!("compact x>0 stable", f32, |b, h, n| compact::<B, f32>(
            b, h, n, true
        )),
        case!("compact x>0 unordered", f32, |b, h, n| compact::<B, f32>(
            b, h, n, false
        )),
        case!("compact x>0 stable", f64, |b, h, n| compact::<B, f64>(
            b, h, n, true
        )),
        case!("compact x>0 unordered", f64, |b, h, n| compact::<B, f64>(
            b, h, n, false
        )),
        case!("histogram 256 uniform", u32, |b, h, n| histogram::<B>(
            b,
            h,
            n,
            Keys::Uniform
        )),
        case!("histogram 256 skewed", u32, |b, h, n| histogram::<B>(
            b,
            h,
            n,
            Keys::Skewed
        )),
        case!(
            "histogram 65536 uniform",
            u32,
            |b, h, n| histogram_bins::<B>(b, h, n, Keys::Uniform, LARGE_BINS)
        ),
        case!(
            "histogram 65536 skewed",
            u32,
            |b, h, n| histogram_bins::<B>(b, h, n, Keys::Skewed, LARGE_BINS)
        ),
    ]
    .into_iter()
    .chain(super::sort::cases())
    .chain(super::runs::cases())
    .chain(super::by_key::cases())
    .chain(super::partition::cases())
    .collect()
}

fn measured(
    timing: super::timing::Timed,
    bytes: u64,
    input_bytes: u64,
    read_only: bool,
) -> Measured {
    Measured {
        timing: timing.timing,
        bytes,
        input_bytes,
        baseline: timing.baseline,
        read_only,
    }
}

fn reduce<B: BenchBackend, T: Element>(b: &B, h: &Harness, n: usize, op: ReduceOp) -> CaseResult {
    let x: Vec<T> = try_random(n, 1)?;
    let expected = reference::device_reduce(&x, op);
    let buf = b.upload(&x)?;
    check_one(expected, b.reduce(&buf, op)?)?;
    let timed = b.time_job(h, &mut Job::Reduce { input: &buf, op })?;
    check_one(expected, b.reduce(&buf, op)?)?;
    Ok(measured(timed, size_of::<T>(n), size_of::<T>(n), true))
}

fn arg_reduce<B: BenchBackend, T: Element>(b: &B, h: &Harness, n: usize, op: ArgOp) -> CaseResult {
    let x: Vec<T> = try_random(n, 27)?;
    let (want_v, want_i) = reference::arg_reduce(&x, op).expect("a non-empty input");
    let buf = b.upload(&x)?;
    let (mut value, mut index) = (b.alloc::<T>(1)?, b.alloc::<u64>(1)?);
    let check = |b: &B, v: &B::Buffer<T>, i: &B::Buffer<u64>| -> Result<(), Refused> {
        check_one(want_v, b.download(v)?[0])?;
        check_one(want_i as u64, b.download(i)?[0])
    };
    b.arg_reduce_into(&buf, op, &mut value, &mut index)?;
    check(b, &value, &index)?;
    let timed = b.time_job(
        h,
        &mut Job::ArgReduce {
            input: &buf,
            op,
            value: &mut value,
            index: &mut index,
        },
    )?;
    check(b, &value, &index)?;
    Ok(measured(timed, size_of::<T>(n), size_of::<T>(n), true))
}

fn scan<B: BenchBackend, T: Element>(b: &B, h: &Harness, n: usize, kind: ScanKind) -> CaseResult {
    scan_op::<B, T>(b, h, n, ReduceOp::Sum, kind)
}

fn scan_op<B: BenchBackend, T: Element>(
    b: &B,
    h: &Harness,
    n: usize,
    op: ReduceOp,
    kind: ScanKind,
) -> CaseResult {
    let x: Vec<T> = try_random(n, 2)?;
    let expected = reference::device_scan(&x, op, kind);
    let buf = b.upload(&x)?;
    let mut out = b.alloc::<T>(n)?;
    b.scan(&buf, &mut out, op, kind)?;
    check_all(&expected, &b.download(&out)?)?;
    let poison: Vec<T> = try_random(n, 12)?;
    b.write(&mut out, &poison)?;
    let timed = b.time_job(
        h,
        &mut Job::Scan {
            input: &buf,
            output: &mut out,
            op,
            kind,
        },
    )?;
    check_all(&expected, &b.download(&out)?)?;
    Ok(measured(timed, 2 * size_of::<T>(n), size_of::<T>(n), false))
}

fn fixed_offsets(n: usize, size: usize) -> Vec<u32> {
    (0..n.div_ceil(size))
        .map(|s| (s * size) as u32)
        .chain([n as u32])
        .collect()
}

fn segreduce_fixed<B: BenchBackend>(b: &B, h: &Harness, n: usize, size: usize) -> CaseResult {
    let op = ReduceOp::Sum;
    let x: Vec<f32> = try_random(n, 3)?;
    let vector = reference::auto_vector(size.min(n), 1);
    let expected = reference::segmented_reduce_fixed(&x, size, vector, op);
    let segs = Segments::fixed(size, VectorSize::Auto)?;
    let buf = b.upload(&x)?;
    check_all(
        &expected,
        &b.download(&b.segmented_reduce(&buf, &segs, op)?)?,
    )?;
    let offsets = fixed_offsets(n, size);
    let baseline_offsets = b.upload(&offsets)?;
    let mut out = b.upload(&random::<f32>(expected.len(), 15))?;
    let timed = b.time_job(
        h,
        &mut Job::Segmented {
            input: &buf,
            segments: &segs,
            raw: RawSegments {
                offsets: None,
                seg_size: size,
                count: expected.len(),
                vector,
                baseline_offsets: &baseline_offsets,
            },
            output: &mut out,
            op,
        },
    )?;
    raw_output_right::<B>(b, &out, &expected)?;
    Ok(measured(
        timed,
        size_of::<f32>(n + expected.len()),
        size_of::<f32>(n),
        false,
    ))
}

/// Checks an output only the raw launches of `time_job` write (the public API allocates its
/// own): a backend that times through the API leaves it as it was.
fn raw_output_right<B: BenchBackend>(
    b: &B,
    out: &B::Buffer<f32>,
    expected: &[f32],
) -> Result<(), Refused> {
    if !b.writes_job_outputs() {
        return Ok(());
    }
    check_all(expected, &b.download(out)?[..expected.len()])
}

/// Segments of random length 0..=16 (mean 8), empty ones included.
fn random_offsets(n: usize, stream: u64) -> Vec<u32> {
    let mut offsets = vec![0u32];
    let mut end = 0usize;
    let mut i = 0u64;
    while end < n {
        end = (end + (splitmix(stream << 40 | i) % (2 * MEAN_SEGMENT as u64 + 1)) as usize).min(n);
        offsets.push(end as u32);
        i += 1;
    }
    offsets
}

fn segreduce_offsets<B: BenchBackend>(b: &B, h: &Harness, n: usize) -> CaseResult {
    let op = ReduceOp::Sum;
    let x: Vec<f32> = try_random(n, 4)?;
    let offsets = random_offsets(n, 5);
    let count = offsets.len() - 1;
    let vector = reference::auto_vector(n, count);
    let expected = reference::segmented_reduce_offsets(&x, &offsets, vector, op);
    let segs = Segments::from_offsets(b, &offsets, n, VectorSize::Auto)?;
    let buf = b.upload(&x)?;
    check_all(
        &expected,
        &b.download(&b.segmented_reduce(&buf, &segs, op)?)?,
    )?;
    let raw_offsets = b.upload(&offsets)?;
    let mut out = b.upload(&try_random::<f32>(count, 15)?)?;
    let timed = b.time_job(
        h,
        &mut Job::Segmented {
            input: &buf,
            segments: &segs,
            raw: RawSegments {
                offsets: Some(&raw_offsets),
                seg_size: 0,
                count,
                vector,
                baseline_offsets: &raw_offsets,
            },
            output: &mut out,
            op,
        },
    )?;
    raw_output_right::<B>(b, &out, &expected)?;
    let bytes = size_of::<f32>(n + count) + size_of::<u32>(offsets.len());
    Ok(measured(timed, bytes, size_of::<f32>(n), false))
}

#[derive(Clone, Copy)]
pub(crate) enum RowLengths {
    /// Uniform in 8..=64 nonzeros.
    Regular,
    /// Pareto-like: most rows short, a few hundreds or thousands long (capped at 4096).
    PowerLaw,
    /// `Regular`, then as many empty rows (a band of empty rows: the rows a chunk of nonzeros
    /// alone would give to one block). Only the CUDA shape rows use it.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    RegularThenEmpty,
}

fn row_lengths(nnz: usize, kind: RowLengths) -> Vec<u32> {
    let mut lens = Vec::new();
    let mut total = 0usize;
    let mut i = 0u64;
    while total < nnz {
        let r = splitmix(6 << 40 | i);
        let len = match kind {
            RowLengths::Regular | RowLengths::RegularThenEmpty => 8 + (r % 57) as usize,
            RowLengths::PowerLaw => {
                // u in (0, 1]; len = 4 / u^(1/1.2), so P(len > L) ~ (4/L)^1.2.
                let u = ((r >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
                ((4.0 / u.powf(1.0 / 1.2)) as usize).clamp(1, 4096)
            }
        };
        let len = len.min(nnz - total);
        lens.push(len as u32);
        total += len;
        i += 1;
    }
    if let RowLengths::RegularThenEmpty = kind {
        lens.extend(std::iter::repeat_n(0, lens.len()));
    }
    lens
}

/// The bench's SpMV input: a square CSR matrix with `n` nonzeros in rows of `kind` lengths at
/// random columns (row offsets, columns, values) and its `x`.
pub(crate) fn spmv_input(n: usize, kind: RowLengths) -> (Vec<u32>, Vec<u32>, Vec<f32>, Vec<f32>) {
    let lens = row_lengths(n, kind);
    let rows = lens.len();
    let mut row_offsets = Vec::with_capacity(rows + 1);
    row_offsets.push(0u32);
    for l in &lens {
        row_offsets.push(row_offsets.last().expect("non-empty") + l);
    }
    let cols: Vec<u32> = (0..n as u64)
        .into_par_iter()
        .map(|k| (splitmix(7 << 40 | k) % rows as u64) as u32)
        .collect();
    (row_offsets, cols, random(n, 8), random(rows, 9))
}

/// A square matrix with `n` nonzeros in rows of `kind` lengths at random columns.
fn spmv<B: BenchBackend>(b: &B, h: &Harness, n: usize, kind: RowLengths) -> CaseResult {
    let (row_offsets, cols, vals, x) = spmv_input(n, kind);
    let rows = x.len();
    let vector = reference::auto_vector(n, rows);
    let expected = reference::spmv(&row_offsets, &cols, &vals, &x, vector);
    let a = Csr::new(b, rows, rows, &row_offsets, &cols, &vals)?;
    let xb = b.upload(&x)?;
    let mut y = b.alloc::<f32>(rows)?;
    b.spmv(&a, &xb, &mut y, VectorSize::Auto)?;
    check_all(&expected, &b.download(&y)?)?;
    let (ro, cb, vb) = (b.upload(&row_offsets)?, b.upload(&cols)?, b.upload(&vals)?);
    let poison: Vec<f32> = try_random(rows, 13)?;
    b.write(&mut y, &poison)?;
    let timed = b.time_job(
        h,
        &mut Job::Spmv {
            a: &a,
            raw: RawCsr {
                row_offsets: &ro,
                cols: &cb,
            },
            vals: &vb,
            x: &xb,
            y: &mut y,
            vector,
        },
    )?;
    check_all(&expected, &b.download(&y)?)?;
    // What must move: values and column indices once, the row offsets, x once, y written.
    let bytes = size_of::<f32>(n + 2 * rows) + size_of::<u32>(n + rows + 1);
    Ok(measured(
        timed,
        bytes,
        size_of::<f32>(n) + size_of::<u32>(n),
        false,
    ))
}

fn count_if<B: BenchBackend>(b: &B, h: &Harness, n: usize) -> CaseResult {
    let pred = Predicate::Lt(0.0f32);
    let x: Vec<f32> = try_random(n, 10)?;
    let expected = reference::count_if(&x, &pred);
    let buf = b.upload(&x)?;
    check_one(expected, b.count_if(&buf, pred)?)?;
    let timed = b.time_job(h, &mut Job::CountIf { input: &buf, pred })?;
    check_one(expected, b.count_if(&buf, pred)?)?;
    Ok(measured(timed, size_of::<f32>(n), size_of::<f32>(n), true))
}

/// Compaction of random `T` by `x > 0` (about half selected), stable or unordered.
fn compact<B: BenchBackend, T: Element>(b: &B, h: &Harness, n: usize, stable: bool) -> CaseResult {
    let pred = Predicate::Gt(T::default());
    let x: Vec<T> = try_random(n, 11)?;
    let expected = reference::compact(&x, &pred);
    let buf = b.upload(&x)?;
    let got = b.compact(&buf, pred, stable)?;
    let mut data = b.download(&got.data)?;
    data.truncate(got.len.min(n));
    if !stable {
        // Unordered keeps the multiset: compare sorted bit patterns.
        let mut want: Vec<u64> = expected.iter().map(|v| v.to_bits()).collect();
        let mut have: Vec<u64> = data.iter().map(|v| v.to_bits()).collect();
        want.par_sort_unstable();
        have.par_sort_unstable();
        check_all(&want, &have)?;
    } else {
        check_all(&expected, &data)?;
    }
    let mut out = b.upload(&try_random::<T>(n, 16)?)?;
    let mut count = b.alloc::<u64>(1)?;
    let timed = b.time_job(
        h,
        &mut Job::Compact {
            input: &buf,
            pred,
            stable,
            output: &mut out,
            count: &mut count,
        },
    )?;
    // Every backend's timed call writes `out` (the API's compact_into, or the raw launch).
    if stable {
        check_all(&expected, &b.download(&out)?[..expected.len()])?;
    } else {
        let mut have: Vec<u64> = b.download(&out)?[..expected.len()]
            .iter()
            .map(|v| v.to_bits())
            .collect();
        let mut want: Vec<u64> = expected.iter().map(|v| v.to_bits()).collect();
        have.par_sort_unstable();
        want.par_sort_unstable();
        if have != want {
            return Err(Refused::Wrong(
                "unordered compaction after timing: not the selected multiset".into(),
            ));
        }
    }
    Ok(measured(
        timed,
        size_of::<T>(n + expected.len()),
        size_of::<T>(n),
        false,
    ))
}

#[derive(Clone, Copy)]
enum Keys {
    /// Uniform over the bins and a little past them.
    Uniform,
    /// Low entropy: 7 keys in 8 are one bin, the rest uniform.
    Skewed,
}

pub fn histogram_keys(n: usize, skewed: bool) -> Vec<u32> {
    keys_for(n, skewed, BINS)
}

/// `n` keys over `bins` bins and an eighth past them (uniform), or 7 in 8 in one bin (skewed).
pub fn keys_for(n: usize, skewed: bool, bins: u32) -> Vec<u32> {
    let span = bins as u64 + bins as u64 / 8;
    (0..n as u64)
        .into_par_iter()
        .map(|i| {
            let r = splitmix(14 << 40 | i);
            if skewed && !r.is_multiple_of(8) {
                17
            } else {
                ((r >> 3) % span) as u32
            }
        })
        .collect()
}

fn histogram<B: BenchBackend>(b: &B, h: &Harness, n: usize, keys: Keys) -> CaseResult {
    histogram_bins(b, h, n, keys, BINS)
}

fn histogram_bins<B: BenchBackend>(
    b: &B,
    h: &Harness,
    n: usize,
    keys: Keys,
    bins: u32,
) -> CaseResult {
    let keys = keys_for(n, matches!(keys, Keys::Skewed), bins);
    let (counts, outside) = reference::histogram(&keys, bins);
    let buf = b.upload(&keys)?;
    let check = |b: &B| -> Result<(), Refused> {
        let got = b.histogram(&buf, bins)?;
        check_all(&counts, &got.counts)?;
        check_one(outside, got.outside).map_err(|e| match e {
            Refused::Wrong(d) => Refused::Wrong(format!("outside: {d}")),
            other => other,
        })
    };
    check(b)?;
    let timed = b.time_job::<u32>(h, &mut Job::Histogram { keys: &buf, bins })?;
    check(b)?;
    Ok(measured(timed, size_of::<u32>(n), size_of::<u32>(n), true))
}
