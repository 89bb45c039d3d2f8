//! `cargo bench --bench collectives [--features cuda]`: every collective on every backend built
//! in (CPU oracle; CUDA with device-event timing of the kernel launches), with the CUDA
//! backend's same-run baseline as its own line `baseline` (CUB for reduce, scan, segmented
//! reduce, compaction and the sorts; one-counter atomics for count_if; plain atomics for the
//! histogram; on the CPU, rayon's `par_sort_unstable` for the keys sort).
//!
//! Sizes: WAVEKIT_BENCH_SIZES, log2 values comma separated (default `16,20`; the full sweep is
//! `16,18,20,22,24,26,28`). Every input is checked against the conformance reference before it
//! is timed. Criterion runs short here (10 samples, 1 s); `wavekit bench` (medians, same-run
//! copy and read bandwidth) is the tool for the tables in BENCHMARKS.md.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::time::Duration;
use wavekit::api::{Csr, Segments, VectorSize};
use wavekit::backend::ScanKind;
use wavekit::element::{Element, splitmix};
use wavekit::{Predicate, ReduceOp, Sort, SortOrder, TopK};
use wavekit_bench::job::{Job, RawCsr, RawSegments};
use wavekit_bench::timing::{BenchBackend, Harness};
use wavekit_conformance::reference;

fn sizes() -> Vec<usize> {
    let spec = std::env::var("WAVEKIT_BENCH_SIZES").unwrap_or_else(|_| "16,20".into());
    spec.split(',')
        .map(|s| {
            let k: u32 = s
                .trim()
                .parse()
                .expect("WAVEKIT_BENCH_SIZES: log2 sizes like 16,20");
            1usize << k
        })
        .collect()
}

fn random<T: Element>(n: usize, stream: u64) -> Vec<T> {
    (0..n as u64)
        .map(|i| T::from_seed(stream << 40 | i))
        .collect()
}

/// Times `job` for criterion: `iters` event-timed (GPU) or wall-timed (CPU) calls, summed; with
/// `baseline`, the backend's same-run baseline (CUB) instead.
/// At most this many timed calls serve one criterion measurement of `iters` iterations (their
/// mean, scaled to `iters`): each GPU sample also pays an untimed L2 flush and delay kernel, so
/// timing every iteration criterion asks for would take minutes per benchmark.
const MAX_CALLS: u64 = 32;

fn run<B: BenchBackend, T: Element>(
    b: &B,
    job: &mut Job<'_, B, T>,
    iters: u64,
    baseline: bool,
) -> Duration {
    let calls = iters.clamp(1, MAX_CALLS);
    let h = Harness {
        warmup: 0,
        reps: calls as usize,
    };
    let t = b.time_job(&h, job).expect("timed job");
    let samples = if baseline {
        t.baseline.expect("a baseline").timing.samples
    } else {
        t.timing.samples
    };
    let total: Duration = samples.iter().sum();
    total.mul_f64(iters as f64 / calls as f64)
}

macro_rules! timed {
    ($c:expr, $group:expr, $label:expr, $n:expr, $bytes:expr, $b:expr, $job:expr, $has_baseline:expr) => {{
        let mut g = $c.benchmark_group($group);
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(1))
            .throughput(Throughput::Bytes($bytes as u64));
        g.bench_function(BenchmarkId::new($label, $n), |bch| {
            bch.iter_custom(|iters| run($b, &mut $job, iters, false))
        });
        if $has_baseline {
            g.bench_function(BenchmarkId::new("baseline", $n), |bch| {
                bch.iter_custom(|iters| run($b, &mut $job, iters, true))
            });
        }
        g.finish();
    }};
}

fn reduce<B: BenchBackend, T: Element>(
    c: &mut Criterion,
    b: &B,
    label: &str,
    n: usize,
    op: ReduceOp,
    cub: bool,
) {
    let x: Vec<T> = random(n, 1);
    let input = b.upload(&x).unwrap();
    assert!(reference::device_reduce(&x, op).same(b.reduce(&input, op).unwrap()));
    let name = format!("reduce_{op:?}_{}", T::KIND.name()).to_lowercase();
    timed!(
        c,
        name,
        label,
        n,
        n * T::KIND.size(),
        b,
        Job::Reduce { input: &input, op },
        cub
    );
}

fn scan<B: BenchBackend, T: Element>(
    c: &mut Criterion,
    b: &B,
    label: &str,
    n: usize,
    kind: ScanKind,
    cub: bool,
) {
    let op = ReduceOp::Sum;
    let x: Vec<T> = random(n, 2);
    let input = b.upload(&x).unwrap();
    let mut output = b.alloc::<T>(n).unwrap();
    b.scan(&input, &mut output, op, kind).unwrap();
    let want = reference::device_scan(&x, op, kind);
    assert!(
        want.iter()
            .zip(b.download(&output).unwrap())
            .all(|(w, g)| w.same(g))
    );
    let name = format!("scan_{kind:?}_{}", T::KIND.name()).to_lowercase();
    timed!(
        c,
        name,
        label,
        n,
        2 * n * T::KIND.size(),
        b,
        Job::Scan {
            input: &input,
            output: &mut output,
            op,
            kind
        },
        cub
    );
}

fn segmented<B: BenchBackend>(c: &mut Criterion, b: &B, label: &str, n: usize, cub: bool) {
    let op = ReduceOp::Sum;
    let x: Vec<f32> = random(n, 3);
    let mut offsets = vec![0u32];
    let mut i = 0u64;
    while (*offsets.last().unwrap() as usize) < n {
        let len = (splitmix(5 << 40 | i) % 17) as usize;
        offsets.push((*offsets.last().unwrap() as usize + len).min(n) as u32);
        i += 1;
    }
    let count = offsets.len() - 1;
    let vector = reference::auto_vector(n, count);
    let segs = Segments::from_offsets(b, &offsets, n, VectorSize::Auto).unwrap();
    let input = b.upload(&x).unwrap();
    let got = b
        .download(&b.segmented_reduce(&input, &segs, op).unwrap())
        .unwrap();
    let want = reference::segmented_reduce_offsets(&x, &offsets, vector, op);
    assert!(want.iter().zip(&got).all(|(w, g)| w.same(*g)));
    let raw = b.upload(&offsets).unwrap();
    let mut output = b.alloc::<f32>(count).unwrap();
    let job = Job::Segmented {
        input: &input,
        segments: &segs,
        raw: RawSegments {
            offsets: Some(&raw),
            seg_size: 0,
            count,
            vector,
            baseline_offsets: &raw,
        },
        output: &mut output,
        op,
    };
    let mut job = job;
    timed!(
        c,
        "segreduce_offsets_f32",
        label,
        n,
        4 * (n + count) + 4 * offsets.len(),
        b,
        job,
        cub
    );
}

fn spmv<B: BenchBackend>(c: &mut Criterion, b: &B, label: &str, n: usize) {
    let mut row_offsets = vec![0u32];
    let mut i = 0u64;
    while (*row_offsets.last().unwrap() as usize) < n {
        let len = 8 + (splitmix(6 << 40 | i) % 57) as usize;
        row_offsets.push((*row_offsets.last().unwrap() as usize + len).min(n) as u32);
        i += 1;
    }
    let rows = row_offsets.len() - 1;
    let cols: Vec<u32> = (0..n as u64)
        .map(|k| (splitmix(7 << 40 | k) % rows as u64) as u32)
        .collect();
    let vals: Vec<f32> = random(n, 8);
    let x: Vec<f32> = random(rows, 9);
    let vector = reference::auto_vector(n, rows);
    let a = Csr::new(b, rows, rows, &row_offsets, &cols, &vals).unwrap();
    let xb = b.upload(&x).unwrap();
    let mut y = b.alloc::<f32>(rows).unwrap();
    b.spmv(&a, &xb, &mut y, VectorSize::Auto).unwrap();
    let want = reference::spmv(&row_offsets, &cols, &vals, &x, vector);
    assert!(
        want.iter()
            .zip(b.download(&y).unwrap())
            .all(|(w, g)| w.same(g))
    );
    let (ro, cb, vb) = (
        b.upload(&row_offsets).unwrap(),
        b.upload(&cols).unwrap(),
        b.upload(&vals).unwrap(),
    );
    let mut job = Job::Spmv {
        a: &a,
        raw: RawCsr {
            row_offsets: &ro,
            cols: &cb,
        },
        vals: &vb,
        x: &xb,
        y: &mut y,
        vector,
    };
    timed!(
        c,
        "spmv_regular_f32",
        label,
        n,
        4 * (2 * n + 2 * rows + rows + 1),
        b,
        job,
        false
    );
}

fn selection<B: BenchBackend>(c: &mut Criterion, b: &B, label: &str, n: usize, cub: bool) {
    let x: Vec<f32> = random(n, 10);
    let input = b.upload(&x).unwrap();
    let lt = Predicate::Lt(0.0f32);
    assert_eq!(
        b.count_if(&input, lt).unwrap(),
        reference::count_if(&x, &lt)
    );
    timed!(
        c,
        "count_if_f32",
        label,
        n,
        4 * n,
        b,
        Job::CountIf {
            input: &input,
            pred: lt
        },
        cub
    );
    let gt = Predicate::Gt(0.0f32);
    let want = reference::compact(&x, &gt);
    let got = b.compact(&input, gt, true).unwrap();
    assert_eq!(got.len, want.len());
    let mut output = b.alloc::<f32>(n).unwrap();
    let mut count = b.alloc::<u64>(1).unwrap();
    timed!(
        c,
        "compact_stable_f32",
        label,
        n,
        4 * (n + want.len()),
        b,
        Job::Compact {
            input: &input,
            pred: gt,
            stable: true,
            output: &mut output,
            count: &mut count
        },
        cub
    );
    let keys: Vec<u32> = (0..n as u64)
        .map(|i| {
            let r = splitmix(14 << 40 | i);
            if !r.is_multiple_of(8) {
                17
            } else {
                ((r >> 3) % 288) as u32
            }
        })
        .collect();
    let kb = b.upload(&keys).unwrap();
    let (counts, outside) = reference::histogram(&keys, 256);
    let h = b.histogram(&kb, 256).unwrap();
    assert!(h.counts == counts && h.outside == outside);
    let mut hist: Job<'_, B, u32> = Job::Histogram {
        keys: &kb,
        bins: 256,
    };
    timed!(c, "histogram_skewed_u32", label, n, 4 * n, b, hist, cub);
}

/// Sort keys u32 (CUB DeviceRadixSort on CUDA, rayon on the CPU) and top-k(1024) of f32 (CUB's
/// sort of (value, index) pairs on CUDA), each checked against the reference first.
fn sorting<B: BenchBackend>(c: &mut Criterion, b: &B, label: &str, n: usize, gpu: bool) {
    let keys: Vec<u32> = random(n, 15);
    let kb = b.upload(&keys).unwrap();
    let mut out = b.alloc::<u32>(n).unwrap();
    b.sort_keys_into(&kb, &mut out, SortOrder::ASCENDING)
        .unwrap();
    let mut want = keys.clone();
    want.sort_unstable();
    assert_eq!(b.download(&out).unwrap(), want);
    let mut job: Job<'_, B, u32> = Job::Sort {
        keys: &kb,
        keys_out: &mut out,
        values: None,
    };
    timed!(c, "sort_keys_u32", label, n, 8 * n, b, job, true);

    let k = 1024.min(n);
    let x: Vec<f32> = random(n, 16);
    let xb = b.upload(&x).unwrap();
    let perm = reference::sort_permutation(&x, SortOrder::DESCENDING);
    let (mut values, mut indices) = (b.alloc::<f32>(k).unwrap(), b.alloc::<u32>(k).unwrap());
    b.top_k_with_indices_into(&xb, k, SortOrder::DESCENDING, &mut values, &mut indices)
        .unwrap();
    let got = b.download(&indices).unwrap();
    assert!(got.iter().zip(&perm).all(|(&g, &w)| g as usize == w));
    let mut job: Job<'_, B, f32> = Job::TopK {
        input: &xb,
        k,
        values: &mut values,
        indices: &mut indices,
    };
    timed!(c, "top_k_1024_f32", label, n, 4 * n, b, job, gpu);
}

fn all<B: BenchBackend>(c: &mut Criterion, b: &B, label: &str, gpu: bool) {
    for n in sizes() {
        reduce::<B, f32>(c, b, label, n, ReduceOp::Sum, gpu);
        reduce::<B, i32>(c, b, label, n, ReduceOp::Sum, gpu);
        reduce::<B, f64>(c, b, label, n, ReduceOp::Sum, gpu);
        reduce::<B, f32>(c, b, label, n, ReduceOp::Min, gpu);
        scan::<B, f32>(c, b, label, n, ScanKind::Inclusive, gpu);
        scan::<B, i64>(c, b, label, n, ScanKind::Inclusive, gpu);
        scan::<B, i32>(c, b, label, n, ScanKind::Exclusive, gpu);
        segmented(c, b, label, n, gpu);
        spmv(c, b, label, n);
        selection(c, b, label, n, gpu);
        sorting(c, b, label, n, gpu);
    }
}

fn benches(c: &mut Criterion) {
    let cpu = wavekit::cpu::CpuBackend::new(wavekit::WarpWidth::W32);
    all(c, &cpu, "cpu", false);
    #[cfg(feature = "cuda")]
    match wavekit::cuda::open(0) {
        Ok(gpu) => all(c, &gpu, "cuda", true),
        Err(e) => eprintln!("cuda: skipped ({e})"),
    }
}

criterion_group!(collectives, benches);
criterion_main!(collectives);
