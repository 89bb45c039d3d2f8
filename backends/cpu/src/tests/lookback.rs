//! The chained pass under the collectives that use it: values handed along in chunk order
//! whatever the scheduling, and a panic in any chunk ending the whole pass with a panic
//! instead of a successor waiting for ever.

use super::with_threads;
use crate::lookback::{chained, workers};
use crate::scratch::Scratch;
use std::sync::mpsc;
use std::time::Duration;

/// An order-dependent step: folding chunks in any other order gives another value.
fn step(prev: u64, chunk: usize) -> u64 {
    prev.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (chunk as u64 + 1)
}

#[test]
fn values_are_a_left_fold_in_chunk_order() {
    let chunks = 257;
    let want: Vec<u64> = (0..chunks)
        .scan(0u64, |v, c| {
            *v = step(*v, c);
            Some(*v)
        })
        .collect();
    for threads in [1, 2, 3, 8] {
        let got: Vec<_> = (0..chunks)
            .map(|_| std::sync::atomic::AtomicU64::new(0))
            .collect();
        with_threads(threads, || {
            chained(
                chunks,
                &Scratch::default(),
                || (),
                |_, c, link| {
                    // Uneven work, so chunks finish out of order.
                    if c % 7 == 3 {
                        std::thread::sleep(Duration::from_micros(200));
                    }
                    if let Some(n) = link.next() {
                        assert!(n > c, "chunk {c} is followed by {n}");
                    }
                    let v = step(link.wait().unwrap_or(0), c);
                    link.publish(v);
                    got[c].store(v, std::sync::atomic::Ordering::Relaxed);
                },
            )
        })
        .unwrap();
        let got: Vec<u64> = got.into_iter().map(|v| v.into_inner()).collect();
        assert_eq!(got, want, "{threads} threads");
    }
}

#[test]
fn a_panicking_chunk_ends_the_pass_with_a_panic() {
    // Each worker holds its next chunk while it works the current one; if the current one
    // panics, the held chunk must be poisoned too, or its successor waits for ever.
    for threads in [1, 2, 3, 8] {
        for bad in [0, 1, 5, 62] {
            let (done, finished) = mpsc::channel();
            std::thread::spawn(move || {
                let result = std::panic::catch_unwind(|| {
                    with_threads(threads, || {
                        chained(
                            64,
                            &Scratch::default(),
                            || (),
                            |_, c, link| {
                                if c % 5 == 1 {
                                    std::thread::sleep(Duration::from_micros(100));
                                }
                                let v = link.wait().unwrap_or(0);
                                assert!(c != bad, "chunk {c} fails on purpose");
                                link.publish(v + 1);
                            },
                        )
                    })
                });
                let _ = done.send(result.is_err());
            });
            match finished.recv_timeout(Duration::from_secs(60)) {
                Ok(panicked) => assert!(panicked, "chunk {bad} of {threads} threads: no panic"),
                Err(_) => panic!("chunk {bad} of {threads} threads: the pass hangs"),
            }
        }
    }
}

#[test]
fn every_worker_gets_a_buffer_of_its_own() {
    // Each worker marks its whole buffer with its own token when it starts and finds it
    // intact at every chunk: no two workers share any element.
    let (chunks, len) = (97, 33);
    for threads in [1, 2, 3, 8] {
        let next = std::sync::atomic::AtomicU64::new(1);
        with_threads(threads, || {
            Scratch::default().with_buffers::<u64, _>(workers(chunks), len, |bufs| {
                chained(
                    chunks,
                    &Scratch::default(),
                    || {
                        let token = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let buf = bufs.take();
                        buf.fill(token);
                        (token, buf)
                    },
                    |(token, buf), c, link| {
                        if c % 5 == 2 {
                            std::thread::sleep(Duration::from_micros(100));
                        }
                        assert!(buf.iter().all(|v| v == token), "chunk {c}: buffer shared");
                        let v = link.wait().unwrap_or(0);
                        link.publish(v + 1);
                    },
                )
            })
        })
        .unwrap()
        .unwrap();
    }
}

#[test]
#[should_panic(expected = "more workers than buffers")]
fn a_buffer_past_the_count_is_refused() {
    Scratch::default()
        .with_buffers::<u32, _>(2, 8, |bufs| {
            bufs.take();
            bufs.take();
            bufs.take();
        })
        .unwrap();
}

#[test]
fn scratch_past_host_memory_is_out_of_memory_and_keeps_the_pool() {
    use wavekit_core::error::WavekitError;
    let s = Scratch::default();
    s.with::<u64, _>(100, |v| v.fill(1)).unwrap();
    let held = s.held_bytes();
    // Past the host limit: refused before the allocator is asked, `f` never runs.
    let r = s.with::<u64, _>(usize::MAX / 16, |_| unreachable!("no scratch, no call"));
    assert!(matches!(r, Err(WavekitError::OutOfMemory { .. })), "{r:?}");
    let r = s.with_buffers::<u64, _>(usize::MAX / 2, 3, |_| unreachable!("overflowing count"));
    assert!(matches!(r, Err(WavekitError::OutOfMemory { .. })), "{r:?}");
    assert_eq!(s.held_bytes(), held, "the pool survives a refusal");
}
