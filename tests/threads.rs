//! Threads on one backend and on a backend each: every result equals the reference. A backend
//! is a stream plus its workspace; threads sharing one take its lock in turn (their work goes
//! to one stream in some order), threads with their own run side by side.

use std::sync::Arc;
use wavekit::gpu::{GpuBackend, GpuRuntime};
use wavekit::{Backend, Collectives, Predicate, ReduceOp, ScanKind};
use wavekit_conformance::reference as refr;

const THREADS: usize = 8;
const ROUNDS: usize = 4;

/// Thread `t`'s input: differs per thread, so a result landing in another thread's output shows.
fn input(t: usize, n: usize) -> Vec<u32> {
    (0..n).map(|i| ((i * 31 + t * 1009) % 977) as u32).collect()
}

/// `ROUNDS` rounds of reduce_into, scan, count_if_into and the reduce convenience on thread
/// `t`'s own input and outputs, each round checked against the reference.
fn work<R: GpuRuntime>(b: &GpuBackend<R>, t: usize, n: usize) {
    let host = input(t, n);
    let data = b.upload(&host).unwrap();
    let mut sum = b.alloc::<u32>(1).unwrap();
    let mut scanned = b.alloc::<u32>(n).unwrap();
    let mut count = b.alloc::<u64>(1).unwrap();
    let pred = Predicate::Lt(400);
    for round in 0..ROUNDS {
        b.reduce_into(&data, ReduceOp::Sum, &mut sum).unwrap();
        b.scan(&data, &mut scanned, ReduceOp::Sum, ScanKind::Exclusive)
            .unwrap();
        b.count_if_into(&data, pred, &mut count).unwrap();
        let max = b.reduce(&data, ReduceOp::Max).unwrap();
        assert_eq!(
            max,
            refr::device_reduce(&host, ReduceOp::Max),
            "{t}/{round}"
        );
        assert_eq!(
            b.download(&sum).unwrap(),
            [refr::device_reduce(&host, ReduceOp::Sum)],
            "thread {t} round {round}"
        );
        assert_eq!(
            b.download(&scanned).unwrap(),
            refr::device_scan(&host, ReduceOp::Sum, ScanKind::Exclusive),
            "thread {t} round {round}"
        );
        assert_eq!(b.download(&count).unwrap(), [refr::count_if(&host, &pred)]);
    }
}

/// `THREADS` threads on one shared backend.
pub fn shared<R: GpuRuntime>(b: GpuBackend<R>, n: usize) {
    let b = Arc::new(b);
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let b = Arc::clone(&b);
            s.spawn(move || work(&b, t, n));
        }
    });
}

/// `THREADS` threads with a backend each, opened by `open`.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub fn own<R: GpuRuntime>(open: impl Fn() -> GpuBackend<R> + Sync, n: usize) {
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let open = &open;
            s.spawn(move || work(&open(), t, n));
        }
    });
}

#[cfg(feature = "simt")]
#[test]
fn eight_threads_share_one_simt_backend() {
    for w in wavekit::WarpWidth::ALL {
        shared(wavekit::simt::open(w).unwrap(), 5000);
    }
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn eight_threads_share_one_cuda_backend() {
    shared(wavekit::cuda::open(0).expect("CUDA device 0"), 1 << 20);
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn eight_threads_with_a_cuda_backend_each() {
    own(|| wavekit::cuda::open(0).expect("CUDA device 0"), 1 << 20);
}
