//! The bench's collectives. Each case makes random input (never zeros), computes the expected
//! result with the conformance suite's sequential reference (written from docs/SEMANTICS.md,
//! independently of every backend, the CPU oracle included), runs the backend once and compares
//! bit for bit, and only then times it: a wrong result gets no number.

use super::timing::{BenchBackend, Harness, Timing};
use crate::api::{Collectives, Csr, Segments, VectorSize};
use crate::backend::ScanKind;
use crate::conformance::reference;
use crate::element::{Element, splitmix};
use crate::error::WavekitError;
use crate::op::{Predicate, ReduceOp};
use std::hint::black_box;

/// A timed, checked case.
pub struct Measured {
    pub timing: Timing,
    /// Bytes the collective must move: its input read, plus what it writes.
    pub bytes: u64,
    /// Bytes of the input: the size of the copy it is compared with.
    pub input_bytes: u64,
}

/// Why a case has no number.
pub enum Refused {
    /// The backend's result differs from the reference (the first difference).
    Wrong(String),
    Error(WavekitError),
}

impl From<WavekitError> for Refused {
    fn from(e: WavekitError) -> Self {
        Refused::Error(e)
    }
}

pub type CaseResult = Result<Measured, Refused>;

/// One collective on one element type, for backend `B`.
pub struct Case<B> {
    pub collective: &'static str,
    pub elem: &'static str,
    pub run: fn(&B, &Harness, usize) -> CaseResult,
}

/// Bins of the histogram case; keys run a little past them so `outside` is exercised.
const BINS: u32 = 256;
/// Nonzeros per row of the SpMV case, and the segment size of the fixed segmented reduce.
const ROW_NNZ: usize = 16;
const SEGMENT: usize = 8;

pub fn all<B: BenchBackend>() -> Vec<Case<B>> {
    vec![
        Case {
            collective: "reduce sum",
            elem: "f32",
            run: |b, h, n| reduce::<B, f32>(b, h, n, ReduceOp::Sum),
        },
        Case {
            collective: "reduce sum",
            elem: "i32",
            run: |b, h, n| reduce::<B, i32>(b, h, n, ReduceOp::Sum),
        },
        Case {
            collective: "reduce sum",
            elem: "f64",
            run: |b, h, n| reduce::<B, f64>(b, h, n, ReduceOp::Sum),
        },
        Case {
            collective: "reduce min",
            elem: "f32",
            run: |b, h, n| reduce::<B, f32>(b, h, n, ReduceOp::Min),
        },
        Case {
            collective: "scan inclusive sum",
            elem: "f32",
            run: scan::<B, f32>,
        },
        Case {
            collective: "scan inclusive sum",
            elem: "i32",
            run: scan::<B, i32>,
        },
        Case {
            collective: "segreduce fixed 8",
            elem: "f32",
            run: segreduce_fixed::<B>,
        },
        Case {
            collective: "segreduce offsets",
            elem: "f32",
            run: segreduce_offsets::<B>,
        },
        Case {
            collective: "spmv 16/row",
            elem: "f32",
            run: spmv::<B>,
        },
        Case {
            collective: "count_if x<0",
            elem: "f32",
            run: count_if::<B>,
        },
        Case {
            collective: "compact x>0 stable",
            elem: "f32",
            run: compact::<B>,
        },
        Case {
            collective: "histogram 256",
            elem: "u32",
            run: histogram::<B>,
        },
    ]
}

/// Keeps a timed call's result alive so the call cannot be optimised away.
fn sink<R>(r: R) {
    let _ = black_box(r);
}

/// `n` random values of stream `stream` (distinct streams give unrelated arrays).
fn random<T: Element>(n: usize, stream: u64) -> Vec<T> {
    (0..n as u64)
        .map(|i| T::from_seed(stream << 40 | i))
        .collect()
}

fn size_of<T: Element>(n: usize) -> u64 {
    (n * T::KIND.size()) as u64
}

fn check_one<T: Element>(expected: T, got: T) -> Result<(), Refused> {
    if expected.same(got) {
        Ok(())
    } else {
        Err(Refused::Wrong(format!(
            "expected {expected:?}, got {got:?}"
        )))
    }
}

fn check_all<T: Element>(expected: &[T], got: &[T]) -> Result<(), Refused> {
    if expected.len() != got.len() {
        return Err(Refused::Wrong(format!(
            "expected {} results, got {}",
            expected.len(),
            got.len()
        )));
    }
    match expected.iter().zip(got).position(|(e, g)| !e.same(*g)) {
        None => Ok(()),
        Some(i) => Err(Refused::Wrong(format!(
            "index {i}: expected {:?}, got {:?}",
            expected[i], got[i]
        ))),
    }
}

fn reduce<B: BenchBackend, T: Element>(b: &B, h: &Harness, n: usize, op: ReduceOp) -> CaseResult {
    let x: Vec<T> = random(n, 1);
    let buf = b.upload(&x)?;
    check_one(reference::device_reduce(&x, op), b.reduce(&buf, op)?)?;
    let timing = h.measure(b, || b.reduce(&buf, op).map(sink))?;
    Ok(Measured {
        timing,
        bytes: size_of::<T>(n),
        input_bytes: size_of::<T>(n),
    })
}

fn scan<B: BenchBackend, T: Element>(b: &B, h: &Harness, n: usize) -> CaseResult {
    let (op, kind) = (ReduceOp::Sum, ScanKind::Inclusive);
    let x: Vec<T> = random(n, 2);
    let buf = b.upload(&x)?;
    let mut out = b.alloc::<T>(n)?;
    b.scan(&buf, &mut out, op, kind)?;
    check_all(&reference::device_scan(&x, op, kind), &b.download(&out)?)?;
    let timing = h.measure(b, || b.scan(&buf, &mut out, op, kind))?;
    Ok(Measured {
        timing,
        bytes: 2 * size_of::<T>(n),
        input_bytes: size_of::<T>(n),
    })
}

fn segreduce_fixed<B: BenchBackend>(b: &B, h: &Harness, n: usize) -> CaseResult {
    let op = ReduceOp::Sum;
    let x: Vec<f32> = random(n, 3);
    let vector = reference::auto_vector(SEGMENT.min(n), 1);
    let expected = reference::segmented_fixed(&x, SEGMENT, vector, op);
    let segs = Segments::fixed(SEGMENT, VectorSize::Auto)?;
    let buf = b.upload(&x)?;
    check_all(
        &expected,
        &b.download(&b.segmented_reduce(&buf, &segs, op)?)?,
    )?;
    let timing = h.measure(b, || b.segmented_reduce(&buf, &segs, op).map(sink))?;
    Ok(Measured {
        timing,
        bytes: size_of::<f32>(n + expected.len()),
        input_bytes: size_of::<f32>(n),
    })
}

/// Segments of random length 0..=16 (mean 8), empty ones included.
fn random_offsets(n: usize, stream: u64) -> Vec<u32> {
    let mut offsets = vec![0u32];
    let mut end = 0usize;
    let mut i = 0u64;
    while end < n {
        end = (end + (splitmix(stream << 40 | i) % (2 * SEGMENT as u64 + 1)) as usize).min(n);
        offsets.push(end as u32);
        i += 1;
    }
    offsets
}

fn segreduce_offsets<B: BenchBackend>(b: &B, h: &Harness, n: usize) -> CaseResult {
    let op = ReduceOp::Sum;
    let x: Vec<f32> = random(n, 4);
    let offsets = random_offsets(n, 5);
    let count = offsets.len() - 1;
    let vector = reference::auto_vector(n, count);
    let expected = reference::segmented_offsets(&x, &offsets, vector, op);
    let segs = Segments::from_offsets(b, &offsets, n, VectorSize::Auto)?;
    let buf = b.upload(&x)?;
    check_all(
        &expected,
        &b.download(&b.segmented_reduce(&buf, &segs, op)?)?,
    )?;
    let timing = h.measure(b, || b.segmented_reduce(&buf, &segs, op).map(sink))?;
    let bytes = size_of::<f32>(n + count) + size_of::<u32>(offsets.len());
    Ok(Measured {
        timing,
        bytes,
        input_bytes: size_of::<f32>(n),
    })
}

/// A square matrix with `ROW_NNZ` nonzeros a row at random columns; `n` is the nonzero count.
fn spmv<B: BenchBackend>(b: &B, h: &Harness, n: usize) -> CaseResult {
    let rows = n.div_ceil(ROW_NNZ);
    let row_offsets: Vec<u32> = (0..rows)
        .map(|r| (r * ROW_NNZ) as u32)
        .chain([n as u32])
        .collect();
    let cols: Vec<u32> = (0..n as u64)
        .map(|k| (splitmix(6 << 40 | k) % rows as u64) as u32)
        .collect();
    let vals: Vec<f32> = random(n, 7);
    let x: Vec<f32> = random(rows, 8);
    let vector = reference::auto_vector(n, rows);
    let expected = reference::spmv(&row_offsets, &cols, &vals, &x, vector);
    let a = Csr::new(b, rows, rows, &row_offsets, &cols, &vals)?;
    let xb = b.upload(&x)?;
    let mut y = b.alloc::<f32>(rows)?;
    b.spmv(&a, &xb, &mut y, VectorSize::Auto)?;
    check_all(&expected, &b.download(&y)?)?;
    let timing = h.measure(b, || b.spmv(&a, &xb, &mut y, VectorSize::Auto))?;
    let bytes = size_of::<f32>(n + 2 * rows) + size_of::<u32>(n + rows + 1);
    Ok(Measured {
        timing,
        bytes,
        input_bytes: size_of::<f32>(n) + size_of::<u32>(n),
    })
}

fn count_if<B: BenchBackend>(b: &B, h: &Harness, n: usize) -> CaseResult {
    let pred = Predicate::Lt(0.0f32);
    let x: Vec<f32> = random(n, 9);
    let buf = b.upload(&x)?;
    check_one(reference::count_if(&x, &pred), b.count_if(&buf, pred)?)?;
    let timing = h.measure(b, || b.count_if(&buf, pred).map(sink))?;
    Ok(Measured {
        timing,
        bytes: size_of::<f32>(n),
        input_bytes: size_of::<f32>(n),
    })
}

fn compact<B: BenchBackend>(b: &B, h: &Harness, n: usize) -> CaseResult {
    let pred = Predicate::Gt(0.0f32);
    let x: Vec<f32> = random(n, 10);
    let expected = reference::compact_stable(&x, &pred);
    let buf = b.upload(&x)?;
    let got = b.compact(&buf, pred, true)?;
    check_all(&expected, &b.download(&got.data)?[..got.len.min(n)])?;
    let timing = h.measure(b, || b.compact(&buf, pred, true).map(sink))?;
    Ok(Measured {
        timing,
        bytes: size_of::<f32>(n + expected.len()),
        input_bytes: size_of::<f32>(n),
    })
}

fn histogram<B: BenchBackend>(b: &B, h: &Harness, n: usize) -> CaseResult {
    let span = BINS as u64 + BINS as u64 / 8;
    let keys: Vec<u32> = (0..n as u64)
        .map(|i| (splitmix(11 << 40 | i) % span) as u32)
        .collect();
    let (counts, outside) = reference::histogram(&keys, BINS);
    let buf = b.upload(&keys)?;
    let got = b.histogram(&buf, BINS)?;
    check_all(&counts, &got.counts)?;
    check_one(outside, got.outside).map_err(|e| match e {
        Refused::Wrong(d) => Refused::Wrong(format!("outside: {d}")),
        other => other,
    })?;
    let timing = h.measure(b, || b.histogram(&buf, BINS).map(sink))?;
    Ok(Measured {
        timing,
        bytes: size_of::<u32>(n),
        input_bytes: size_of::<u32>(n),
    })
}
