//! Two backends on one GPU are two streams with two workspaces and no lock in common: work
//! enqueued on both from two threads runs at the same time. Each thread records a CUDA event
//! on its stream, enqueues 20 reductions of 2^26 floats with `reduce_into` (which returns
//! without waiting), and records a second event; the two intervals overlap (stream B's first
//! event precedes stream A's last, and the other way round). A global lock around a launch and
//! its completion, or a synchronisation in each call, would put one stream's work after the
//! other's.

#![cfg(feature = "cuda")]

use std::sync::Barrier;
use std::time::Instant;
use wavekit::cuda::CudaBackend;
use wavekit::{Backend, Collectives, ReduceOp};

const CALLS: usize = 20;
const N: usize = 1 << 26;

/// Milliseconds from event `$from` to event `$to` (negative when `$to` comes first).
macro_rules! ms {
    ($from:expr, $to:expr) => {
        $from.elapsed_ms(&$to).unwrap()
    };
}

#[test]
#[ignore = "needs a CUDA device"]
fn two_streams_overlap() {
    // Each backend makes its own stream.
    let open = || wavekit::cuda::open(0).expect("CUDA device 0");
    let backends: [CudaBackend; 2] = [open(), open()];
    // Small integers: every order of summation gives the exact sum.
    let host: Vec<f32> = (0..N).map(|i| (i % 4) as f32).collect();
    let want = (N / 4 * 6) as f32;
    let barrier = Barrier::new(2);
    let results = std::thread::scope(|s| {
        let handles: Vec<_> = backends
            .iter()
            .map(|b| {
                let barrier = &barrier;
                let host = &host;
                s.spawn(move || {
                    let input = b.upload(host).unwrap();
                    let mut outs: Vec<_> = (0..CALLS).map(|_| b.alloc::<f32>(1).unwrap()).collect();
                    b.reserve::<f32>(N).unwrap();
                    b.reduce_into(&input, ReduceOp::Sum, &mut outs[0]).unwrap();
                    b.synchronize().unwrap();
                    barrier.wait();
                    let host_start = Instant::now();
                    let start = b.runtime().record_event().unwrap();
                    for out in &mut outs {
                        b.reduce_into(&input, ReduceOp::Sum, out).unwrap();
                    }
                    let end = b.runtime().record_event().unwrap();
                    let enqueue = host_start.elapsed();
                    b.synchronize().unwrap();
                    let sums: Vec<f32> = outs.iter().map(|o| b.download(o).unwrap()[0]).collect();
                    (start, end, enqueue, sums)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect::<Vec<_>>()
    });
    let (a, b) = (&results[0], &results[1]);
    for (_, _, _, sums) in &results {
        assert!(sums.iter().all(|&s| s == want), "{sums:?} != {want}");
    }
    let (a_busy, b_busy) = (ms!(a.0, a.1), ms!(b.0, b.1));
    let b_start_after_a_end = ms!(a.1, b.0);
    let a_start_after_b_end = ms!(b.1, a.0);
    println!(
        "stream A {a_busy:.3} ms, stream B {b_busy:.3} ms on the device; B starts {:.3} ms \
         after A ends, A starts {:.3} ms after B ends; host enqueue {:?} and {:?}",
        b_start_after_a_end, a_start_after_b_end, a.2, b.2
    );
    assert!(
        b_start_after_a_end < 0.0,
        "stream B began after stream A had finished"
    );
    assert!(
        a_start_after_b_end < 0.0,
        "stream A began after stream B had finished"
    );
    // Enqueueing returned long before the device was done: the calls do not wait.
    assert!(
        a.2.as_secs_f32() * 1e3 < a_busy / 2.0,
        "{:?} vs {a_busy} ms",
        a.2
    );
}
